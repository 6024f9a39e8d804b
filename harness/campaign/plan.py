"""What a campaign runs: its matrix (explored sides x Kafka releases x clients x fault families x
seeds x runs per cell), from flags or a TOML file, the order its runs go in, and each shard's share.

A campaign file (``kafka-harness campaign run --file campaign.toml``; docs/campaign.md)::

    sides = ["B1", "A5"]          # pairs by id, or a letter ("B": every B pair explore can draw for)
    kafka = ["4.4.0", "4.3.1"]    # the brokers' releases
    clients = ["librdkafka==2.16.1", "java==4.4.0"]   # as --client takes them; "" the side's own
    families = ["all"]            # fault families, each its own cell; "all": every explore family
    seeds = [1]
    runs = 5                      # runs per cell

The order interleaves cells: run 1 of every cell, then run 2 of every cell, …, so a budget that
ends early still covered every cell; within a round, cells on one cluster (one Kafka release and
broker settings) come together, so a worker reuses its cluster. Shard I of N takes every N-th run of
that order from the I-th: the runs one machine would have drawn, shared out without a scheduler.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import tomllib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import scenarios
from harness import versions
from harness.errors import HarnessError
from harness.explore import draw, targets
from harness.explore.subject import Subject
from harness.workloads import clients

_LISTS = ("sides", "kafka", "clients", "families", "seeds")


@dataclass(frozen=True)
class Cell:
    """One point of the matrix: a side explored on a Kafka release and a client, drawing faults of
    one family from one seed."""

    side: str
    kafka: str
    client: str  # "": the side's own
    family: str
    seed: int

    @property
    def name(self) -> str:
        """A folder name: ``B1-k4.4.0-java-4.4.0-link-s1``."""
        client = self.client.replace("==", "-") or "own"
        return f"{self.side}-k{self.kafka}-{client}-{self.family}-s{self.seed}"

    def subject(self) -> Subject:
        return Subject(self.side, self.client, self.kafka)


@dataclass(frozen=True)
class Planned:
    cell: Cell
    run: int  # its number within the cell: the schedule drawn is the seed's run ``run``

    @property
    def folder(self) -> str:
        return f"{self.cell.name}/run-{self.run:03d}"


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match or not 1 <= int(match[1]) <= int(match[2]):
            raise HarnessError(f"--shard {text!r}: give I/N with 1 <= I <= N, e.g. 1/2 for the first of two shards")
        return cls(int(match[1]), int(match[2]))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


@dataclass(frozen=True)
class Campaign:
    sides: tuple[str, ...]
    kafka: tuple[str, ...]
    clients: tuple[str, ...] = ("",)
    families: tuple[str, ...] = draw.FAMILIES
    seeds: tuple[int, ...] = (1,)
    runs: int = 5

    def __post_init__(self) -> None:
        """Every mistake said in one line before anything starts."""
        for name in _LISTS:
            if not getattr(self, name):
                raise HarnessError(f"campaign: {name} is empty; give one or more")
        if not all(type(seed) is int for seed in self.seeds) or type(self.runs) is not int:
            raise HarnessError(f"campaign: seeds and runs are whole numbers, not {list(self.seeds)} and {self.runs!r}")
        if self.runs < 1:
            raise HarnessError(f"campaign: runs per cell must be 1 or more, not {self.runs}")
        for release in self.kafka:
            versions.kafka(release)
        for client in self.clients:
            if client:
                clients.ClientSpec.parse(client)
        draw.families(",".join(self.families))
        for side in self.sides:
            _explorable(side)

    @classmethod
    def of(cls, sides: list[str], **rest: Any) -> Campaign:
        """From lists as flags or a file give them: letters expanded to their pairs, "all" families."""
        families = rest.pop("families", ["all"])
        chosen = draw.families(",".join(families)) if families else draw.FAMILIES
        return cls(
            tuple(_expanded(sides)),
            families=chosen,
            **{k: tuple(v) if isinstance(v, list) else v for k, v in rest.items()},
        )

    @classmethod
    def read(cls, path: Path) -> Campaign:
        """A campaign file (see the module's doc)."""
        try:
            doc = tomllib.loads(path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise HarnessError(f"campaign file {path}: {exc}; see docs/campaign.md for its form") from exc
        unknown = sorted(set(doc) - {f.name for f in fields(cls)})
        if unknown:
            raise HarnessError(
                f"campaign file {path}: unknown key {', '.join(unknown)}; "
                f"known: {', '.join(f.name for f in fields(cls))}"
            )
        if "sides" not in doc or "kafka" not in doc:
            raise HarnessError(f"campaign file {path}: sides and kafka are required")
        wrong = [k for k in _LISTS if k in doc and not isinstance(doc[k], list)]
        if wrong or not isinstance(doc.get("runs", 1), int):
            raise HarnessError(
                f"campaign file {path}: {', '.join(wrong) or 'runs'} has the wrong type; "
                f"lists for {', '.join(_LISTS)}, a number for runs"
            )
        return cls.of(**doc)

    def to_json(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Campaign:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in doc.items()})

    @property
    def digest(self) -> str:
        """What tells one campaign from another: its matrix, not where or how long it ran."""
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:12]

    def cells(self) -> list[Cell]:
        product = itertools.product(self.sides, self.kafka, self.clients, self.families, self.seeds)
        return [Cell(*point) for point in product]

    def order(self) -> list[Planned]:
        """Every run, in the order they go: round by round, a round's cells grouped by cluster."""
        by_cluster = sorted(self.cells(), key=lambda c: (c.kafka, _broker_settings(c.side), c.name))
        return [Planned(cell, n) for n in range(1, self.runs + 1) for cell in by_cluster]

    def share(self, shard: Shard) -> list[Planned]:
        return self.order()[shard.index - 1 :: shard.count]

    def schedule(self, planned: Planned) -> dict[str, Any]:
        """The run's schedule document: from its cell's seed, family and its number alone."""
        cell = planned.cell
        return draw.schedule(cell.seed, planned.run, targets.reach(cell.subject().scenario()), (cell.family,))


def cluster_key(cell: Cell) -> tuple[str, str]:
    """Cells with one key run on one cluster."""
    return (cell.kafka, _broker_settings(cell.side))


@functools.cache  # asked for every pending run each time a worker takes one
def _broker_settings(side: str) -> str:
    return json.dumps(Subject(side).broker_settings(), sort_keys=True)


def _explorable(side: str) -> None:
    targets.reach(scenarios.get(side))  # an unknown pair or a workload explore cannot draw for: one line


def _expanded(sides: list[str]) -> list[str]:
    """A letter stands for every pair of its group that explore can draw for, in the book's order."""
    found: list[str] = []
    for side in sides:
        if re.fullmatch(r"[A-Za-z]", side):
            group = [sid for sid, s in scenarios.all_scenarios().items() if sid[0] == side.upper() and _can_draw(s)]
            if not group:
                raise HarnessError(f"campaign: no pair of group {side!r} can be explored (kafka-harness list)")
            found += group
        else:
            found.append(side)
    return list(dict.fromkeys(found))


def _can_draw(scenario: scenarios.Scenario) -> bool:
    try:
        targets.reach(scenario)
    except HarnessError:
        return False
    return True
