"""The Spark workload: a Structured Streaming job of ``spark_jobs/`` over an input topic filled
first (an idempotent producer; transactional with aborts when ``input_txn_size`` is set).

Its driver is the app ``SPARK_DRIVER``: ``python -m spark_jobs.<job> ARGS`` runs the driver
in that process, so ``kill(App(SPARK_DRIVER))`` SIGKILLs it for real and healing starts the
next incarnation on the same checkpoint (or an empty one, ``keep_checkpoint=False``). It
reads through links of its own, so a link fault on them (target ``Brokers()``, listener
``harness.faults.OWN_LINKS``) hits only it, and it stops once it has processed the input.
Its plan's topics (a schedule's ``INPUT``, ``OUTPUT``) have ``MAIN`` the input, which the LSO probe watches.

``BatchInFlight`` is the condition a kill waits for: an incarnation has planned a
micro-batch of its own (Spark wrote ``offsets/<n>`` after the incarnation started), written
(some of) it to the sink and not committed it (no ``commits/<n>``), so the kill lands in
the window where a batch is run twice.

The job's output carries no ledger: each output row or record names its input id, and
``SparkOutput`` counts them per committed input (harness.checker.sinks).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow.parquet as pq

from harness.checker.sinks import aggregate_mismatch, count_per_input, naming_aborted
from harness.cluster.kafka import KafkaCluster
from harness.faults import serial
from harness.faults.plan import RunNames, Topic
from harness.history.columns import History
from harness.history.format import view_path
from harness.history.readback import high_watermarks, read_back
from harness.jvm.spark import require_pyspark
from harness.workloads import spark_tables
from harness.workloads.base import Plan, SideSetup
from harness.workloads.input import INPUT_PRODUCER, fill, input_app
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerWorkload

if TYPE_CHECKING:
    from harness.faults import Faults

SPARK_DRIVER = "spark-driver"  # the app name: fault target ``App(SPARK_DRIVER)``
# The driver's budget: its inputs at a slow pace (JVM starts, restarts), plus start-up.
_INPUTS_PER_S, _SLACK_S = 20, 240


@dataclass(frozen=True)
class SparkWorkload:
    job: str  # spark_jobs module: kafka_sink, sqlite_sink or aggregate
    mode: str = ""  # the job's --mode, if it has one
    inputs: int = 1200
    partitions: int = 3
    keys: int = 12
    max_offsets_per_trigger: int = 300
    trigger_ms: int = 200
    isolation_level: str = "read_committed"
    pause_after_write_ms: int = 0  # foreachBatch jobs: the window between the sink's and Spark's commit
    delay_ms_per_record: float = 0.0  # kafka_sink: a transform that takes time, so batches are long
    # False: every driver start gets an empty checkpoint, as when it lived on a lost disk.
    keep_checkpoint: bool = True
    input_txn_size: int = 0  # records per input transaction (0: no transactions)
    input_abort_every: int = 0  # abort every n-th input transaction
    # Spark's real-time mode (4.1+) with batches this long (at least 5 s), instead of
    # micro-batches; a task per input partition runs all along, so the driver gets a slot
    # per partition and one to spare.
    real_time_ms: int = 0
    # The input written while the job runs, at this rate, instead of filled first: what a
    # real-time job sees, records arriving as it processes them.
    input_rate_per_s: float = 0.0

    def plan(self, side: SideSetup) -> Plan:
        require_pyspark("the Spark workload")  # its driver runs pyspark: stop before the topics
        cluster, run_dir = side.cluster, side.run_dir
        source = f"{side.name}-in"
        to_kafka = self.job == "kafka_sink"
        output = f"{side.name}-out" if to_kafka else str(run_dir / "sink.sqlite")
        for topic in (source, output) if to_kafka else (source,):
            cluster.create_topic(topic, self.partitions, config=side.topic_config)
        if to_kafka:
            sink_args = ["--output-topic", output, "--delay-ms-per-record", str(self.delay_ms_per_record)]
        else:
            sink_args = ["--db", output, "--pause-after-write-ms", str(self.pause_after_write_ms)]
        input_config = dict(INPUT_PRODUCER)
        if self.input_txn_size:
            input_config["transactional.id"] = f"{side.name}-input"
        inputs = ProducerWorkload(
            count=self.inputs, keys=self.keys, txn_size=self.input_txn_size or 10, abort_every=self.input_abort_every
        )
        if self.input_rate_per_s:
            writer = [
                input_app(cluster, run_dir, source, replace(inputs, rate_per_s=self.input_rate_per_s), input_config)
            ]
            input_ledgers: list[Path] = []
        else:
            writer, input_ledgers = [], fill(cluster, run_dir, source, inputs, input_config)
        args = [
            "--bootstrap-servers",
            cluster.bootstrap_servers(side.own_links),
            "--topic",
            source,
            "--isolation-level",
            self.isolation_level,
            "--max-offsets-per-trigger",
            str(0 if self.real_time_ms else self.max_offsets_per_trigger),  # real-time mode takes no limit
            "--trigger-ms",
            str(self.trigger_ms),
            "--until-caught-up",
            "--until-offsets",
            str(self.inputs),
            *(("--mode", self.mode) if self.mode else ()),
            *(
                ("--real-time-ms", str(self.real_time_ms), "--master", f"local[{self.partitions + 1}]")
                if self.real_time_ms
                else ()
            ),
            *sink_args,
        ]

        def spec_for(ledger: Path, earlier: list[Path]) -> dict[str, Any]:
            checkpoint = run_dir / ("checkpoint" if self.keep_checkpoint else f"checkpoint-{len(earlier) + 1}")
            return {"job": self.job, "checkpoint": str(checkpoint), "args": [*args, "--checkpoint", str(checkpoint)]}

        driver = AppProcess(SPARK_DRIVER, run_dir, spec_for, _driver_command)
        return Plan(
            [*writer, driver],
            [*writer, driver],
            topics=[source],
            names=RunNames({"main": source, "input": source, **({"output": output} if to_kafka else {})}),
            partitions=self.partitions,
            config={
                "job": self.job,
                "mode": self.mode,
                "isolation_level": self.isolation_level,
                "output": output,
                "trigger": f"real-time {self.real_time_ms} ms" if self.real_time_ms else f"{self.trigger_ms} ms",
            },
            budget_s=self.inputs / _INPUTS_PER_S + _SLACK_S,
            prefix_ledgers=input_ledgers,
            sink=SparkOutput(self.job, output, run_dir),
        )


def _driver_command(spec_path: Path, spec: dict[str, Any]) -> list[str]:
    return [sys.executable, "-m", f"spark_jobs.{spec['job']}", *spec["args"]]


@serial.condition
@dataclass(frozen=True)
class BatchInFlight:
    """Incarnation ``incarnation`` of the driver (``topic``: its input) is between writing a
    micro-batch of its own and committing it: the batch is in the SQLite sink's ``batches``
    (a foreachBatch job), or the output topic has grown since the batch was first seen in
    flight (the Kafka sink writes a batch as its tasks run). With ``after_commits``, only
    once the incarnation has committed that many batches of its own before it."""

    topic: str | Topic
    incarnation: int = 1
    after_commits: int = 0
    # Output topic size when each batch was first seen in flight: (checkpoint, batch) -> records.
    _seen: dict[tuple[str, int], int] = field(default_factory=dict, compare=False)

    def holds(self, faults: Faults) -> bool:
        spec = _incarnation_spec(faults, self.incarnation)
        if spec is None:
            return False
        started, checkpoint, args = spec
        batches = [int(p.name) for p in (checkpoint / "offsets").glob("[0-9]*")]
        if not batches or (checkpoint / "commits" / str(max(batches))).exists():
            return False
        n = max(batches)
        if (checkpoint / "offsets" / str(n)).stat().st_mtime < started:
            return False  # planned by an earlier incarnation: a re-run
        if len(_own_commits(checkpoint, started)) < self.after_commits:
            return False
        if "--db" in args:
            return n in spark_tables.batch_ids(Path(args[args.index("--db") + 1]))
        written = _output_records(faults, args)
        return self._seen.setdefault((str(checkpoint), n), written) < written

    def __str__(self) -> str:
        after = f" after {self.after_commits} of its own" if self.after_commits else ""
        return f"driver {self.incarnation} reading {self.topic} has a micro-batch written but not committed{after}"


@serial.condition
@dataclass(frozen=True)
class WrittenSinceCommit:
    """Incarnation ``incarnation`` of a Kafka-sink driver has written at least ``records``
    output records since its latest commit of its own (or since it started; with
    ``after_commits``, once it has committed that many): what a kill now cuts is written
    again by the next driver. For real-time mode, whose batches are planned
    (``offsets/<n>``) only at their end, so ``BatchInFlight`` never sees one in flight."""

    topic: str | Topic
    incarnation: int = 1
    after_commits: int = 0
    records: int = 50
    # Output topic size when each commit (-1: the start) was first seen: (checkpoint, commit) -> records.
    _seen: dict[tuple[str, int], int] = field(default_factory=dict, compare=False)

    def holds(self, faults: Faults) -> bool:
        spec = _incarnation_spec(faults, self.incarnation)
        if spec is None:
            return False
        started, checkpoint, args = spec
        own = _own_commits(checkpoint, started)
        if len(own) < self.after_commits:
            return False
        written = _output_records(faults, args)
        return written - self._seen.setdefault((str(checkpoint), max(own, default=-1)), written) >= self.records

    def __str__(self) -> str:
        return f"driver {self.incarnation} reading {self.topic} wrote {self.records}+ records since its last commit"


def _own_commits(checkpoint: Path, started: float) -> list[int]:
    """The batches committed since ``started``: by the incarnation that started then."""
    return [int(p.name) for p in (checkpoint / "commits").glob("[0-9]*") if p.stat().st_mtime >= started]


def _output_records(faults: Faults, args: list[str]) -> int:
    """Records in a Kafka-sink driver's output topic (given in its arguments)."""
    cluster, topic = faults.cluster, args[args.index("--output-topic") + 1]
    return sum(high_watermarks(cluster.bootstrap_servers(), [topic], cluster.client_config()).values())


