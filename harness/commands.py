"""External tools the harness runs (mvn, debootstrap, go): one call, one line on failure."""

from __future__ import annotations

import shutil
import subprocess

from harness import stopping
from harness.errors import HarnessError


def run(cmd: list[str], what: str, hint: str, **kwargs: object) -> None:
    if shutil.which(cmd[0]) is None:
        raise HarnessError(f"{cmd[0]} not found, needed to {what}: {hint}")
    with stopping.start(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kwargs) as proc:
        out, _ = proc.communicate()
    if proc.returncode != 0:
        tail = out.decode(errors="replace").strip().splitlines()[-15:]
        raise HarnessError(f"failed to {what} (`{' '.join(cmd[:3])} ...` exit {proc.returncode})", "\n".join(tail))
