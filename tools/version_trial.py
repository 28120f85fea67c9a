#!/usr/bin/env python3
"""The issue-24 trial of docs/adding-a-version.md: a test-only attribute ``trial_attr`` (i64,
default 0) added to one op in a fake release 1.23.0, in a copy of the package.  Afterwards it checks
that the attribute works end to end, and it reports which files the recipe touched.

    python tools/version_trial.py dot_general        # or scatter, while
    python tools/version_trial.py while --keep       # keep the edited copy (its path is printed)

Steps:
1. Copy the package folders (pyproject's package-dir) and pyproject.toml to a temporary directory.
2. Edit the copy exactly as the recipe says:
   - ``specs/releases.toml``: the release;
   - ``specs/ops.toml``: the old fork ends, the new fork row has the attribute and the next code;
   - ``vhlo/forks/<op>.py``: the upgrade/downgrade pair;
   - the op's class: the property.
3. List the files that differ from the original.
4. In a fresh interpreter that imports ``stablehlo_py`` from the copy, run the op through:
   - parse, verify, print and round trip;
   - the interpreter (the attribute changes nothing);
   - msgpack and MLIR bytecode artifacts at 1.23.0 and back;
   - refusal of a non-default value at 1.22.0;
   - a default value written at 1.22.0 and upgraded when read;
   - ``stablehlo-legalize-to-vhlo``.

The exit status is 0 only if every check passed and at most four files changed.  The anchors this
script edits at are lines of today's sources; a refactoring that moves them must update the table
below, so the trial keeps measuring the recipe.
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_compare import _BOOTSTRAP, package_dirs  # noqa: E402  (runs a script against a tree)

REPO = Path(__file__).resolve().parents[1]
NEW = "1.23.0"
PREVIOUS = "1.22.0"

# op: (its newest fork's version, the StableHLO op's file, the line of its class after which the
# property goes, the fork module's name)
CASES: dict[str, tuple[int, str, str, str]] = {
    "dot_general": (
        2,
        "stablehlo_py/ir/ops/linalg.py",
        "    algorithm = prop(DOT_ALGORITHM, optional=True)\n",
        "dot_general",
    ),
    "scatter": (
        2,
        "stablehlo_py/ir/ops/data_movement.py",
        "    unique_indices = prop(BOOL_ATTR, default=FALSE)\n",
        "scatter",
    ),
    "while": (1, "stablehlo_py/ir/ops/control_flow.py", '    name = "stablehlo.while"\n', "while_loop"),
}


class TrialError(Exception):
    pass


def copy_package(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in sorted(set(package_dirs(REPO).values())):
        shutil.copytree(REPO / folder, dest / folder, ignore=ignore)
    shutil.copy2(REPO / "pyproject.toml", dest / "pyproject.toml")


def _edit(root: Path, rel: str, change) -> None:  # type: ignore[no-untyped-def]
    path = root / rel
    before = path.read_text() if path.exists() else ""
    after = change(before)
    if after == before:
        raise TrialError(f"the recipe's edit of {rel} found nothing to change (its anchor moved?)")
    path.write_text(after)


def _release(text: str) -> str:
    return text + (
        f'\n[[release]]\nversion = "{NEW}"\ntagged = false\nmlir_bytecode_version = 6\n'
        'changes = ["trial_attr (a test-only attribute with a default)"]\n'
    )


def _fork_rows(op: str, old: int) -> object:
    new = old + 1

    def change(text: str) -> str:
        start = text.find(f'name = "{op}_v{old}"\n')
        if start < 0:
            raise TrialError(f"specs/ops.toml has no row {op}_v{old}")
        end = text.index("[[op]]", start)
        row = text[start:end]
        code = max(int(c) for c in re.findall(r"^code = (\d+)$", text, re.M)) + 1
        ended = row.replace('max = "current"', f'max = "{PREVIOUS}"')
        ended = re.sub(r"^stablehlo = \[.*\]$", "stablehlo = []", ended, flags=re.M)
        fork = row.replace(f'name = "{op}_v{old}"', f'name = "{op}_v{new}"')
        fork = fork.replace(f"version = {old}\n", f"version = {new}\n")
        fork = re.sub(r"^code = \d+$", f"code = {code}", fork, flags=re.M)
        fork = fork.replace(f'"vhlo.{op}_v{old}"', f'"vhlo.{op}_v{new}"')
        fork = re.sub(r'^td_def = "(\w+)V\d+"$', rf'td_def = "\g<1>V{new}"', fork, flags=re.M)
        fork = re.sub(r'^min = "[^"]+"$', f'min = "{NEW}"', fork, flags=re.M)
        fork = re.sub(r"^(note|constraint) = .*\n", "", fork, flags=re.M)
        attr = '  { name = "trial_attr", default = "0 : i64", vhlo_default = "#vhlo.integer_v1<0 : i64>" },\n'
        if "\nattributes = []\n" in fork:
            fork = fork.replace("\nattributes = []\n", "\nattributes = [\n" + attr + "]\n")
        else:
            fork = fork.replace("]\nresults = ", attr + "]\nresults = ", 1)
        return text[:start] + ended + "[[op]]\n" + fork + text[end:]

    return change


def _fork_pair(op: str, old: int) -> object:
    new = old + 1
    pair = (
        f"\n\nZERO = va.integer(0)\n\n\n"
        f"def upgrade_v{old}(op: ForkOp) -> ForkOp:\n"
        f'    """v{old} -> v{new}: trial_attr is 0."""\n'
        f'    return op.to({new}, set_props={{"trial_attr": ZERO}})\n\n\n'
        f"def downgrade_v{new}(op: ForkOp) -> ForkOp:\n"
        f'    """v{new} -> v{old}: only with trial_attr 0."""\n'
        f'    require(op, "trial_attr", ZERO, "a non-zero trial_attr needs {NEW}")\n'
        f'    return op.to({old}, drop=("trial_attr",))\n'
    )
    entry = f'Fork("{op}", {old}, upgrade_v{old}, downgrade_v{new})'

    def change(text: str) -> str:
        if not text:
            return (
                f'"""{op} v{old} <-> v{new} ({NEW}): trial_attr."""\n\n'
                "from __future__ import annotations\n\n"
                "from stablehlo_py.vhlo import attrs as va\n"
                "from stablehlo_py.vhlo.forks.base import Fork, ForkOp, require\n"
                f"{pair}\n\nFORKS = ({entry},)\n"
            )
        imports = "from stablehlo_py.vhlo import attrs as va\nfrom stablehlo_py.vhlo.forks.base import Fork, ForkOp, require\n"
        at = text.index("\nFORKS = (")
        return (
            text[:at].rstrip("\n").replace("from __future__ import annotations\n", "from __future__ import annotations\n\n" + imports, 1)
            + "\n"
            + pair
            + text[at:].replace("\nFORKS = (", f"\nFORKS = ({entry}, ", 1)
        )

    return change


def _property(anchor: str) -> object:
    line = "    trial_attr = prop(I64_ATTR, default=IntegerAttr(0, 64))\n"

    def change(text: str) -> str:
        if anchor not in text:
            return text
        future = "from __future__ import annotations\n"
        imports = (
            "\nfrom xdsl.dialects.builtin import IntegerAttr\n\n"
            "from stablehlo_py.ir.ops.base import I64_ATTR, prop\n"
        )
        return text.replace(future, future + imports, 1).replace(anchor, anchor + line, 1)

    return change


STEPS = ("release", "rows", "fork pair", "property")


def apply(root: Path, op: str, omit: str | None = None) -> None:
    """The recipe's edits; ``omit`` leaves one step out (the tests show the check then fails)."""
    old, op_file, anchor, fork_module = CASES[op]
    edits = {
        "release": ("specs/releases.toml", _release),
        "rows": ("specs/ops.toml", _fork_rows(op, old)),
        "fork pair": (f"vhlo/forks/{fork_module}.py", _fork_pair(op, old)),
        "property": (op_file, _property(anchor)),
    }
    for step in STEPS:
        if step != omit:
            _edit(root, *edits[step])