def _incarnation_spec(faults: Faults, incarnation: int) -> tuple[float, Path, list[str]] | None:
    """When the driver's incarnation started, its checkpoint and its arguments; None unless it
    is the one running."""
    driver = faults.apps[SPARK_DRIVER]
    assert isinstance(driver, AppProcess)  # the runner's: it knows the run folder
    run_dir = driver.run_dir
    spec_path = run_dir / f"{SPARK_DRIVER}.{incarnation}.spec.json"
    if not spec_path.exists() or (run_dir / f"{SPARK_DRIVER}.{incarnation + 1}.spec.json").exists():
        return None
    spec = json.loads(spec_path.read_text())
    return spec_path.stat().st_mtime, Path(spec["checkpoint"]), spec["args"]


@dataclass(frozen=True)
class SparkOutput:
    """Where a job's results went: an output topic (kafka_sink, read back into ``sink-reads/``)
    or a SQLite file (the others)."""

    job: str
    output: str  # topic name or database path
    run_dir: Path

    def collect(self, cluster: KafkaCluster) -> None:
        if self.job == "kafka_sink":
            read_back(
                cluster.bootstrap_servers(), [self.output], self.run_dir / "sink-reads", login=cluster.client_config()
            )

    def findings(self, history: History, max_examples: int) -> dict[str, Any]:
        """The verdict's ``sink`` section, against the input topic as read back.

        A record sink (C1-C3): per committed input, how many rows or output records name it
        (``sink_missing``, ``sink_repeated``), and how many name a record of an aborted
        transaction (``sink_aborted``). The aggregation (C4): keys whose stored count or sum
        differs from the one recomputed from the committed input (``aggregate_mismatch``).
        """
        reads = self.run_dir / "reads"
        committed = pq.read_table(view_path(reads, "read_committed"), columns=["key", "id"])
        if self.job == "aggregate":
            return {
                "output": self.output,
                "aggregate_mismatch": aggregate_mismatch(
                    committed, spark_tables.aggregates(Path(self.output)), max_examples
                ),
            }
        if self.job == "kafka_sink":
            out = view_path(self.run_dir / "sink-reads", "read_committed")
            rows = pq.read_table(out, columns=["id"])["id"].to_numpy()
        else:
            rows = np.array(spark_tables.record_ids(Path(self.output)), np.int64)
        ids = committed["id"].to_numpy()
        written = pq.read_table(view_path(reads, "read_uncommitted"), columns=["id"])["id"].to_numpy()
        return {
            "output": self.output,
            **count_per_input(rows, ids[ids >= 0], max_examples),
            "sink_aborted": naming_aborted(rows, ids, written, max_examples),
        }
