"""A third-party package registers custom-call targets through the entry point group
`stablehlo_py.custom_calls`: it is built and installed into a fresh virtual environment with pip, and
`stablehlo-translate --interpret` (a subprocess of that environment) runs programs calling its targets.

The package holds three plugins: one built against API 1.0 (an old record: it reads only the 1.0
fields and checks for newer ones), one using `register(api)` at the toolkit's version, and one built
against a newer minor version than the toolkit's (refused at load with one error).  The package is
built by a small in-tree PEP 517 backend, so the test needs neither network nor `wheel`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import numpy as np
import pytest
from stablehlo_py.interpreter.custom_calls.context import API_VERSION

OURS = f"{API_VERSION[0]}.{API_VERSION[1]}"
NEWER = (API_VERSION[0], API_VERSION[1] + 1)

BACKEND = '''
"""A minimal PEP 517 backend: a pure-Python wheel of the package directories listed in PACKAGES."""
import base64, hashlib, os, zipfile

NAME, VERSION, PACKAGES = "shp_test_plugins", "0.1", ["shp_test_plugins"]
ENTRY_POINTS = open("entry_points.txt").read()


def _dist_info():
    return f"{NAME}-{VERSION}.dist-info"


def _metadata_files():
    return {
        "METADATA": f"Metadata-Version: 2.1\\nName: {NAME}\\nVersion: {VERSION}\\n",
        "WHEEL": "Wheel-Version: 1.0\\nGenerator: test-backend\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
        "entry_points.txt": ENTRY_POINTS,
    }


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    path = os.path.join(metadata_directory, _dist_info())
    os.makedirs(path)
    for name, text in _metadata_files().items():
        with open(os.path.join(path, name), "w") as f:
            f.write(text)
    return _dist_info()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel = f"{NAME}-{VERSION}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        def add(arcname, data):
            z.writestr(arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{arcname},sha256={digest},{len(data)}")
        for package in PACKAGES:
            for root, _, files in os.walk(package):
                for file in sorted(files):
                    if file.endswith(".py"):
                        path = os.path.join(root, file)
                        add(path, open(path, "rb").read())
        for name, text in _metadata_files().items():
            add(f"{_dist_info()}/{name}", text.encode())
        records.append(f"{_dist_info()}/RECORD,,")
        z.writestr(f"{_dist_info()}/RECORD", "\\n".join(records) + "\\n")
    return wheel
'''

OLD_RECORD = """
import numpy as np

API_VERSION = (1, 0)  # built against the first record: it knows nothing of process ids


def axpy(ctx):
    # reads only fields of API 1.0; newer fields are checked for before use
    a = np.asarray(ctx.backend_config["alpha"], dtype=ctx.operands[0].dtype)
    extra = ctx.partition_id if ctx.has_field("partition_id") else 0
    return [a * ctx.operands[0] + ctx.operands[1] + extra]


TARGETS = {"shp_test.axpy": axpy}
"""

CURRENT = f"""
API_VERSION = {tuple(API_VERSION)!r}


def register(api):
    api.register("shp_test.reverse", lambda ctx: [ctx.operands[0][::-1].copy()])
"""

TOO_NEW = f"""
API_VERSION = {NEWER!r}  # needs record fields this toolkit does not have

TARGETS = {{"shp_test.future": lambda ctx: [ctx.operands[0]]}}
"""

ENTRY_POINTS = """[stablehlo_py.custom_calls]
old_record = shp_test_plugins.old_record
current = shp_test_plugins.current
too_new = shp_test_plugins.too_new
"""

PYPROJECT = """[build-system]
requires = []
build-backend = "backend"
backend-path = ["."]

