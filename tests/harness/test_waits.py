"""The one way of waiting: wait_until raises naming what it expected and last saw, poll_until
returns how the same loop ended, and a Deadline says the time left of one timeout."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from harness.waits import Deadline, WaitTimeout, poll_until, wait_until


def _answers(*values: object) -> Callable[[], Any]:
    """A probe answering ``values`` in turn, then the last one for good (raising it if it is an exception)."""
    it: Iterator[object] = iter(values)
    last: list[object] = [None]

    def probe() -> object:
        last[0] = next(it, last[0])
        if isinstance(last[0], Exception):
            raise last[0]
        return last[0]

    return probe


# --- Deadline ------------------------------------------------------------------


def test_a_deadline_counts_down_to_zero_and_not_below() -> None:
    deadline = Deadline(0.05)
    assert not deadline.expired() and 0 < deadline.remaining() <= 0.05
    time.sleep(0.06)
    assert deadline.expired() and deadline.remaining() == 0.0 and deadline.elapsed() >= 0.05


def test_an_endless_deadline_never_expires() -> None:
    deadline = Deadline(math.inf)
    assert not deadline.expired() and deadline.remaining() == math.inf


# --- poll_until ----------------------------------------------------------------


def test_poll_until_returns_the_answer_that_was_done() -> None:
    polled = poll_until(_answers(1, 2, 3), lambda n: n == 3, 5, interval_s=0.001)
    assert (polled.done, polled.last, polled.aborted) == (True, 3, None)


def test_poll_until_gives_up_with_what_it_saw_last_instead_of_raising() -> None:
    polled = poll_until(_answers(1, 2), lambda n: n == 3, 0.05, interval_s=0.01)
    assert (polled.done, polled.last, polled.aborted) == (False, 2, None)
    assert polled.waited_s >= 0.05


def test_poll_until_asks_once_even_with_no_time_at_all() -> None:
    assert poll_until(_answers(7), lambda n: n == 7, 0).done
    assert poll_until(_answers(6), lambda n: n == 7, 0).last == 6


def test_poll_until_stops_at_once_when_abort_gives_a_reason() -> None:
    polled = poll_until(_answers(1), lambda n: n == 3, 60, interval_s=0.001, abort=lambda: "it exited")
    assert (polled.done, polled.last, polled.aborted) == (False, 1, "it exited")
    assert polled.waited_s < 5


def test_poll_until_leaves_the_probes_errors_to_its_caller() -> None:
    with pytest.raises(ConnectionError, match="refused"):
        poll_until(_answers(ConnectionError("refused")), bool, 60)


# --- wait_until ----------------------------------------------------------------


def test_wait_until_returns_the_answer_that_was_done() -> None:
    assert wait_until(_answers(0, 0, 4), bool, 5, "a number", interval_s=0.001) == 4


def test_wait_until_names_what_it_expected_and_last_saw() -> None:
    with pytest.raises(WaitTimeout, match=r"expected three brokers; last seen: 2 \(waited [\d.]+s\)"):
        wait_until(_answers(1, 2), lambda n: n == 3, 0.05, "three brokers", interval_s=0.01)


def test_wait_until_takes_a_failing_probe_for_not_yet_and_names_its_last_error() -> None:
    probe = _answers(ConnectionError("refused"), 5)
    assert wait_until(probe, lambda n: n == 5, 5, "an answer", interval_s=0.001) == 5
    with pytest.raises(WaitTimeout, match="last seen: ConnectionError: refused"):
        wait_until(_answers(ConnectionError("refused")), bool, 0.05, "an answer", interval_s=0.01)


def test_wait_until_takes_a_failing_done_for_not_yet_too() -> None:
    answers = _answers({}, {"leader": 1})
    assert wait_until(answers, lambda m: m["leader"] > 0, 5, "a leader", interval_s=0.001) == {"leader": 1}


def test_wait_until_gives_up_at_once_saying_why_when_abort_does() -> None:
    with pytest.raises(WaitTimeout, match=r"expected a broker; gave up after .*s: its container exited; last seen: 0"):
        wait_until(_answers(0), bool, 60, "a broker", interval_s=0.001, abort=lambda: "its container exited")


def test_wait_until_is_a_timeout_error() -> None:
    # Callers that catch TimeoutError (not only WaitTimeout) still see it.
    assert issubclass(WaitTimeout, TimeoutError)
