"""C3 — Spark reads a transactional topic: read_committed keeps aborted records out of the sink.

The input topic is written in transactions of 20 records and every third transaction is
aborted. A Structured Streaming job copies the input into SQLite, keyed by input (as in
C2's guarantee), while its driver is killed twice mid-batch. The Kafka source reads with
``kafka.isolation.level``: read_committed skips aborted records and the transaction
markers' offsets without reporting data loss; read_uncommitted hands the aborted records
to the sink.

Fault (both sides): scenarios/c_faults.py.
Control (read_uncommitted): rows for records of aborted transactions.
Guarantee (read_committed): no such row, and exactly one row per committed input.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.spark import SparkWorkload
from scenarios.spark_driver_faults import DRIVER_KILLED_MID_BATCH, driver_kills

JOB = SparkWorkload(
    job="sqlite_sink", mode="idempotent", pause_after_write_ms=800, input_txn_size=20, input_abort_every=3
)

SCENARIO = Scenario(
    id="C3",
    title="Spark's Kafka source over aborted transactions: read_committed keeps them out of the sink",
    story=__doc__ or "",
    workload=JOB,
    schedule=driver_kills(),
    sides_together=True,  # each side is mostly JVM starts: run them at once
    control=Variant(
        "control",
        {},
        expect={"sink_aborted": REQUIRED},
        workload=replace(JOB, isolation_level="read_uncommitted"),
        checks=(DRIVER_KILLED_MID_BATCH,),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_aborted": FORBIDDEN, "sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN},
        workload=replace(JOB, isolation_level="read_committed"),
        checks=(DRIVER_KILLED_MID_BATCH,),
    ),
)
