"""``SideRecord``: what a side's run recorded besides its judgement (its scenario's title and
story, versions, configuration, faults as applied, its apps' reports, times, what could not be
told), as the runner makes it and as its ``verdict.json`` holds it beside the judged keys
(``harness.verdict.document`` lists the format).

A field added later has a default, so a run folder of an older harness still reads; a key this
harness does not know is kept as read (``other``) and written back unchanged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# Written only when they hold something: the side has a sink, check-app ran a reference (the
# times: always, but a folder of an older harness may have none).
_WHEN_SET = ("sink", "reference", "started_at", "ended_at")


@dataclass
class SideRecord:
    # The scenario's, as it was when the side ran: the report reads them here, not from today's
    # scenarios ("": a folder from before they were recorded).
    title: str = ""
    story: str = ""
    kafka_version: str = ""
    broker_settings: dict[str, str] = field(default_factory=dict)
    client_security: str = ""
    acls: list[dict[str, Any]] = field(default_factory=list)  # [{user, resource, operations}]
    topics: list[str] = field(default_factory=list)
    topic_config: dict[str, str] = field(default_factory=dict)
    consumer_view: str = "read_committed"
    read_partitions: list[int] = field(default_factory=list)
    eos_pairs: list[list[str]] = field(default_factory=list)  # [input topic, output topic]
    producer_config: dict[str, Any] = field(default_factory=dict)
    client: str = ""
    client_version: str = ""
    client_requested: str = ""
    client_package: str = ""
    client_pin: str = ""
    client_ran: list[str] = field(default_factory=list)
    # As applied (harness.faults): each kind adds its own keys (hits, windows_hit, matched, ...).
    faults: list[dict[str, Any]] = field(default_factory=list)
    fault_errors: list[str] = field(default_factory=list)
    run_dir: str = ""
    # One report per app incarnation, the last JSON line it printed: each workload's own keys.
    workload: list[dict[str, Any]] = field(default_factory=list)
    read_committed_stalls: list[dict[str, Any]] = field(default_factory=list)
    started_at: float | None = None
    ended_at: float | None = None
    # Each sink's own findings (a database's, a Spark job's, a Streams app's): open-ended by design.
    sink: dict[str, Any] = field(default_factory=dict)
    unknown: list[str] = field(default_factory=list)  # what could not be told: never a violation
    reference: dict[str, Any] = field(default_factory=dict)  # check-app's reference run: {repeated, folder}
    other: dict[str, Any] = field(default_factory=dict)  # keys this harness does not know, as read

    def to_json(self) -> dict[str, Any]:
        doc = {k: v for k, v in asdict(self).items() if k != "other" and (k not in _WHEN_SET or v)}
        return {**doc, **self.other}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> SideRecord:
        """A side's recorded keys (its ``verdict.json`` without the judged ones)."""
        names = {f.name for f in fields(cls)} - {"other"}
        return cls(
            **{k: v for k, v in doc.items() if k in names}, other={k: v for k, v in doc.items() if k not in names}
        )
