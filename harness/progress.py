"""Progress lines for long steps: what started, and how long it took."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager


def say(message: str) -> None:
    print(f"==> {message}", file=sys.stderr, flush=True)


@contextmanager
def step(message: str) -> Iterator[None]:
    say(f"{message} ...")
    started = time.monotonic()
    try:
        yield
    except BaseException:
        say(f"{message}: failed after {time.monotonic() - started:.1f}s")
        raise
    say(f"{message}: done in {time.monotonic() - started:.1f}s")
