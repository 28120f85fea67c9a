"""docs/builder-ops.md, the table of every builder function's signature, is what
tools/builder_signatures.py writes from the op classes now (so it cannot go stale), has a row per
function of both dialects, and its rows say what the functions do."""

from __future__ import annotations

import importlib.util
import inspect
import re

import pytest

from stablehlo_py.builder import Module, chlo, tensor
from stablehlo_py.builder import stablehlo as hlo
from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location(
    "builder_signatures", REPO / "tools" / "builder_signatures.py"
)
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

PAGE = REPO / "docs" / "builder-ops.md"


def _rows() -> dict[str, dict[str, list[str]]]:
    """Per section (dialect), function name -> its row's cells, read back from the page."""
    rows: dict[str, dict[str, list[str]]] = {}
    section = None
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"## (\w+) \((\d+) functions\)", line)
        if m:
            section = rows.setdefault(m.group(1), {})
        elif section is not None and line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split(" | ")]
            name = cells[0].strip("`")
            assert name not in section, f"two rows for {name}"
            section[name] = cells
    return rows


def _params(cells: list[str]) -> str:
    """The parameters cell as one line of text (code spans and line breaks removed)."""
    return cells[2].replace("`<br>`", " ").strip("`")


def test_the_page_is_what_the_tool_writes_now() -> None:
    assert PAGE.read_text(encoding="utf-8") == tool.render(), (
        "docs/builder-ops.md is stale: run python tools/builder_signatures.py"
    )


def test_check_mode_says_whether_the_page_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    assert tool.main(["--check"]) == 0
    real = tool.PAGE
    try:
        tool.PAGE = REPO / "docs" / "no-such-page.md"
        assert tool.main(["--check"]) == 1
    finally:
        tool.PAGE = real
    assert "run python tools/builder_signatures.py" in capsys.readouterr().out


def test_every_function_of_both_dialects_has_one_row() -> None:
    rows = _rows()
    assert set(rows) == {"stablehlo", "chlo"}
    for dialect, ns in (("stablehlo", hlo), ("chlo", chlo)):
        fns = ns.functions()
        assert sorted(rows[dialect]) == sorted(fns)
        assert list(rows[dialect]) == sorted(fns)  # alphabetical
        for name, cells in rows[dialect].items():
            assert cells[1] == f"`{fns[name].spec.name}`"
    assert len(rows["stablehlo"]) > 100 and len(rows["chlo"]) > 40


def test_the_page_is_deterministic() -> None:
    text = tool.render()
    assert text == tool.render()
    assert " at 0x" not in text and "<function" not in text and "lambda" not in text


def test_add() -> None:
    cells = _rows()["stablehlo"]["add"]
    assert cells == [
        "`add`",
        "`stablehlo.add`",
        "`lhs, rhs`",
        "inferred (result_type= overrides)",
        "a value",
    ]


def test_convolution_shows_its_builder_defaults_and_forms() -> None:
    cells = _rows()["stablehlo"]["convolution"]
    params = _params(cells)
    assert params.startswith("lhs, rhs, window_strides: [int] = None, padding: [[int]] or \"SAME\"")
    for text in (
        "feature_group_count: int = 1",
        "batch_group_count: int = 1",
        "dimension_numbers: dict or str or (lhs,rhs,out) = None",
        "window_strides: [int] = None",
        "precision_config: [Precision] = None",
    ):
        assert text in params
    # every attribute positional too (builder defaults), as inspect.signature says
    assert "*," not in params
    assert "<br>" in cells[2]  # a long signature is broken between parameters


def test_while_takes_its_regions_as_callables() -> None:
    cells = _rows()["stablehlo"]["while_"]
    assert cells[1] == "`stablehlo.while`"
    assert _params(cells) == "operand..., *, cond: fn, body: fn"
    assert cells[4] == "a value per result (a tuple when several)"


def test_composite_result_types_come_from_the_decomposition() -> None:
    cells = _rows()["stablehlo"]["composite"]
    assert "decomposition: symbol or fn" in _params(cells)
    assert cells[3] == "the decomposition's result types (result_type= overrides)"


def test_required_result_types_and_ops_without_results() -> None:
    rows = _rows()["stablehlo"]
    assert rows["reshape"][3] == "result_type= required"
    assert rows["convert"][3].startswith("the operand's shape with the element type given")
    assert _params(rows["convert"]) == "operand, element_type: dtype = None"
    assert rows["return_"][3:] == ["none (the op has no results)", "the op"]
    assert rows["batch_norm_training"][4] == "a tuple of 3 values"
    assert rows["create_token"][2] == "(none)"


def test_a_chlo_broadcast_op() -> None:
    cells = _rows()["chlo"]["broadcast_compare"]
    assert cells[1] == "`chlo.broadcast_compare`"
    assert _params(cells) == (
        "lhs, rhs, comparison_direction: ChloComparisonDirection, "
        "compare_type: ChloComparisonType = None, broadcast_dimensions: [int] = None"
    )


def test_every_row_names_the_parameters_the_function_takes() -> None:
    """The names in each row are inspect.signature's (result_type= and loc= aside), in its order,
    with ``*`` before the first keyword-only one."""
    rows = _rows()
    for dialect, ns in (("stablehlo", hlo), ("chlo", chlo)):
        for name, fn in ns.functions().items():
            cells = rows[dialect][name]
            shown = [] if cells[2] == "(none)" else _params(cells).split(", ")
            names = [re.match(r"\*|\w+", p).group(0) for p in shown if re.match(r"\*|\w+", p)]
            want, star = [], False
            for p in inspect.signature(fn).parameters.values():
                if p.name in ("result_type", "loc"):
                    continue
                if p.kind is p.KEYWORD_ONLY and not star:
                    want.append("*")
                    star = True
                want.append(p.name)
            assert names == want, name


def test_a_row_is_a_call_that_works() -> None:
    """compare's row as the page gives it: operands by name, the enum attribute as a case name."""
    m = Module()

    @m.func(tensor((2,), "f32"), tensor((2,), "f32"))
    def main(x, y):
        return hlo.compare(lhs=x, rhs=y, comparison_direction="GT")

    m.verify()
    assert re.search(r"stablehlo\.compare\s+GT", m.text())


def test_every_attribute_has_a_known_kind() -> None:
    """No attribute falls back to 'attribute' (a converter without a kind: attrs._kind)."""
    for ns in (hlo, chlo):
        for name, fn in ns.functions().items():
            for p in fn.parameters():
                assert not p.split(" = ")[0].endswith(": attribute"), (name, p)


def test_help_shows_the_row_s_signature_and_result() -> None:
    """help() and the page share one source (OpFunction.signature, result_source, returns)."""
    cells = _rows()["stablehlo"]["while_"]
    doc = hlo.while_.__doc__
    assert f"Call: while_({_params(cells)})" in doc
    assert f"Result type: {cells[3]}" in doc and f"Returns: {cells[4]}" in doc
