"""Each side's rows of expected against observed, which the page and the JUnit files show,
from the verdict objects read back (``VariantVerdict.from_json``), so the report reuses the
verdict's own judgement (``met``, ``outcome``) instead of a second reading of the schema.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.verdict.document import ALLOWED, VariantVerdict
from harness.verdict.summary import met

# Client findings whose examples are in the apps' reports, under this key.
_WORKLOAD_EXAMPLES = {
    "config_error": "setup_error",
    "txn_init_failed": "setup_error",
    "txn_id_unauthorized": "setup_error",
    "app_fenced": "fenced",
    "client_stuck": "stuck",
}


@dataclass
class Expectation:
    """One anomaly or client finding of a side: what was expected and what was seen."""

    anomaly: str
    rule: str  # required / forbidden / one of / allowed, or "" when nothing is expected (a finding all the same)
    count: int
    ok: bool | None  # None: not judged
    examples: list[Any]

    @property
    def line(self) -> str:
        """The row as one line of text (JUnit's system-out)."""
        judged = "" if self.ok is None else f" [{self.rule} {'ok' if self.ok else 'NOT MET'}]"
        return f"{self.anomaly}={self.count}{judged}"


def expectations(v: VariantVerdict) -> list[Expectation]:
    """Every anomaly the side has an expectation about or found, in the verdict's order."""
    rows = []
    for a in v.shown():
        rule, n = v.expect.get(a, ""), v.count(a)
        judged = rule and rule != ALLOWED
        rows.append(Expectation(a, rule, n, met(v, a) if judged else None, examples(v, a) if n else []))
    return rows


def examples(v: VariantVerdict, anomaly: str) -> list[Any]:
    """The records (or stalls, or app reports) the verdict gives as examples of ``anomaly``."""
    if anomaly in v.result.anomalies:
        return v.result.anomalies[anomaly].examples
    sink = v.record.sink
    if isinstance(sink.get(anomaly), dict):
        return sink[anomaly].get("examples", [])
    if anomaly == "read_committed_stall":
        return v.record.read_committed_stalls
    key = _WORKLOAD_EXAMPLES.get(anomaly)
    workload = v.record.workload
    return [{"app": f"{r['app']}#{r['incarnation']}", **r[key]} for r in workload if key and key in r]
