"""C2 — Spark foreachBatch into SQLite: keyed by input and written with its batch id, exactly once.

A Structured Streaming job writes one SQLite row per input record from ``foreachBatch``.
The driver is SIGKILLed twice after a batch's rows are committed to the database and
before Spark commits the batch to its checkpoint; the restarted driver runs that batch
again, with the same batch id and the same offsets. Rows keyed by their input (topic,
partition, offset) and written with the batch id in one database transaction replace
themselves; rows appended without a key are written twice.

Fault (both sides): two driver kills between the database commit and Spark's, latency and
a short blackhole on the driver's links (scenarios/c_faults.py).
Control (rows appended, no key): inputs with two rows.
Guarantee (keyed rows, batch and batch id in one transaction): exactly one row per input.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.spark import SparkWorkload
from scenarios.spark_driver_faults import DRIVER_KILLED_MID_BATCH, driver_kills

JOB = SparkWorkload(job="sqlite_sink", pause_after_write_ms=800)

SCENARIO = Scenario(
    id="C2",
    title="Spark foreachBatch sink: one row per input after driver kills only when keyed by input",
    story=__doc__ or "",
    workload=JOB,
    schedule=driver_kills(),
    sides_together=True,  # each side is mostly JVM starts: run them at once
    control=Variant(
        "control",
        {},
        expect={"sink_repeated": REQUIRED},
        workload=replace(JOB, mode="plain"),
        checks=(DRIVER_KILLED_MID_BATCH,),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN, "lost": FORBIDDEN},
        workload=replace(JOB, mode="idempotent"),
        checks=(DRIVER_KILLED_MID_BATCH,),
    ),
)
