"""What a check finds, shared by both checker engines: the options a check takes
(``CheckOptions``), each anomaly's count and examples (``Finding``), and the whole result with
the history's counts (``CheckResult``), whose comparable JSON both engines produce alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

MAX_EXAMPLES = 5


@dataclass(frozen=True)
class CheckOptions:
    view: str = "read_committed"  # the isolation level the scenario's consumers use
    eos_pairs: tuple[tuple[str, str], ...] = ()  # (input topic, output topic) of transform apps
    max_examples: int = MAX_EXAMPLES


@dataclass
class Finding:
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)
    # Every record the finding is about (a transaction's: its records; an exactly-once
    # count's: the input), for the run report's marks; not part of the comparable JSON.
    ids: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "examples": self.examples}


@dataclass
class CheckResult:
    anomalies: dict[str, Finding]
    stats: dict[str, int]
    ledger_problems: dict[str, int]  # ledger file -> lines ignored
    notes: list[str] = field(default_factory=list)  # human detail, not part of the comparable JSON

    @classmethod
    def unknown(cls, anomalies: list[str]) -> CheckResult:
        """The result of a check that could not be made (the checker raised): nothing found,
        nothing counted; the verdict says why and its outcome is inconclusive, never a violation."""
        return cls({name: Finding(0) for name in anomalies}, dict.fromkeys(STATS, 0), {})

    def count(self, anomaly: str) -> int:
        """0 for an anomaly the result does not hold: a verdict saved before the catalogue had it."""
        found = self.anomalies.get(anomaly)
        return found.count if found else 0

    @classmethod
    def from_json(cls, doc: dict[str, Any], notes: list[str] | None = None) -> CheckResult:
        """The comparable part read back (a saved verdict's, or the Spark engine's)."""
        found = {name: Finding(f["count"], f["examples"]) for name, f in doc["anomalies"].items()}
        return cls(found, doc["stats"], doc["ledger_problems"], list(notes or []))

    def anomalous_records(self) -> pa.Table:
        """Every record each anomaly is about, as columns ``anomaly`` and ``id`` (the run
        folder's ``anomalies.parquet``, which the run report marks on its timelines)."""
        names = list(self.anomalies)
        which = np.repeat(np.arange(len(names), dtype=np.int32), [len(f.ids) for f in self.anomalies.values()])
        ids = np.concatenate([np.empty(0, np.int64), *(f.ids.astype(np.int64) for f in self.anomalies.values())])
        anomaly = pa.DictionaryArray.from_arrays(pa.array(which), pa.array(names, pa.string()))
        return pa.table({"anomaly": anomaly.cast(pa.string()), "id": pa.array(ids)})

    def to_json(self) -> dict[str, Any]:
        """The comparable part: the Spark engine produces exactly this for the same history."""
        return {
            "anomalies": {k: v.to_json() for k, v in self.anomalies.items()},
            "stats": self.stats,
            "ledger_problems": self.ledger_problems,
        }


# What ``stats`` counts, in its order.
STATS = (
    "sent",
    "acknowledged",
    "failed",
    "indeterminate",
    "indeterminate_read",
    "transactions_committed",
    "transactions_aborted",
    "transactions_unknown",
    "sessions",
    "sessions_fenced",
    "read_committed_records",
    "read_uncommitted_records",
    "markers",
    "distinct_read",
)
