"""Run the export back-compat test data of an old jax commit through our reader and interpreter (a
development check for issue 25's old forms; not a test: CI has no jax mirror).

    python tools/check_history_artifacts.py MIRROR COMMIT [PATTERN]

MIRROR is a (bare) git repository of jax-ml/jax, COMMIT a revision in it, PATTERN a glob of the data
files (default `cpu_*.py`).  Each file of `jax/_src/internal_test_util/export_back_compat_test_data/`
(or, before 2023-12, `jax/experimental/jax2tf/tests/back_compat_testdata/`) matching PATTERN at
COMMIT is read with `git show` into a temporary directory (never into this
repository), loaded with `tests/oracle/jax_back_compat.py` (plain Python dicts: inputs, expected
outputs, the serialized artifact), and every data dict is run and checked exactly as
`tests/oracle/test_jax_back_compat.py` checks the installed wheel's (`_outcome`: the same
tolerances and identity checks).  Prints one line per dict (PASS/FAIL, its id, date, custom-call
targets, and the error or mismatch) and a summary; exit status 1 when a dict fails.

Needs jax installed (the harness module reads the installed wheel's data when imported), e.g.
`/work/venv312/bin/python tools/check_history_artifacts.py /work/.mirror/jax-ml+jax/repo d42d2e88b4`.
"""

from __future__ import annotations

import fnmatch
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

RENAMED = {
    "cpu_lapack_syev.py": "cpu_eigh_lapack_syev.py",
    "cpu_lapack_geqrf.py": "cpu_qr_lapack_geqrf.py",
    "cuda_cusolver_syev.py": "cuda_eigh_cusolver_syev.py",
    "cuda_cusolver_geqrf.py": "cuda_qr_cusolver_geqrf.py",
}
"""Data files of the jax2tf directory -> their later names (the harness keys its checks by name)."""
DATA_DIRS = (
    "jax/_src/internal_test_util/export_back_compat_test_data",
    "jax/experimental/jax2tf/tests/back_compat_testdata",  # (before 2023-12-18, eed61f68aa)
)


def _git(mirror: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", mirror, *args], check=True, capture_output=True, text=True
    ).stdout


def main(mirror: str, commit: str, pattern: str = "cpu_*.py") -> int:
    sys.path.insert(0, str(REPO))
    from tests.oracle.jax_back_compat import entries_of, load_file
    from tests.oracle.test_jax_back_compat import _outcome

    names = [
        p
        for data in DATA_DIRS
        for p in _git(mirror, "ls-tree", "--name-only", commit, f"{data}/").split()
        if fnmatch.fnmatch(p.rsplit("/", 1)[1], pattern)
    ]
    passed = failed = 0
    old_form = {"pass": 0, "fail": 0}
    with tempfile.TemporaryDirectory() as tmp:
        for path in names:
            name = path.rsplit("/", 1)[1]
            (Path(tmp) / name).write_text(_git(mirror, "show", f"{commit}:{path}"))
            for entry in entries_of(load_file(Path(tmp), name), RENAMED.get(name, name)):
                targets = sorted(entry.data["custom_call_targets"])
                outcome = _outcome(entry)
                ok = outcome is None
                passed += ok
                failed += not ok
                if any(not t.endswith("_ffi") for t in targets):
                    old_form["pass" if ok else "fail"] += 1
                date = entry.data["serialized_date"]
                line = f"{'PASS' if ok else 'FAIL'} {entry.id} [{date}] {targets}"
                print(line if ok else f"{line}\n    {outcome[:600]}")
    print(
        f"{commit}: {passed} of {passed + failed} data dicts pass; those with a pre-FFI target: "
        f"{old_form['pass']} of {old_form['pass'] + old_form['fail']}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