[project]
name = "shp_test_plugins"
version = "0.1"
"""

AXPY = """
func.func @main() -> tensor<3xf32> {
  %x = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %y = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = stablehlo.custom_call @shp_test.axpy(%x, %y) {backend_config = {alpha = 2.0 : f32},
      api_version = 4 : i32} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = stablehlo.custom_call @shp_test.reverse(%0) : (tensor<3xf32>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}
"""

FUTURE = """
func.func @main() -> tensor<2xi32> {
  %x = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %0 = stablehlo.custom_call @shp_test.future(%x) : (tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""


def _make_package(root: Path) -> Path:
    pkg = root / "shp_test_plugins_src"
    (pkg / "shp_test_plugins").mkdir(parents=True)
    (pkg / "pyproject.toml").write_text(PYPROJECT)
    (pkg / "backend.py").write_text(BACKEND)
    (pkg / "entry_points.txt").write_text(ENTRY_POINTS)
    (pkg / "shp_test_plugins" / "__init__.py").write_text("")
    (pkg / "shp_test_plugins" / "old_record.py").write_text(textwrap.dedent(OLD_RECORD))
    (pkg / "shp_test_plugins" / "current.py").write_text(textwrap.dedent(CURRENT))
    (pkg / "shp_test_plugins" / "too_new.py").write_text(textwrap.dedent(TOO_NEW))
    return pkg


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["PIP_NO_INDEX"] = "1"  # everything is local
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@pytest.fixture(scope="module")
def plugin_venv(tmp_path_factory) -> Path:
    if shutil.which("pip") is None and not _has_module("pip"):
        pytest.skip("pip is not available in this interpreter, so no package can be installed")
    root = tmp_path_factory.mktemp("plugin_venv")
    env_dir = root / "venv"
    try:
        venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    except Exception as exc:  # noqa: BLE001 - a platform without venv support
        pytest.skip(f"cannot create a virtual environment here: {exc}")
    python = env_dir / "bin" / "python"
    # `--system-site-packages` exposes the base interpreter's packages; when the tests run inside a
    # virtual environment, that environment (stablehlo_py, numpy, pip) is added the same way
    site_dir = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    ours = sysconfig.get_path("purelib")
    (site_dir / "_stablehlo_py_parent.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    pkg = _make_package(root)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", str(pkg)],
        capture_output=True,
        check=False,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert any(p.name.startswith("shp_test_plugins") for p in site_dir.iterdir())
    return python


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def translate(python: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), "-m", "stablehlo_py.cli.translate", *args],
        input=stdin,
        capture_output=True,
        check=False,
        text=True,
        env=_env(),
        timeout=120,
    )


def test_listing_shows_plugin_targets_and_the_refused_plugin(plugin_venv: Path) -> None:
    done = translate(plugin_venv, "--interpret", "--list-custom-calls")
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[2:]}
    assert rows["shp_test.axpy"][1:] == ["any", "entry", "point", "shp_test_plugins", "api", "1.0"]
    assert rows["shp_test.reverse"][1:] == ["any", "entry", "point", "shp_test_plugins", "api", OURS]
    assert rows["check.expect_eq"][1:3] == ["any", "built-in"]
    assert "shp_test.future" not in rows
    # the too-new plugin: one error naming it, its version and ours
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, done.stderr
    assert "'too_new'" in errors[0] and f"{NEWER[0]}.{NEWER[1]}" in errors[0] and OURS in errors[0]
    assert "Traceback" not in done.stderr
    assert done.returncode == 1


def test_interpret_runs_old_record_and_current_plugins(plugin_venv: Path) -> None:
    done = translate(plugin_venv, "--interpret", "--interpreter-print-dense", "-", stdin=AXPY)
    assert done.returncode == 0, done.stderr
    # axpy: 2*x + y (+ partition 0) = [12, 24, 36], then reversed
    assert "dense<[3.600000e+01, 2.400000e+01, 1.200000e+01]>" in done.stdout, done.stdout
    expected = (2 * np.array([1, 2, 3]) + np.array([10, 20, 30]))[::-1]
    assert expected.tolist() == [36, 24, 12]


def test_interpret_refuses_too_new_plugin_target(plugin_venv: Path) -> None:
    done = translate(plugin_venv, "--interpret", "-", stdin=FUTURE)
    assert done.returncode == 1
    assert "'too_new'" in done.stderr
    assert f"{NEWER[0]}.{NEWER[1]}" in done.stderr and OURS in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_plugins_are_not_visible_outside_the_venv() -> None:
    """The plugin package is installed only in the temporary environment."""
    done = subprocess.run(
        [sys.executable, "-m", "stablehlo_py.cli.translate", "--interpret", "--list-custom-calls"],
        capture_output=True,
        check=False,
        text=True,
        env=_env(),
        timeout=120,
    )
    assert "shp_test." not in done.stdout
