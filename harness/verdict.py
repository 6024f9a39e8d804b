"""Verdicts: a check result judged against a scenario's expectation, and pairs of them.

Per anomaly a variant expects one of: REQUIRED (count > 0), FORBIDDEN (count == 0) or
ALLOWED (reported, not judged). A pair is:

- **passed**: the control showed every required anomaly and the guarantee is clean;
- **failed**: the guarantee showed a forbidden anomaly;
- **inconclusive**: the guarantee is clean but the control did not show its anomaly, so
  the clean result proved nothing about the fault.

``verdict.json`` of one variant (schema ``SCHEMA``)::

    schema          "kafka-eos-harness/verdict/1"
    scenario        scenario id, e.g. "A1"
    variant         "control" or "guarantee"
    passed          the variant met its expectation
    reasons         why not, one line per unmet expectation
    expect          anomaly -> "required" | "forbidden" | "allowed"
    counts          anomaly -> count (every anomaly of harness.checker.ANOMALIES)
    result          the checker's comparable output:
      anomalies       anomaly -> {count, examples: [{id, producer, session, txn, at, ...}]}
      stats           sent, acknowledged, failed, indeterminate, indeterminate_read,
                      transactions_*, sessions, sessions_fenced, *_records, markers, distinct_read
      ledger_problems ledger file -> lines ignored (torn or malformed)
    notes           human detail: which ledger lines were ignored, fault-healing errors
    kafka_version, topics, consumer_view, producer_config, producer_exit, run_dir
    faults          [{kind, target, at, healed_at, ...}] as applied, with wall-clock times

A pair's ``verdict.json`` holds ``scenario``, ``title``, ``verdict`` (passed / failed /
inconclusive) and both variants' documents under ``control`` and ``guarantee``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.checker import CheckResult

SCHEMA = "kafka-eos-harness/verdict/1"
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
            "schema": SCHEMA,
            "scenario": self.scenario,
            "variant": self.variant,
            "passed": self.passed,
            "reasons": self.reasons,
            "expect": self.expect,
            "counts": {name: finding.count for name, finding in self.result.anomalies.items()},
            "result": self.result.to_json(),
            "notes": self.result.notes,
            **self.context,
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
            # Anomalies with an expectation or a finding; the rest are zero and unjudged.
            shown = [a for a in v.result.anomalies if a in v.expect or v.result.count(a)]
            counts = "  ".join(
                f"{a}={v.result.count(a)}"
                + (f" [{v.expect[a]} {'ok' if _met(v, a) else 'NOT MET'}]" if a in v.expect else "")
                for a in shown
            )
            stats = v.result.stats
            lines.append(
                f"  {v.variant:<9} {counts}   (sent {stats['sent']}, acked {stats['acknowledged']}, "
                f"indeterminate {stats['indeterminate']} of which read {stats['indeterminate_read']}, "
                f"read {stats['read_committed_records']} committed / {stats['read_uncommitted_records']} uncommitted)"
            )
            for anomaly, finding in v.result.anomalies.items():
                if finding.examples:
                    lines.append(f"            e.g. {anomaly}: {json.dumps(finding.examples[0])}")
            for problem, n in v.result.ledger_problems.items():
                lines.append(f"            ledger {problem}: {n} line(s) ignored")
        return "\n".join(lines)


def _met(v: VariantVerdict, anomaly: str) -> bool:
    n, rule = v.result.count(anomaly), v.expect[anomaly]
    return (rule == REQUIRED and n > 0) or (rule == FORBIDDEN and n == 0) or rule == ALLOWED