def changed_files(root: Path) -> list[str]:
    out = []
    for folder in sorted(set(package_dirs(REPO).values())):
        for path in sorted((root / folder).rglob("*")):
            if path.is_dir() or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root)
            original = REPO / rel
            if not original.exists() or not filecmp.cmp(original, path, shallow=False):
                out.append(str(rel))
    return out


# The end-to-end check, run with stablehlo_py imported from the edited copy.
CHECK = r'''
import sys
import numpy as np
from stablehlo_py.ir import parse, print_ir
from stablehlo_py.ir.verify import verify
from stablehlo_py import serialization as ser
from stablehlo_py.passes.stablehlo_legalize_to_vhlo import legalize_to_vhlo
from stablehlo_py.interpreter import run

PROGRAMS = {
"dot_general": """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] ATTRS : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}""",
"scatter": """func.func @main(%in: tensor<3xf32>, %idx: tensor<1x1xi64>, %upd: tensor<1xf32>) -> tensor<3xf32> {
  %0 = "stablehlo.scatter"(%in, %idx, %upd) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>PROPS}> ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<3xf32>, tensor<1x1xi64>, tensor<1xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}""",
"while": """func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%i = %n) : tensor<i64> KEYWORD_ATTRS
  cond {
    %c = stablehlo.constant dense<5> : tensor<i64>
    %1 = stablehlo.compare  LT, %i, %c : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %1 : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %1 = stablehlo.add %i, %c : tensor<i64>
    stablehlo.return %1 : tensor<i64>
  }
  return %0 : tensor<i64>
}""",
}
ARGS = {
"dot_general": [np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((3, 4), np.float32)],
"scatter": [np.zeros(3, np.float32), np.array([[1]], np.int64), np.array([2.0], np.float32)],
"while": [np.array(0, np.int64)],
}
op = sys.argv[1]


def program(value):
    attr = "" if value is None else f"trial_attr = {value} : i64"
    return (PROGRAMS[op].replace("KEYWORD_ATTRS", "attributes {" + attr + "}" if attr else "")
            .replace("ATTRS", "{" + attr + "}" if attr else "")
            .replace("PROPS", ", " + attr if attr else ""))


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""))
    if not ok:
        sys.exit(1)


m = parse(program(5))
verify(m)
text = print_ir(m)
check("parse, verify and print keep trial_attr = 5", "trial_attr = 5 : i64" in text, text)
check("print/parse round trip", print_ir(parse(text)) == text, text)
plain = run(parse(program(None)), *ARGS[op])
got = run(m, *ARGS[op])
check("interpret", all(np.array_equal(a, b) for a, b in zip(plain, got)))
for fmt in ("msgpack", "mlir"):
    back = ser.deserialize_portable_artifact(ser.serialize_portable_artifact(m, "NEW", format=fmt))
    check(f"{fmt} artifact at NEW keeps trial_attr = 5", "trial_attr = 5 : i64" in print_ir(back), print_ir(back))
    try:
        ser.serialize_portable_artifact(m, "PREVIOUS", format=fmt)
        refused = ""
    except Exception as e:
        refused = str(e)
    check(f"{fmt} artifact at PREVIOUS refuses trial_attr = 5", "trial_attr needs NEW" in refused, refused)
    old = ser.serialize_portable_artifact(parse(program(0)), "PREVIOUS", format=fmt)
    up = print_ir(ser.deserialize_portable_artifact(old))
    check(f"{fmt} artifact at PREVIOUS reads back with the default", "trial_attr" not in up and f"stablehlo.{op}" in up, up)
vhlo = print_ir(legalize_to_vhlo(parse(text)))
check("stablehlo-legalize-to-vhlo writes the new fork with the attribute",
      "trial_attr = #vhlo.integer_v1<5 : i64>" in vhlo and f"vhlo.{op}_v" in vhlo, vhlo)
'''.replace("PREVIOUS", PREVIOUS).replace("NEW", NEW)



def trial(
    op: str, keep: bool = False, omit: str | None = None
) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    root = Path(tempfile.mkdtemp(prefix=f"version-trial-{op}-"))
    try:
        copy_package(root)
        apply(root, op, omit)
        files = changed_files(root)
        check = root / "version_trial_check.py"
        check.write_text(CHECK)
        proc = subprocess.run(
            [sys.executable, "-c", _BOOTSTRAP, str(root), repr(package_dirs(root)), str(check), op],
            capture_output=True,
            text=True,
            timeout=600,
        )
        return files, proc
    finally:
        if keep:
            print(f"edited copy kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("op", choices=sorted(CASES))
    ap.add_argument("--keep", action="store_true", help="keep the edited copy")
    args = ap.parse_args(argv)
    try:
        files, proc = trial(args.op, args.keep)
    except TrialError as e:
        print(f"version_trial: {e}", file=sys.stderr)
        return 2
    print(f"files the recipe touched ({len(files)}):")
    for f in files:
        print(f"  {f}")
    print(proc.stdout, end="")
    if proc.returncode != 0:
        print(proc.stderr[-3000:], file=sys.stderr)
        return 1
    return 0 if len(files) <= 4 else 1


if __name__ == "__main__":
    sys.exit(main())
