"""Waiting, one way: poll a probe until it says done, or give up at a deadline saying what was seen.

``wait_until`` raises when the time is up, naming what was expected and what was last seen: for a
wait whose failure ends the caller's work. ``poll_until`` is the same loop returning how it ended,
for a caller that gives up on purpose and says so itself. ``Deadline`` is one timeout's time left,
for a loop that waits on something else with a timeout (``proc.wait``, ``thread.join``, a
consumer's poll, an event) and so cannot hand its waiting to a probe.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class WaitTimeout(TimeoutError):
    pass


class Deadline:
    """``timeout_s`` from its making (``math.inf``: never expires)."""

    __slots__ = ("_started", "timeout_s")

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._started = time.monotonic()  # monotonic: a clock set back or forward moves no deadline

    def elapsed(self) -> float:
        return time.monotonic() - self._started

    def remaining(self) -> float:
        # Never negative: what it is handed to (proc.wait, join, a poll) wants a timeout >= 0.
        return max(0.0, self.timeout_s - self.elapsed())

    def expired(self) -> bool:
        return self.elapsed() >= self.timeout_s


@dataclass(frozen=True)
class Polled(Generic[T]):
    """How ``poll_until`` ended: done, or not (the time ran out, or ``aborted`` says why), with
    what the probe answered last, so the caller can say what it gave up on."""

    done: bool
    last: T
    waited_s: float
    aborted: str | None = None


def poll_until(
    probe: Callable[[], T],
    done: Callable[[T], bool],
    timeout_s: float,
    interval_s: float = 0.25,
    abort: Callable[[], str | None] | None = None,
) -> Polled[T]:
    """Call ``probe`` until ``done(result)``, ``abort()`` gives a reason, or ``timeout_s`` passed.

    The probe runs at least once, and is asked once more after the last sleep rather than the
    time running out unseen. Its exceptions reach the caller: a probe whose errors mean "not
    yet" catches them itself (as ``wait_until`` does).
    """
    deadline = Deadline(timeout_s)
    while True:
        last = probe()
        if done(last):
            return Polled(True, last, deadline.elapsed())
        reason = abort() if abort else None
        if reason or deadline.expired():
            return Polled(False, last, deadline.elapsed(), reason)
        time.sleep(interval_s)


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

    def attempt() -> tuple[bool, object]:
        try:
            result = probe()
            return done(result), result
        except Exception as exc:  # a broker that is still starting answers with errors
            return False, f"{type(exc).__name__}: {exc}"

    polled = poll_until(attempt, lambda tried: tried[0], timeout_s, interval_s, abort)
    last, waited = polled.last[1], polled.waited_s
    if polled.done:
        return cast(T, last)
    if polled.aborted:
        raise WaitTimeout(
            f"expected {expected}; gave up after {waited:.1f}s: {polled.aborted}; last seen: {last!s:.200}"
        )
    raise WaitTimeout(f"expected {expected}; last seen: {last!s:.300} (waited {waited:.1f}s)")
