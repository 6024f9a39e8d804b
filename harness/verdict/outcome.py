"""``Outcome``: what a pair, or a side judged alone, came to, with the exit status a command
gives for it, and how outcomes combine (a command over several pairs, a pair over its sides).

The order, as Jepsen combines results (false beats unknown beats true): a violation always wins;
then **unknown**, what could not be told (a checker that raised, a check that cannot tell: the
run may hold a violation no one saw); then **inconclusive**, a run that proved nothing (the
control did not show its anomaly, a fault did not happen as written, a check that the fault did
its part failed); then **reported** (a research pair: no claim) and **passed**.

The JSON documents (``verdict.json``, explore's ``run.json``) hold the value, e.g. ``"unknown"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Outcome(StrEnum):
    PASSED = "passed"
    REPORTED = "reported"
    INCONCLUSIVE = "inconclusive"
    UNKNOWN = "unknown"
    FAILED = "failed"

    @property
    def exit_code(self) -> int:
        """What ``kafka-harness run``, ``check`` and ``check-app`` exit with: 0 passed or reported,
        1 failed (a guarantee violated), 3 inconclusive or unknown."""
        return _EXIT[self]

    @staticmethod
    def worst(outcomes: Iterable[Outcome]) -> Outcome:
        """The outcomes combined: the one that says most against the run (``PASSED`` for none)."""
        return max(outcomes, key=_ORDER.index, default=Outcome.PASSED)


# Declared order is the combining order: each beats the ones before it.
_ORDER = list(Outcome)
_EXIT = {
    Outcome.PASSED: 0,
    Outcome.REPORTED: 0,
    Outcome.INCONCLUSIVE: 3,
    Outcome.UNKNOWN: 3,
    Outcome.FAILED: 1,
}
