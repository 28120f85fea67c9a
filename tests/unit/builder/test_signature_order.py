"""The builder's parameters come in upstream's order: each op function takes its operands, then its
attributes, each group in the order of the op's ODS ``arguments`` (StablehloOps.td, ChloOps.td), so that a
call written after upstream's builders or jax.lax (``convolution(lhs, rhs, window_strides,
padding)``) binds each value to the attribute it means.  The op classes follow IRDL's order, which
lists inherited attributes after the op's own; ``ATTRIBUTE_ORDER`` on the class restores
upstream's."""

from __future__ import annotations

import inspect
import re

import pytest

from stablehlo_py.builder import chlo
from stablehlo_py.builder import stablehlo as hlo
from tests.conftest import REFERENCE

TD = {
    "stablehlo.": REFERENCE / "upstream" / "dialect" / "StablehloOps.td",
    "chlo.": REFERENCE / "upstream" / "dialect" / "ChloOps.td",
}


def ods_arguments() -> dict[str, list[str]]:
    """Op name -> the names in its ODS ``let arguments = (ins ...)``, in order."""
    out: dict[str, list[str]] = {}
    for prefix, path in TD.items():
        text = path.read_text(encoding="utf-8")
        defs = list(re.finditer(r'^def \w+\s*:\s*\w+<"(\w+)"', text, re.M))
        for k, m in enumerate(defs):
            end = defs[k + 1].start() if k + 1 < len(defs) else len(text)
            args = re.search(r"let arguments = \(ins(.*?)\);", text[m.end() : end], re.S)
            if args is not None:
                out[prefix + m.group(1)] = re.findall(r":\s*\$(\w+)", args.group(1))
    return out


def test_parameters_follow_upstreams_order() -> None:
    if not all(p.is_file() for p in TD.values()):
        pytest.skip(f"upstream's .td files are absent ({REFERENCE})")
    ods = ods_arguments()
    assert len(ods) > 80
    compared, wrong = 0, []
    for ns in (hlo, chlo):
        for fn in ns.functions().values():
            spec = fn.spec
            want = ods.get(spec.name)
            if want is None:  # ops whose arguments come from a shared ODS class
                continue
            # operands come first, then attributes (the builder's rule); each group in upstream's
            # order (names ODS spells otherwise, from a shared class, are left out)
            for ours in (
                [o.field.rstrip("_") for o in spec.operands],
                [a.prop for a in spec.attrs],
            ):
                theirs = [n for n in want if n in ours]
                compared += 1
                if theirs != [n for n in ours if n in want]:
                    wrong.append(f"{spec.name}: ours {ours}, upstream's {theirs}")
    assert compared > 150
    assert not wrong, "\n".join(wrong)


def test_convolution_takes_jax_lax_positional_order() -> None:
    params = list(inspect.signature(hlo.convolution).parameters)
    assert params[:4] == ["lhs", "rhs", "window_strides", "padding"]
    sig = inspect.signature(hlo.convolution).parameters
    assert sig["feature_group_count"].default == 1 and sig["batch_group_count"].default == 1
    collectives = inspect.signature(hlo.all_reduce).parameters
    assert list(collectives)[:3] == ["operands", "replica_groups", "channel_handle"]
