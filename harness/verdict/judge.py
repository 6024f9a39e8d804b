"""Judging a side: its check result against its expectation per finding (``REQUIRED``,
``FORBIDDEN``, ``ONE_OF``, ``ALLOWED``: ``harness.verdict.document``), the faults that did not
happen as written, what could not be told, and its checks (``harness.verdict.checks``), into the
side's verdict document; and what a checker that raised gives instead of a result (``untold``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.checker import catalogue
from harness.checker.result import CheckResult
from harness.verdict.checks import Check
from harness.verdict.document import CHECK_FAILED, FAULT_ERROR, FORBIDDEN, ONE_OF, REQUIRED, UNKNOWN, VariantVerdict
from harness.verdict.record import SideRecord

# How the record's ``unknown`` names the checker (a re-check tells what it said again).
CHECKER = "the checker"


def untold(exc: Exception) -> tuple[CheckResult, str]:
    """What a checker that raised gives (either engine): a result that counted nothing, and the
    reason for the record's ``unknown``: the run goes on to its verdict, whose outcome is then
    unknown, never a violation."""
    nothing = CheckResult.unknown([d.name for d in catalogue.CATALOGUE if d.source == catalogue.HISTORY])
    return nothing, raised(CHECKER, exc)


def raised(what: str, exc: Exception) -> str:
    """``what`` raised ``exc``, in one line, as the record's ``unknown`` says it."""
    said = str(exc).strip().splitlines()
    return f"{what} raised {type(exc).__name__}" + (f": {said[0]}" if said else "")


def judge(
    scenario: str,
    variant: str,
    result: CheckResult,
    expect: dict[str, str],
    record: SideRecord,
    checks: Sequence[Check] = (),
) -> VariantVerdict:
    """The side against its expectations per finding and its ``checks`` (harness.verdict.checks)."""
    verdict = VariantVerdict(scenario, variant, False, [], result, expect, catalogue.record_counts(record), record)
    for anomaly, rule in expect.items():
        n = verdict.count(anomaly)
        if rule == REQUIRED and n == 0:
            verdict.reasons.append(f"expected {anomaly} anomalies, found none")
        elif rule == FORBIDDEN and n > 0:
            verdict.reasons.append(f"found {n} {anomaly} anomalies, none allowed")
    # A fault that did not happen as written proves nothing either way; nor does a check that could not be made.
    verdict.reasons.extend(f"{FAULT_ERROR}{e}" for e in record.fault_errors)
    verdict.reasons.extend(f"{UNKNOWN}{e}" for e in record.unknown)
    any_of = [a for a, rule in expect.items() if rule == ONE_OF]
    if any_of and not any(verdict.count(a) for a in any_of):
        verdict.reasons.append(f"expected one of {', '.join(any_of)}, found none")
    verdict.checks = [check.run(verdict) for check in checks]
    verdict.reasons += [check_reason(c) for c in verdict.checks if not c["ok"]]
    verdict.passed = not verdict.reasons
    return verdict


def check_reason(check: dict[str, Any]) -> str:
    """The reason a failed check (as run) gives the side."""
    return f"{CHECK_FAILED}{check['name']}: {check['seen']} ({check['why']})"
