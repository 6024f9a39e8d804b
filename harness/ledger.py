"""The ledger: an append-only JSON-lines history of one client process.

Every operation is written when invoked and again when it completes, as in Jepsen:

- ``{"type": "invoke", "id", "key", "t"}``
- ``{"type": "ok", "id", "partition", "offset", "t"}`` (acknowledged by the broker)
- ``{"type": "fail", "id", "error", "t"}`` (definitely not written)
- ``{"type": "info", "id", "error", "t"}`` (outcome unknown)

An invoke with no completion (the process was killed, or gave up) is also "info". Each
line is one ``write()`` of a whole line, so a SIGKILL loses at most the line being
written; the reader skips and counts a torn last line instead of failing.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any


class LedgerWriter:
    def __init__(self, path: Path, process: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Line-buffered text: each record reaches the kernel when its line is complete, and
        # what the kernel has survives the process being killed.
        self._file: IO[str] = path.open("a", buffering=1, encoding="utf-8")
        self.process = process

    def write(self, kind: str, op_id: str, **fields: Any) -> None:
        self._file.write(json.dumps({"type": kind, "id": op_id, "t": round(time.time(), 6), **fields}) + "\n")

    def close(self) -> None:
        self._file.close()


@dataclass
class History:
    """What the ledgers say happened to each record id."""

    invoked: dict[str, dict[str, Any]] = field(default_factory=dict)
    acked: dict[str, tuple[int, int]] = field(default_factory=dict)  # id -> (partition, offset)
    failed: dict[str, str] = field(default_factory=dict)
    torn_lines: list[str] = field(default_factory=list)

    @property
    def indeterminate(self) -> set[str]:
        """Invoked, but neither acknowledged nor definitely failed."""
        return set(self.invoked) - set(self.acked) - set(self.failed)


def read(paths: list[Path]) -> History:
    history = History()
    for path in paths:
        with path.open(encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                try:
                    op = json.loads(line)
                    kind, op_id = op["type"], op["id"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    history.torn_lines.append(f"{path.name}:{lineno}")
                    continue
                if kind == "invoke":
                    history.invoked[op_id] = op
                elif kind == "ok":
                    history.acked[op_id] = (op["partition"], op["offset"])
                    history.failed.pop(op_id, None)
                elif kind == "fail" and op_id not in history.acked:
                    history.failed[op_id] = op.get("error", "")
    return history
