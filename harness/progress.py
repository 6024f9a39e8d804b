"""Progress lines for long steps: what started, and how long it took.

Steps that run side by side (harness.build_steps) print only how each ended: a line saying
that one started would be separated from its end by other steps' lines.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# Set in a thread that runs a step beside others.
_beside_others: ContextVar[bool] = ContextVar("beside_others", default=False)
_writing = threading.Lock()  # lines from threads side by side never run into each other


def say(message: str) -> None:
    with _writing:
        sys.stderr.write(f"==> {message}\n")
        sys.stderr.flush()


@contextmanager
def side_by_side() -> Iterator[None]:
    """Within the block (in this thread), steps print only how they ended."""
    token = _beside_others.set(True)
    try:
        yield
    finally:
        _beside_others.reset(token)


@contextmanager
def step(message: str) -> Iterator[None]:
    if not _beside_others.get():
        say(f"{message} ...")
    started = time.monotonic()
    try:
        yield
    except BaseException:
        say(f"{message}: failed after {time.monotonic() - started:.1f}s")
        raise
    say(f"{message}: done in {time.monotonic() - started:.1f}s")
