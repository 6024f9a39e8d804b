"""External tools the harness runs (mvn, debootstrap, go): one call, one line on failure."""

from __future__ import annotations

import shutil
import subprocess

from harness.errors import HarnessError


def run(cmd: list[str], what: str, hint: str, **kwargs: object) -> None:
    if shutil.which(cmd[0]) is None:
        raise HarnessError(f"{cmd[0]} not found, needed to {what}: {hint}")
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
        raise HarnessError(f"failed to {what} (`{' '.join(cmd[:3])} ...` exit {proc.returncode})", "\n".join(tail))
