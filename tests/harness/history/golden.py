"""The golden ledgers: per app kind, a script of the ledger calls the app makes (one JSON list per
line: the writer's method, then its arguments) and the bytes the writer must leave
(``golden_ledgers/<kind>.csv``), lines stamped by a clock that starts at ``CLOCK_START`` and
ticks once per stamp. The Python writer (test_ledger.py) and the Java one (tests/harness/jvm)
play the same scripts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import count
from pathlib import Path
from typing import Any

from harness.history import ledger

FOLDER = Path(__file__).parent / "golden_ledgers"
KINDS = ("producer", "transformer")
CLOCK_START = 1_700_000_000_000_000


def script(kind: str) -> Path:
    return FOLDER / f"{kind}.jsonl"


def expected(kind: str) -> bytes:
    return (FOLDER / f"{kind}.csv").read_bytes()


def calls(kind: str) -> Iterator[list[Any]]:
    for line in script(kind).read_text().splitlines():
        yield json.loads(line)


def play(kind: str, path: Path) -> None:
    """Make the script's calls on a Python ``LedgerWriter`` writing ``path``."""
    ticks = count(CLOCK_START)
    real = ledger.now_us
    ledger.now_us = lambda: next(ticks)  # the writer stamps lines with the module's clock
    try:
        w = ledger.LedgerWriter(path)
        for method, *args in calls(kind):
            if method == "invokes":
                session, ids, topic, keys, txn, sources = args
                w.invokes(session, ids, topic, keys, txn=txn, sources=sources)
            else:
                getattr(w, method)(*args)
        w.close()
    finally:
        ledger.now_us = real
