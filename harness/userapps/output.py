"""What a user's app wrote, judged per input: its output topic read back with values and headers,
each output attributed to the input it names (harness.userapps.contract), and the inputs
counted as the checker's sink findings do (harness.checker.sinks):

- ``sink_missing``: an input read committed that no output names (the user app's eos_missing);
- ``sink_repeated``: an input read committed that two or more outputs name (its eos_repeated);
- ``sink_aborted``: an output naming an input of an aborted transaction: the app read
  uncommitted data (its aborted read).

The outputs judged are those a downstream consumer reading with ``view`` sees (read_committed
unless said otherwise); the other view's counts are reported beside them. An output that names
no input, or an input the harness never wrote, is a breach of the contract, reported as one
line (``contract``) instead of being counted.

``OutputAtLeast`` is a condition a fault step can wait for: the app is mid-stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.checker.sinks import count_per_input, naming_aborted
from harness.faults import serial
from harness.faults.plan import Topic, named
from harness.history.format import ISOLATIONS, view_path
from harness.history.readback import high_watermarks, read_back
from harness.history.records import MARKER_ID
from harness.userapps.contract import ContractError, Naming, names_no_input, names_unknown_input

if TYPE_CHECKING:
    from harness.cluster.kafka import KafkaCluster
    from harness.faults import Faults
    from harness.history.columns import History
    from harness.userapps.app import GroupProgress

SINK_FINDINGS = ("sink_missing", "sink_repeated", "sink_aborted")
_SHOWN_OUTPUTS = 4  # output positions listed per example


@dataclass(frozen=True)
class AppOutput:
    input_topic: str
    output_topic: str
    run_dir: Path
    naming: Naming = field(default_factory=Naming)
    view: str = "read_committed"  # what the downstream consumer of the output reads
    progress: GroupProgress | None = None  # the app's group: how far it committed (``group_committed``)

    def collect(self, cluster: KafkaCluster) -> None:
        folder = self.run_dir / "sink-reads"
        read_back(cluster.bootstrap_servers(), [self.output_topic], folder, login=cluster.client_config(), values=True)

    def findings(self, history: History | None, max_examples: int) -> dict[str, Any]:
        """The verdict's ``sink`` section (``contract``: the one-line breach, or empty;
        ``group_committed``: input offsets the app's group committed, summed; None: no group known)."""
        committed_offsets, samples = None, None
        if self.progress is not None:  # its last look: the apps are done
            committed_offsets = self.progress.look().committed
            self.progress.close()
            samples = self.progress.samples
        inputs = {i: _rows(view_path(self.run_dir / "reads", i), self.input_topic) for i in ISOLATIONS}
        written = inputs["read_uncommitted"]["id"].to_numpy()
        outputs = {i: _rows(view_path(self.run_dir / "sink-reads", i), self.output_topic) for i in ISOLATIONS}
        sources = {i: self._sources(outputs[i]) for i in ISOLATIONS}
        try:
            self._check_contract(outputs["read_uncommitted"], sources["read_uncommitted"], written)
        except ContractError as exc:
            return {
                "output": self.output_topic,
                "view": self.view,
                "group_committed": committed_offsets,
                "progress": samples,
                "contract": str(exc),
            }
        found = {view: self._count(view, sources[view], outputs[view], inputs, max_examples) for view in ISOLATIONS}
        other = next(i for i in ISOLATIONS if i != self.view)
        return {
            "output": self.output_topic,
            "view": self.view,
            "outputs": outputs[self.view].num_rows,
            "group_committed": committed_offsets,
            "progress": samples,
            **found[self.view],
            f"as_{other}": ", ".join(f"{name} {found[other][name]['count']}" for name in SINK_FINDINGS),
            "contract": "",
        }

    def _sources(self, rows: pa.Table) -> np.ndarray:
        keys = [k.encode() if k is not None else None for k in rows["key"].to_pylist()]
        named = self.naming.sources(keys, rows["value"].to_pylist(), rows["headers"].to_pylist())
        return np.array([-1 if s is None else s for s in named], np.int64)

    def _check_contract(self, rows: pa.Table, sources: np.ndarray, written: np.ndarray) -> None:
        nameless = np.flatnonzero(sources < 0)
        if len(nameless):
            i = int(nameless[0])
            raise names_no_input(_where(rows, i), rows["value"][i].as_py(), self.naming)
        unknown = np.flatnonzero(~np.isin(sources, written))
        if len(unknown):
            i = int(unknown[0])
            raise names_unknown_input(_where(rows, i), int(sources[i]))

    def _count(
        self, view: str, sources: np.ndarray, rows: pa.Table, inputs: dict[str, pa.Table], n: int
    ) -> dict[str, Any]:
        committed = inputs["read_committed"]["id"].to_numpy()
        written = inputs["read_uncommitted"]["id"].to_numpy()
        found: dict[str, Any] = {
            **count_per_input(sources, committed, n),
            "sink_aborted": naming_aborted(sources, committed, written, n),
        }
        # Where each example sits: the outputs naming it, or (missing) the input itself.
        for finding in found.values():
            for example in finding["examples"]:
                named = np.flatnonzero(sources == example["input"])
                example["outputs"] = [_where(rows, int(i)) for i in named[:_SHOWN_OUTPUTS]]
                if not len(named):
                    at = np.flatnonzero(inputs["read_uncommitted"]["id"].to_numpy() == example["input"])
                    example["input_at"] = _where(inputs["read_uncommitted"], int(at[0])) if len(at) else ""
        return found


def _rows(path: Path, topic: str) -> pa.Table:
    """A read-back's data rows of ``topic`` (no markers)."""
    table = pq.read_table(path)
    return table.filter(pc.and_(pc.equal(table["topic"], topic), pc.not_equal(table["id"], MARKER_ID)))


def _where(rows: pa.Table, i: int) -> str:
    return f"{rows['topic'][i].as_py()}-{rows['partition'][i].as_py()}@{rows['offset'][i].as_py()}"


@serial.condition
@dataclass(frozen=True)
class OutputAtLeast:
    """The output topic holds at least ``records`` records (committed or not, markers counted):
    the app is mid-stream, with work behind it and ahead of it."""

    topic: str | Topic
    records: int

    def holds(self, faults: Faults) -> bool:
        cluster = faults.cluster
        marks = high_watermarks(cluster.bootstrap_servers(), [named(self.topic)], cluster.client_config(), wait_s=5)
        return sum(marks.values()) >= self.records

    def __str__(self) -> str:
        return f"{self.topic} holds >= {self.records} records"
