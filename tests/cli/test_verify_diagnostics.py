"""`--verify-diagnostics` as MLIR's SourceMgrDiagnosticVerifierHandler: every designator form, the
regex pieces of `-re`, and MLIR's messages for an unexpected, a missing or a near-miss diagnostic."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stablehlo_py.cli.common import DiagnosticVerifier, mlir_regex
from stablehlo_py.errors import StableHLOError

BAD_ADD = "%0 = stablehlo.add %arg0, %arg1 : (tensor<2xf32>, tensor<3xf32>) -> tensor<2xf32>"


def verifier(text: str, offset: int = 0) -> DiagnosticVerifier:
    return DiagnosticVerifier(text, "f.mlir", offset)


def lines_of(v: DiagnosticVerifier) -> dict[int | None, list[str]]:
    out: dict[int | None, list[str]] = {}
    for e in [*v.expected, *v.unknown]:
        out.setdefault(e.line, []).append(f"{e.kind}:{e.text}")
    return out


@pytest.mark.parametrize(
    ("designator", "line"),
    [
        ("// expected-error {{boom}}", 2),
        ("// expected-error@+1 {{boom}}", 3),
        ("// expected-error @+2 {{boom}}", 4),
        ("// expected-error@-1 {{boom}}", 1),
        ("// expected-error @above {{boom}}", 1),
        ("// expected-error @below {{boom}}", 3),
        ("// @expected-error @+1{{boom}}", 3),  # MLIR's pattern is not anchored at the line start
        ("  expected-error@+1 {{boom}}", 3),  # nor does it need a comment
    ],
)
def test_designator_lines(designator: str, line: int) -> None:
    v = verifier(f"x\n{designator}\ny\nz\n")
    assert lines_of(v) == {line: ["error:boom"]}


def test_every_kind() -> None:
    v = verifier(
        "a // expected-warning {{w}}\nb // expected-remark {{r}}\nc // expected-note {{n}}\n"
    )
    assert lines_of(v) == {1: ["warning:w"], 2: ["remark:r"], 3: ["note:n"]}


def test_above_skips_designator_lines_and_below_waits_for_a_plain_line() -> None:
    text = "op\n// expected-error@above {{a1}}\n// expected-error@above {{a2}}\n"
    text += "// expected-error@below {{b1}}\n// expected-error@below {{b2}}\nnext\n"
    assert lines_of(verifier(text)) == {1: ["error:a1", "error:a2"], 6: ["error:b1", "error:b2"]}


def test_dangling_below_points_past_the_last_line() -> None:
    v = verifier("x\n// expected-error@below {{late}}")
    assert lines_of(v) == {2: ["error:late"]}  # MLIR: the number of lines (split on '\n')


def test_unknown_location_matches_a_diagnostic_without_one() -> None:
    v = verifier("x // expected-error@unknown {{nowhere}}\n")
    assert lines_of(v) == {None: ["error:nowhere"]}
    v.process("error", "it is nowhere", None)
    assert v.finish() == []
    v = verifier("x // expected-error@unknown {{nowhere}}\n")
    v.process("error", "it is nowhere", "f.mlir:1:1")
    assert v.finish() == [
        "f.mlir:1:1: error: unexpected error: it is nowhere",
        'error: expected error "nowhere" was not produced',
    ]


def test_text_runs_to_the_braces_that_end_the_line() -> None:
    v = verifier("x // expected-error@+0 {{a {{b}} c}}  \n")
    assert lines_of(v) == {1: ["error:a {{b}} c"]}


def test_spaces_only_between_parts_and_braces_required() -> None:
    assert lines_of(verifier("x // expected-error\t{{tab}}\n")) == {}
    assert lines_of(verifier("x // expected-error boom\n")) == {}
    assert lines_of(verifier("x // expected-error@+x {{bad offset}}\n")) == {}


def test_split_offset_shifts_lines() -> None:
    v = verifier("\n// expected-error@+1 {{boom}}\nop\n", offset=10)
    assert lines_of(v) == {13: ["error:boom"]}


@pytest.mark.parametrize(
    ("text", "message", "matched"),
    [
        ("op {{[0-9]+}} ok", "op 42 ok", True),
        ("op {{[0-9]+}} ok", "op x ok", False),
        ("a.b {{.*}}", "a.b anything", True),
        ("a.b", "axb", False),  # outside {{}} is literal
        ("(c) {{c|d}}", "(c) d", True),
        ("x{{a}}y{{b}}z", "xaybz", True),
    ],
)
def test_regex_pieces(text: str, message: str, matched: bool) -> None:
    v = verifier(f"op // expected-error-re {{{{{text}}}}}\n")
    v.process("error", message, "f.mlir:1:1")
    assert (v.finish() == []) is matched


def test_mlir_regex_escapes_literals_and_groups_pieces() -> None:
    assert mlir_regex("a.b{{c+}}d") == r"a\.b(c+)d"


@pytest.mark.parametrize(
    ("text", "problem"),
    [("x {{oops", "found start of regex with no end '}}'"), ("x {{(}}", "invalid regex: ")],
)
def test_malformed_regex_is_reported(text: str, problem: str) -> None:
    v = verifier(f"op\n  // expected-error-re@-1 {{{{{text}}}}}\n")
    assert v.expected == []
    (line,) = v.finish()
    assert line.startswith(f"f.mlir:2:6: error: {problem}")


@pytest.mark.parametrize(
    ("text", "diagnostics", "want"),
    [
        # plain text is a substring
        ("op // expected-error {{is (not) a [regex]}}\n",
         [("error", "'x' op is (not) a [regex] here", "f.mlir:1:4")], []),
        # unexpected and missing messages
        ("op\n// expected-error@-1 {{wanted}}\n", [("error", "something else", "f.mlir:1:3")], [
            "f.mlir:1:3: error: unexpected error: something else",
            'f.mlir:2:4: error: expected error "wanted" was not produced',
        ]),
        # a near miss on the kind
        ("op // expected-note {{careful}}\n", [("error", "be careful", "f.mlir:1:1")], [
            "f.mlir:1:7: error: 'error' diagnostic emitted when expecting a 'note'",
            'f.mlir:1:7: error: expected note "careful" was not produced',
        ]),
        # one expectation meets repeated identical diagnostics
        ("op // expected-error {{boom}}\n",
         [("error", "boom", "f.mlir:1:1"), ("error", "boom", "f.mlir:1:9")], []),
        # a file-only location is the implicit module, line 0
        ("// expected-error@-1 {{module level}}\nop\n", [("error", "module level", "f.mlir")], []),
    ],
    ids=[
        "plain_text_is_a_substring",
        "unexpected_and_missing_messages",
        "near_miss_on_kind",
        "one_expectation_meets_repeated_identical_diagnostics",
        "file_only_location_is_the_implicit_module_line_zero",
    ],
)
def test_what_finish_reports(
    text: str, diagnostics: list[tuple[str, str, str]], want: list[str]
) -> None:
    """The diagnostics (kind, message, location) as reported, then what the verifier says."""
    v = verifier(text)
    for kind, message, location in diagnostics:
        v.process(kind, message, location)
    assert v.finish() == want


def test_wrong_line_is_unexpected() -> None:
    v = verifier("op\nop // expected-error {{boom}}\n")
    v.process("error", "boom", "f.mlir:1:1")
    assert v.finish()[0] == "f.mlir:1:1: error: unexpected error: boom"


def test_error_note_is_matched_when_expected_and_not_reported_otherwise() -> None:
    err = StableHLOError("boom", location="f.mlir:1:1", note="how to fix")
    v = verifier("op // expected-error {{boom}}\n// expected-note@-1 {{how to}}\n")
    v.process_error(err)
    assert v.finish() == []
    v = verifier("op // expected-error {{boom}}\n")
    v.process_error(err)
    assert v.finish() == []


# ------------------------------------------------------------------ through stablehlo-opt


def opt(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "t.mlir"
    path.write_text(text)
    tool = shutil.which("stablehlo-opt", path=str(Path(sys.executable).parent)) or "stablehlo-opt"
    args = [tool, "--verify-diagnostics", "--split-input-file", str(path)]
    r = subprocess.run(args, check=False, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stderr


def test_cli_expected_error_passes(tmp_path: Path) -> None:
    text = f"""func.func @f(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) {{
  // expected-error@+1 {{{{op requires the same shape for all operands and results}}}}
  {BAD_ADD}
  return
}}
"""
    code, err = opt(tmp_path, text)
    assert code == 0, err


def test_cli_reports_unexpected_and_missing(tmp_path: Path) -> None:
    text = f"""func.func @f(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) {{
  // expected-error@+2 {{{{never said}}}}
  {BAD_ADD}
  return
}}
// -----
// expected-error@+1 {{{{not produced either}}}}
func.func @g() {{
  return
}}
"""
    code, err = opt(tmp_path, text)
    assert code == 1
    path = tmp_path / "t.mlir"
    assert f"{path}:3:8: error: unexpected error: 'stablehlo.add' op" in err
    assert f'{path}:2:6: error: expected error "never said" was not produced' in err
    assert f'{path}:7:4: error: expected error "not produced either" was not produced' in err
