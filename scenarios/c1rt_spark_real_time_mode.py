"""C1rt — research: Spark's real-time mode and its Kafka sink after driver kills (Spark 4.1+).

Real-time mode (``trigger(realTime=...)``) runs a query as long batches, each a
checkpoint interval, whose tasks (one per input partition) process records as they
arrive and write them at once, instead of planning a micro-batch every trigger. Spark's
developers say its Kafka sink stays at-least-once there: a batch is committed only at its
end, so whatever a killed driver had written since the last commit is written again by
the next one, from the checkpoint. This pair shows it beside C1's micro-batch job on the
same faults and reports what each side sees; it makes no pass/fail claim.

Fault (both sides): C1's, two driver kills, each once the driver has written 50 records
since its last commit (a real-time batch is planned only when it ends), latency and a
short blackhole on the driver's links (scenarios/spark_driver_faults.py).
Both sides read an input written as they run (100 records/s, 30 s), since real-time mode
takes no Python transform that would make a batch slow to write.
Control: the Kafka-sink job in real-time mode, batches of 5 s, the checkpoint kept.
Guarantee side: the same job in micro-batches (C1's guarantee).
Expected: repeats on both sides (at-least-once), nothing missing.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.document import ALLOWED
from harness.workloads.spark import WrittenSinceCommit
from scenarios.c1_spark_kafka_sink import JOB
from scenarios.spark_driver_faults import DRIVER_KILLED_MID_BATCH, driver_kills

# Real-time mode allows no Python transform (no slow one): the input is written as the job
# runs instead (30 s at 100/s), so batches are being written when the kills come.
REAL_TIME = replace(JOB, inputs=3000, delay_ms_per_record=0.0, real_time_ms=5000, input_rate_per_s=100.0)
FINDINGS = {a: ALLOWED for a in ("sink_repeated", "sink_missing", "lost", "duplicate")}

SCENARIO = Scenario(
    id="C1rt",
    title="research: Spark's real-time mode keeps the Kafka sink at-least-once after driver kills",
    story=__doc__ or "",
    workload=REAL_TIME,
    schedule=driver_kills(in_flight=WrittenSinceCommit),
    sides_together=True,  # each side is mostly JVM starts: run them at once
    research=True,
    control=Variant("control", {}, expect=FINDINGS, checks=(DRIVER_KILLED_MID_BATCH,)),
    guarantee=Variant(
        "guarantee", {}, expect=FINDINGS, workload=replace(REAL_TIME, real_time_ms=0), checks=(DRIVER_KILLED_MID_BATCH,)
    ),
)
