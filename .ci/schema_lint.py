#!/usr/bin/env python3
"""Schema lint (CI): fail when a definition in specs/ changed without a new VHLO fork, a version bump,
upgrade/downgrade patterns and a golden artifact.  See serialization/schema_lint.py.

    python .ci/schema_lint.py            # check the tables against tests/golden/schema.lock.json
    python .ci/schema_lint.py --update   # after a compatible change: rewrite the fingerprint
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "tests" / "golden" / "schema.lock.json"
MANIFEST = REPO / "tests" / "golden" / "MANIFEST.json"


def run(update: bool = False) -> int:
    from stablehlo_py.serialization.schema_lint import (
        LintContext,
        current_fingerprint,
        fork_patterns,
        lint,
        load_fingerprint,
        save_fingerprint,
    )

    current = current_fingerprint()
    if not LOCK.exists():
        if update:
            save_fingerprint(LOCK, current)
            print(f"wrote {LOCK.relative_to(REPO)}")
            return 0
        print(f"{LOCK.relative_to(REPO)} is missing: run python .ci/schema_lint.py --update")
        return 1
    goldens = set(json.loads(MANIFEST.read_text())["goldens"]) if MANIFEST.exists() else set()
    problems = lint(load_fingerprint(LOCK), current, LintContext(goldens, fork_patterns()))
    if problems:
        print("schema lint: incompatible changes to the VHLO tables or the artifact format:")
        for p in problems:
            print(f"  - {p}")
        return 1
    if load_fingerprint(LOCK) != current:
        if update:
            save_fingerprint(LOCK, current)
            print(f"schema lint: compatible changes; rewrote {LOCK.relative_to(REPO)}")
            return 0
        print(
            "schema lint: the changes are compatible, but the fingerprint is out of date: "
            "run python .ci/schema_lint.py --update and commit it"
        )
        return 1
    print("schema lint: ok")
    return 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--update", action="store_true")
    sys.exit(run(ap.parse_args().update))
