"""A Spark streaming job (spark_jobs/) as a workload app, and what the runner needs around it.

``python -m harness.spark_app SPEC.json`` runs one job's driver in this process, so the
fault schedule's ``kill(App(SPARK_DRIVER))`` SIGKILLs the driver for real and healing
starts the next incarnation on the same checkpoint (``AppProcess``). The spec is the job's
module and its command line.

``BatchInFlight`` is the condition a kill waits for: an incarnation has planned a
micro-batch of its own (Spark wrote ``offsets/<n>`` after the incarnation started), written
(some of) it to the sink and not committed it (no ``commits/<n>``), so the kill lands in
the window where a batch is run twice.

``sink_findings`` turns what the job left behind into the verdict's ``sink`` findings, one
count per input as harness.sink counts a database sink.
"""

from __future__ import annotations

import importlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from harness.history import view_path
from harness.readback import high_watermarks, read_back
from harness.sink import count_per_input
from harness.workloads.process import AppProcess
from spark_jobs import sqlite_tables

if TYPE_CHECKING:
    from harness.faults import Faults

SPARK_DRIVER = "spark-driver"  # the app name: fault target ``App(SPARK_DRIVER)``


@dataclass(frozen=True)
class BatchInFlight:
    """Incarnation ``incarnation`` of the driver (``topic``: its input) is between writing a
    micro-batch of its own and committing it: the batch is in the SQLite sink's ``batches``
    (a foreachBatch job), or the output topic has grown since the batch was first seen in
    flight (the Kafka sink writes a batch as its tasks run)."""

    topic: str
    incarnation: int = 1
    # Output topic size when each batch was first seen in flight: (checkpoint, batch) -> records.
    _seen: dict[tuple[str, int], int] = field(default_factory=dict, compare=False)

    def holds(self, faults: Faults) -> bool:
        driver = faults.apps[SPARK_DRIVER]
        assert isinstance(driver, AppProcess)  # the runner's: it knows the run folder
        run_dir = driver.run_dir
        spec_path = run_dir / f"{SPARK_DRIVER}.{self.incarnation}.spec.json"
        if not spec_path.exists() or (run_dir / f"{SPARK_DRIVER}.{self.incarnation + 1}.spec.json").exists():
            return False
        spec = json.loads(spec_path.read_text())
        checkpoint = Path(spec["checkpoint"])
        batches = [int(p.name) for p in (checkpoint / "offsets").glob("[0-9]*")]
        if not batches or (checkpoint / "commits" / str(max(batches))).exists():
            return False
        n = max(batches)
        if (checkpoint / "offsets" / str(n)).stat().st_mtime < spec_path.stat().st_mtime:
            return False  # planned by an earlier incarnation: a re-run
        args = spec["args"]
        if "--db" in args:
            return n in sqlite_tables.batch_ids(Path(args[args.index("--db") + 1]))
        cluster, topic = faults.cluster, args[args.index("--output-topic") + 1]
        written = sum(high_watermarks(cluster.bootstrap_servers(), [topic], cluster.client_config()).values())
        return self._seen.setdefault((str(checkpoint), n), written) < written

    def __str__(self) -> str:
        return f"driver {self.incarnation} reading {self.topic} has a micro-batch written but not committed"


@dataclass(frozen=True)
class SparkSink:
    """Where a job's results went: an output topic (kafka_sink) or a SQLite file (the others)."""

    job: str
    output: str  # topic name or database path

    def findings(self, bootstrap: str, reads: Path, max_examples: int) -> dict[str, Any]:
        """The verdict's ``sink`` section, against the input topic as read back into ``reads``.

        A record sink (C1-C3): per committed input, how many rows or output records name it
        (``sink_missing``, ``sink_repeated``), and how many name a record of an aborted
        transaction (``sink_aborted``). The aggregation (C4): keys whose stored count or sum
        differs from the one recomputed from the committed input (``aggregate_mismatch``).
        """
        committed = pq.read_table(view_path(reads, "read_committed"), columns=["key", "id"])
        ids = committed["id"].to_numpy()
        if self.job == "aggregate":
            return {"output": self.output, "aggregate_mismatch": _mismatch(committed, Path(self.output), max_examples)}
        if self.job == "kafka_sink":
            out = read_back(bootstrap, [self.output], reads.parent / "sink-reads")
            rows = pq.read_table(view_path(out, "read_committed"), columns=["id"])["id"].to_numpy()
        else:
            rows = np.array(sqlite_tables.record_ids(Path(self.output)), np.int64)
        everything = pq.read_table(view_path(reads, "read_uncommitted"), columns=["id"])["id"].to_numpy()
        aborted = np.setdiff1d(everything[everything >= 0], ids)  # written, never committed
        named_aborted = rows[np.isin(rows, aborted)]
        return {
            "output": self.output,
            **count_per_input(rows, ids[ids >= 0], max_examples),
            "sink_aborted": {
                "count": len(named_aborted),
                "examples": [{"input": int(i)} for i in np.unique(named_aborted)[:max_examples]],
            },
        }


def _mismatch(committed: pa.Table, db: Path, max_examples: int) -> dict[str, Any]:
    expected: dict[str, tuple[int, int]] = {}
    for key, record_id in zip(committed["key"].to_pylist(), committed["id"].to_pylist(), strict=True):
        count, total = expected.get(key, (0, 0))
        expected[key] = (count + 1, total + record_id)
    found = sqlite_tables.aggregates(db)
    wrong = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
    examples = [{"key": k, "expected": expected.get(k), "found": found.get(k)} for k in wrong[:max_examples]]
    return {"count": len(wrong), "examples": examples}


def main() -> None:
    spec = json.loads(Path(sys.argv[1]).read_text())
    job = importlib.import_module(f"spark_jobs.{spec['job']}")
    sys.exit(job.common.main(spec["job"], job.arguments(), job.build, spec["args"]))


if __name__ == "__main__":
    main()
