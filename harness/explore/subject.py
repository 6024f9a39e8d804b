"""What an exploration explores: a scenario pair's guarantee side, on a client and a Kafka
version, optionally with the transformer's planted bug and findings it may show; and the same
as JSON, so a replay or a shrink of one of its runs runs the very same side."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import scenarios
from harness import provision, versions
from harness.checker import catalogue
from harness.errors import HarnessError
from harness.scenario import Scenario, Variant, on_client
from harness.settings import Settings
from harness.verdict.document import ALLOWED
from harness.workloads import clients
from harness.workloads.pipeline import PipelineWorkload


@dataclass(frozen=True)
class Subject:
    like: str  # a scenario id (or a scenario file's path)
    client: str = ""  # as ``--client`` takes it, over a pin of the guarantee's; "": the scenario's
    kafka_version: str = ""  # "": the guarantee's own, else the default
    # The transformer's planted bug (harness.workloads.apps.transformer), on the guarantee's
    # pipeline: every n-th transaction's offsets committed outside it. For testing explore.
    planted_bug: int = 0
    # Findings the explored side may show (``--allow``): e.g. app_fenced, to look past a client
    # error that every run on this client meets and for the data anomalies behind it.
    allowed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed", tuple(self.allowed))  # from JSON: a list
        unknown = [n for n in self.allowed if n not in catalogue.NAMES]
        if unknown:
            raise HarnessError(
                f"--allow: unknown finding {', '.join(unknown)}; one of {', '.join(catalogue.NAMES)} "
                "(`kafka-harness findings` says what each means)"
            )

    def scenario(self) -> Scenario:
        """The pair as explored: on the client asked for, the planted bug in its guarantee, the
        findings allowed there."""
        chosen = scenarios.get(self.like)
        if self.allowed:
            allowing = {**chosen.guarantee.expect, **dict.fromkeys(self.allowed, ALLOWED)}
            chosen = replace(chosen, guarantee=replace(chosen.guarantee, expect=allowing))
        if self.client:
            # The explored side runs on the client asked for even where the pair pins one: R3's
            # guarantee pins the fixed librdkafka, and exploring the affected one is the point.
            unpinned = replace(chosen, guarantee=replace(chosen.guarantee, client=""))
            chosen = on_client(unpinned, clients.ClientSpec.parse(self.client))
        if self.planted_bug:
            workload = chosen.guarantee.workload or chosen.workload
            if not (isinstance(workload, PipelineWorkload) and workload.mode == "transactional"):
                raise HarnessError(
                    f"--planted-bug is the transactional transformer's: {chosen.id}'s guarantee runs no transactional "
                    "pipeline; explore --like B1 (or another pipeline pair) with it"
                )
            bugged = replace(workload, bug_offsets_outside_txn_every=self.planted_bug)
            chosen = replace(chosen, guarantee=replace(chosen.guarantee, workload=bugged))
        return chosen

    def guarantee(self) -> Variant:
        """The guarantee side, run on the exploration's own cluster (``settings``): what it asks of
        a cluster of its own is asked of that one instead, once for every run; without the
        checks that ask the pair's own fault to have done its part (``left_out``)."""
        side = self.scenario().guarantee.under_another_schedule()
        return replace(side, broker_settings={}, kafka_version="", client_security="")

    def left_out(self) -> list[str]:
        """The guarantee's checks an exploration leaves out: they judge the pair's own schedule."""
        side = self.scenario().guarantee
        kept = side.under_another_schedule().checks
        return [c.name for c in side.checks if c not in kept]

    def settings(self, base: Settings) -> Settings:
        """The exploration's cluster settings, with its Kafka image and its apps' client release
        fetched and built first (a release no registry has: one line, before anything starts)."""
        chosen = self.scenario()
        version = self.kafka_version or chosen.guarantee.kafka_version or None
        settings = base.with_overrides(kafka_version=version, client_security=chosen.guarantee.client_security or None)
        versions.kafka(settings.kafka_version)
        provision.prepare(settings, [replace(chosen, control=self.guarantee(), guarantee=self.guarantee())])
        return settings

    def broker_settings(self) -> dict[str, str]:
        return dict(self.scenario().guarantee.broker_settings)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Subject:
        return cls(**{f.name: doc[f.name] for f in fields(cls) if f.name in doc})

    def __str__(self) -> str:
        extra = [f"client {self.client}"] if self.client else []
        extra += [f"Kafka {self.kafka_version}"] if self.kafka_version else []
        extra += [f"planted bug every {self.planted_bug}"] if self.planted_bug else []
        extra += [f"allowing {', '.join(self.allowed)}"] if self.allowed else []
        return f"{self.like}'s guarantee" + (f" ({', '.join(extra)})" if extra else "")
