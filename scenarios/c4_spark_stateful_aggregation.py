"""C4 — Spark stateful aggregation: checkpointed state gives the right totals after driver kills.

A Structured Streaming job counts the input records per key and sums their ids into a
SQLite table. The driver is SIGKILLed twice after a batch's result reached the database and
before Spark committed the batch; the restarted driver runs the batch again. With Spark's
stateful aggregation the running totals live in the checkpointed state store, the re-run
batch computes the same totals, and writing them replaces the stored ones. Aggregating
each batch on its own and adding its counts to the stored ones counts a re-run batch twice.

Fault (both sides): scenarios/c_faults.py.
Control (per-batch counts added to the table): keys whose count and sum exceed the input's.
Guarantee (checkpointed state, totals replaced): every key's count and sum equal those
recomputed from the committed input.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.spark import SparkWorkload
from scenarios.spark_driver_faults import DRIVER_KILLED_MID_BATCH, driver_kills

JOB = SparkWorkload(job="aggregate", pause_after_write_ms=800)

SCENARIO = Scenario(
    id="C4",
    title="Spark per-key aggregation: right totals after driver kills only from checkpointed state",
    story=__doc__ or "",
    workload=JOB,
    schedule=driver_kills(),
    sides_together=True,  # each side is mostly JVM starts: run them at once
    control=Variant(
        "control",
        {},
        expect={"aggregate_mismatch": REQUIRED},
        workload=replace(JOB, mode="increments"),
        checks=(DRIVER_KILLED_MID_BATCH,),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"aggregate_mismatch": FORBIDDEN, "lost": FORBIDDEN},
        workload=replace(JOB, mode="totals"),
        checks=(DRIVER_KILLED_MID_BATCH,),
    ),
)
