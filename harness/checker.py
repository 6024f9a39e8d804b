"""The checker: a history (ledgers) and a read-back in, anomalies out. Pure functions.

Definitions (a record is identified by the unique id its producer gave it):

- **duplicate**: one id stored at two or more offsets.
- **lost**: acknowledged by the broker, never read back. Indeterminate sends (timed out,
  process killed) are never counted as lost.
- **phantom**: read back, but no ledger ever invoked it.

Indeterminate sends that were read back are reported as **recovered**, not as anomalies.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from harness.ledger import History
from harness.readback import ReadRecord

ANOMALIES = ("duplicate", "lost", "phantom")


@dataclass
class Finding:
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "examples": self.examples}


@dataclass
class CheckResult:
    anomalies: dict[str, Finding]
    stats: dict[str, int]
    notes: list[str] = field(default_factory=list)

    def count(self, anomaly: str) -> int:
        return self.anomalies[anomaly].count

    def to_json(self) -> dict[str, Any]:
        return {
            "anomalies": {k: v.to_json() for k, v in self.anomalies.items()},
            "stats": self.stats,
            "notes": self.notes,
        }


def check_delivery(history: History, records: list[ReadRecord], max_examples: int = 5) -> CheckResult:
    found = {kind: Finding() for kind in ANOMALIES}

    def add(kind: str, example: dict[str, Any]) -> None:
        finding = found[kind]
        finding.count += 1
        if len(finding.examples) < max_examples:
            finding.examples.append(example)

    stored: dict[str, list[ReadRecord]] = defaultdict(list)
    for r in records:
        if r.id is not None:
            stored[r.id].append(r)

    for op_id in sorted(stored):
        copies = stored[op_id]
        if len(copies) > 1:
            add(
                "duplicate",
                {
                    "id": op_id,
                    "copies": len(copies),
                    "at": [f"{c.topic}-{c.partition}@{c.offset}" for c in copies],
                    "acked_at": _where(history.acked.get(op_id)),
                },
            )
        if op_id not in history.invoked:
            add("phantom", {"id": op_id, "at": [f"{c.topic}-{c.partition}@{c.offset}" for c in copies]})
    for op_id in sorted(history.acked):
        if op_id not in stored:
            add("lost", {"id": op_id, "acked_at": _where(history.acked[op_id])})

    indeterminate = history.indeterminate
    stats = {
        "invoked": len(history.invoked),
        "acked": len(history.acked),
        "failed": len(history.failed),
        "indeterminate": len(indeterminate),
        "recovered": sum(1 for op_id in indeterminate if op_id in stored),
        "read": len(records),
        "distinct_read": len(stored),
    }
    notes = (
        [f"ignored {len(history.torn_lines)} torn ledger line(s): {', '.join(history.torn_lines[:5])}"]
        if history.torn_lines
        else []
    )
    return CheckResult(found, stats, notes)


def _where(at: tuple[int, int] | None) -> str | None:
    return None if at is None else f"partition {at[0]} offset {at[1]}"
