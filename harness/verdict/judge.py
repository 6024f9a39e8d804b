"""Judging a side: its check result against its expectation per finding (``REQUIRED``,
``FORBIDDEN``, ``ONE_OF``, ``ALLOWED``: ``harness.verdict.document``), the faults that did not
happen as written, and its checks (``harness.verdict.checks``), into the side's verdict document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.checker import catalogue
from harness.checker.result import CheckResult
from harness.verdict.checks import Check
from harness.verdict.document import CHECK_FAILED, FAULT_ERROR, FORBIDDEN, ONE_OF, REQUIRED, UNKNOWN, VariantVerdict


def judge(
    scenario: str,
    variant: str,
    result: CheckResult,
    expect: dict[str, str],
    context: dict[str, Any],
    checks: Sequence[Check] = (),
) -> VariantVerdict:
    """The side against its expectations per finding and its ``checks`` (harness.verdict.checks)."""
    verdict = VariantVerdict(scenario, variant, False, [], result, expect, catalogue.context_counts(context), context)
    for anomaly, rule in expect.items():
        n = verdict.count(anomaly)
        if rule == REQUIRED and n == 0:
            verdict.reasons.append(f"expected {anomaly} anomalies, found none")
        elif rule == FORBIDDEN and n > 0:
            verdict.reasons.append(f"found {n} {anomaly} anomalies, none allowed")
    # A fault that did not happen as written proves nothing either way; nor does a check that could not be made.
    verdict.reasons.extend(f"{FAULT_ERROR}{e}" for e in context.get("fault_errors", []))
    verdict.reasons.extend(f"{UNKNOWN}{e}" for e in context.get("unknown", []))
    any_of = [a for a, rule in expect.items() if rule == ONE_OF]
    if any_of and not any(verdict.count(a) for a in any_of):
        verdict.reasons.append(f"expected one of {', '.join(any_of)}, found none")
    verdict.checks = [check.run(verdict) for check in checks]
    verdict.reasons += [f"{CHECK_FAILED}{c['name']}: {c['seen']} ({c['why']})" for c in verdict.checks if not c["ok"]]
    verdict.passed = not verdict.reasons
    return verdict
