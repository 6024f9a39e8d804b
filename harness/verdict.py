"""Verdicts: a check result judged against a scenario's expectation, and pairs of them.

Per anomaly a variant expects one of: REQUIRED (count > 0), FORBIDDEN (count == 0) or
ALLOWED (reported, not judged). A pair is:

- **passed**: the control showed every required anomaly and the guarantee is clean;
- **failed**: the guarantee showed a forbidden anomaly;
- **inconclusive**: the guarantee is clean but the control did not show its anomaly, so
  the clean result proved nothing about the fault.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.checker import CheckResult

REQUIRED = "required"
FORBIDDEN = "forbidden"
ALLOWED = "allowed"


@dataclass
class VariantVerdict:
    scenario: str
    variant: str
    passed: bool
    reasons: list[str]
    result: CheckResult
    expect: dict[str, str]
    context: dict[str, Any] = field(default_factory=dict)  # config, faults, topic, run dir

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "variant": self.variant,
            "passed": self.passed,
            "reasons": self.reasons,
            "expect": self.expect,
            **self.context,
            "result": self.result.to_json(),
        }


def judge(
    scenario: str, variant: str, result: CheckResult, expect: dict[str, str], context: dict[str, Any]
) -> VariantVerdict:
    reasons = []
    for anomaly, rule in expect.items():
        n = result.count(anomaly)
        if rule == REQUIRED and n == 0:
            reasons.append(f"expected {anomaly} anomalies, found none")
        elif rule == FORBIDDEN and n > 0:
            reasons.append(f"found {n} {anomaly} anomalies, none allowed")
    return VariantVerdict(scenario, variant, not reasons, reasons, result, expect, context)


@dataclass
class PairVerdict:
    scenario: str
    title: str
    control: VariantVerdict
    guarantee: VariantVerdict

    @property
    def outcome(self) -> str:
        if not self.guarantee.passed:
            return "failed"
        return "passed" if self.control.passed else "inconclusive"

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "title": self.title,
            "verdict": self.outcome,
            "control": self.control.to_json(),
            "guarantee": self.guarantee.to_json(),
        }

    def summary(self) -> str:
        lines = [f"{self.scenario} {self.title}: {self.outcome.upper()}"]
        for v in (self.control, self.guarantee):
            counts = "  ".join(
                f"{a}={v.result.count(a)}"
                + (f" [{v.expect[a]} {'ok' if _met(v, a) else 'NOT MET'}]" if a in v.expect else "")
                for a in v.result.anomalies
            )
            stats = v.result.stats
            lines.append(
                f"  {v.variant:<9} {counts}   (acked {stats['acked']}, indeterminate "
                f"{stats['indeterminate']}, recovered {stats['recovered']}, read {stats['read']})"
            )
            for anomaly, finding in v.result.anomalies.items():
                if finding.examples:
                    lines.append(f"            e.g. {anomaly}: {finding.examples[0]}")
        return "\n".join(lines)


def _met(v: VariantVerdict, anomaly: str) -> bool:
    n, rule = v.result.count(anomaly), v.expect[anomaly]
    return (rule == REQUIRED and n > 0) or (rule == FORBIDDEN and n == 0) or rule == ALLOWED
