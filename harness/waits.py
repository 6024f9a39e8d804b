"""The one wait helper: poll a probe until it says done, or fail saying what was seen."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class WaitTimeout(TimeoutError):
    pass


def wait_until(
    probe: Callable[[], T],
    done: Callable[[T], bool],
    timeout_s: float,
    expected: str,
    interval_s: float = 0.25,
    abort: Callable[[], str | None] | None = None,
) -> T:
    """Call ``probe`` until ``done(result)``; exceptions from the probe count as "not yet".

    On timeout the error names what was expected, the last thing that arrived (or the last
    exception) and how long it waited. ``abort`` may return a reason to give up at once
    (e.g. a container that exited will never become ready).
    """
    started = time.monotonic()
    last: object = "nothing yet"
    while True:
        try:
            result = probe()
            if done(result):
                return result
            last = result
        except Exception as exc:  # a broker that is still starting answers with errors
            last = f"{type(exc).__name__}: {exc}"
        waited = time.monotonic() - started
        reason = abort() if abort else None
        if reason:
            raise WaitTimeout(f"expected {expected}; gave up after {waited:.1f}s: {reason}; last seen: {last!s:.200}")
        if waited >= timeout_s:
            raise WaitTimeout(f"expected {expected}; last seen: {last!s:.300} (waited {waited:.1f}s)")
        time.sleep(interval_s)
