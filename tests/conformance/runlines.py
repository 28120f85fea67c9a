"""Execute upstream's `// RUN:` lines with our tools, like lit does (one shared helper)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    p = BIN / name
    return str(p) if p.exists() else (shutil.which(name) or name)


def run_lines(path: Path) -> list[str]:
    lines = []
    cont = ""
    for line in path.read_text().splitlines():
        s = line.strip()
        if not s.startswith("// RUN:"):
            continue
        body = s[len("// RUN:") :].strip()
        if body.endswith("\\"):
            cont += body[:-1] + " "
            continue
        full = cont + body
        cont = ""
        if full.startswith("%if"):
            continue  # lit conditionals (`%if asserts`) need a debug build of upstream: not applicable
        lines.append(full)
    return lines


def substitute(cmd: str, path: Path, tmp: Path) -> str:
    out = cmd.replace("%s", shlex.quote(str(path))).replace("%t", shlex.quote(str(tmp)))
    for t in ("stablehlo-opt", "stablehlo-translate"):
        out = out.replace(t, shlex.quote(tool(t)))
    out = out.replace("FileCheck", shlex.quote(tool("filecheck")))
    return out


def execute(
    cmd: str, path: Path, tmp: Path, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    full = substitute(cmd, path, tmp)
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", NOT_AS_LIT + full],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# lit's `not` negates the exit status of the ONE command it prefixes (`not A | FileCheck` fails when A
# succeeds or when FileCheck fails), and a command killed by a signal is a failure, not a success (that
# needs `not --crash`, which upstream's files do not use).  Defined as a shell function so that `not`
# works anywhere in a pipeline, exactly as written in the RUN line.
NOT_AS_LIT = (
    "not() { "
    'if [ "$1" = "--crash" ]; then shift; "$@"; [ $? -ge 128 ]; return; fi; '
    '"$@"; local rc=$?; [ $rc -ne 0 ] && [ $rc -lt 128 ]; }\n'
)
