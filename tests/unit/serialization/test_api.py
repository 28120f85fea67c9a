"""The Python API (upstream's names), and the CLI modes of stablehlo-translate and stablehlo-opt."""

from __future__ import annotations

from pathlib import Path

import pytest
from stablehlo_py.serialization import (
    MAGIC,
    check_compat,
    deserialize_portable_artifact,
    deserialize_portable_artifact_str,
    get_portable_artifact_version,
    serialize_portable_artifact,
    serialize_portable_artifact_str,
)

import stablehlo_py
from stablehlo_py.errors import SerializationError, StableHLOError, VersionError
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.version import Version, get_current_version
from tests.unit.serialization.helpers import PROGRAM

TAN = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  %0 = stablehlo.tan %a : tensor<f32>\n  return %0 : tensor<f32>\n}\n"


def test_text_round_trip_at_current() -> None:
    data = serialize_portable_artifact_str(PROGRAM, "current")
    assert data.startswith(MAGIC)
    assert get_portable_artifact_version(data) == get_current_version()
    assert deserialize_portable_artifact_str(data) == print_ir(parse(PROGRAM))


def test_module_api_keeps_the_input_and_locations() -> None:
    module = parse(PROGRAM, "program.mlir")
    before = print_ir(module, debuginfo=True)
    data = serialize_portable_artifact(module, get_current_version())
    assert print_ir(module, debuginfo=True) == before  # not modified
    back = deserialize_portable_artifact(data)
    assert print_ir(back, debuginfo=True) == before  # parse locations and explicit ones kept
    stripped = serialize_portable_artifact(module, "current", strip_debuginfo=True)
    assert "program.mlir" not in print_ir(deserialize_portable_artifact(stripped), debuginfo=True)


def test_exported_from_the_package() -> None:
    for name in (
        "serialize_portable_artifact",
        "deserialize_portable_artifact",
        "serialize_portable_artifact_str",
        "deserialize_portable_artifact_str",
        "get_portable_artifact_version",
        "check_compat",
    ):
        assert callable(getattr(stablehlo_py, name))
        assert getattr(stablehlo_py, name) is getattr(stablehlo_py.api, name)


def test_bad_targets() -> None:
    with pytest.raises(VersionError, match="9.0.0"):
        serialize_portable_artifact_str(PROGRAM, "9.0.0")
    with pytest.raises(VersionError, match="0.1.0"):
        serialize_portable_artifact_str(PROGRAM, "0.1.0")
    with pytest.raises(VersionError):
        serialize_portable_artifact_str(PROGRAM, "latest")


def test_program_newer_than_the_target_names_the_blocker() -> None:
    with pytest.raises(StableHLOError, match="tan"):
        serialize_portable_artifact_str(TAN, "1.3.0")


def test_check_compat_backward_and_forward() -> None:
    data = serialize_portable_artifact_str(TAN, "current")
    ok = check_compat(data, "current")
    assert ok.compatible and ok.artifact_version == get_current_version()
    old = check_compat(data, "1.3.0")
    assert not old.compatible
    text = old.render()
    assert "NOT compatible" in text and f"written for StableHLO {get_current_version()}" in text
    assert "tan" in text  # the op that cannot be written for 1.3.0


def test_only_toolkit_errors_on_garbage() -> None:
    for data in (b"", b"\x00" * 10, MAGIC + b"\x00", b"ML\xefR"):
        with pytest.raises(SerializationError):
            deserialize_portable_artifact(data)
        with pytest.raises(SerializationError):
            get_portable_artifact_version(data)
    with pytest.raises(SerializationError):
        deserialize_portable_artifact("text, not bytes")  # type: ignore[arg-type]


# -- command line


def _translate(*argv: str) -> int:
    from stablehlo_py.cli.translate import main

    return main(list(argv))


def _opt(*argv: str) -> int:
    from stablehlo_py.cli.opt import main

    return main(list(argv))


@pytest.fixture()
def program_file(tmp_path: Path) -> Path:
    p = tmp_path / "program.mlir"
    p.write_text(PROGRAM)
    return p


def test_translate_serialize_deserialize(
    program_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    art = tmp_path / "p.shlo"
    assert _translate("--serialize", "--target=current", str(program_file), "-o", str(art)) == 0
    assert art.read_bytes().startswith(MAGIC)
    out = tmp_path / "p.mlir"
    assert _translate("--deserialize", str(art), "-o", str(out)) == 0
    assert out.read_text() == print_ir(parse(PROGRAM))
    assert _translate("--print-stablehlo-version") == 0
    assert capsys.readouterr().out.strip() == str(get_current_version())


def test_translate_errors_are_messages(
    program_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _translate("--serialize", str(program_file)) == 1
    assert "--target" in capsys.readouterr().err
    bad = tmp_path / "bad.shlo"
    bad.write_bytes(b"garbage")
    assert _translate("--deserialize", str(bad)) == 1
    err = capsys.readouterr().err
    assert "not a StableHLO portable artifact" in err and "Traceback" not in err


def test_translate_check_compat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = tmp_path / "tan.mlir"
    prog.write_text(TAN)
    art = tmp_path / "tan.shlo"
    assert _translate("--serialize", "--target=current", str(prog), "-o", str(art)) == 0
    assert (
        _translate("--check-compat", f"--consumer-version={get_current_version()}", str(art)) == 0
    )
    assert "compatible" in capsys.readouterr().out
    assert _translate("--check-compat", "--consumer-version=1.0.0", str(art)) == 1
    out = capsys.readouterr().out
    assert "NOT compatible" in out and "blocker:" in out


def test_opt_serialize_and_deserialize(program_file: Path, tmp_path: Path) -> None:
    art = tmp_path / "p.shlo"
    assert _opt(str(program_file), "--serialize", "--target=current", "-o", str(art)) == 0
    out = tmp_path / "back.mlir"
    assert _opt(str(art), "--deserialize", "-o", str(out)) == 0
    assert out.read_text() == print_ir(parse(PROGRAM))
    # VHLO from the pass pipeline is written as it is
    art2 = tmp_path / "v.shlo"
    assert (
        _opt(
            str(program_file),
            "--stablehlo-legalize-to-vhlo",
            "--serialize",
            "--target=current",
            "-o",
            str(art2),
        )
        == 0
    )
    assert art2.read_bytes() == art.read_bytes()


def test_version_object_targets() -> None:
    data = serialize_portable_artifact_str(
        PROGRAM, Version(1, 20, 3) if get_current_version() == Version(1, 20, 0) else "current"
    )
    assert get_portable_artifact_version(data) == get_current_version()
