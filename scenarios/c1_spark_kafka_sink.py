"""C1 — Spark Kafka -> Kafka: the Kafka sink is at-least-once; the checkpoint bounds the repeats.

A Structured Streaming job reads the input topic and writes one output record per input
to an output topic with Spark's Kafka sink; each output names its input. The driver is
SIGKILLed twice while a micro-batch is being written. Spark's sink has no transactions
(Spark documents it as at-least-once): the restarted driver runs the unfinished batch
again from its checkpoint and writes again what the killed one had written. What the
checkpoint does guarantee is that nothing is lost and only the batches in flight at a
kill repeat.

Fault (both sides): two driver kills mid-batch, latency and a short blackhole on the
driver's links (scenarios/c_faults.py).
Control (the checkpoint lost with the driver: each start gets an empty one): the job
starts over from the earliest offsets; everything written before a kill repeats.
Guarantee (the same checkpoint across restarts): no input missing; repeats are allowed
(the documented limit), counted and reported, and never more than the batches in flight
at the kills (test_pairs checks that bound).

Both sides repeat: that is the limit this pair documents. Each kill lands in the first
batch its incarnation plans, so the control loses no committed batch either and repeats
about as much as the guarantee (measured: 175 vs 275 inputs); a lost checkpoint costs
more only when kills come after committed batches, which this schedule does not wait for.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.judge import ALLOWED, FORBIDDEN, REQUIRED
from harness.workloads.spark import SparkWorkload
from scenarios.spark_driver_faults import driver_kills

# 10 ms per record: a batch takes seconds to write, so a kill lands while it writes.
JOB = SparkWorkload(job="kafka_sink", delay_ms_per_record=10.0)

SCENARIO = Scenario(
    id="C1",
    title="Spark's Kafka sink repeats the batch in flight after a driver kill (at-least-once)",
    story=__doc__ or "",
    workload=JOB,
    schedule=driver_kills,
    sides_together=True,  # each side is mostly JVM starts: run them at once
    control=Variant(
        "control",
        {},
        expect={"sink_repeated": REQUIRED, "sink_missing": FORBIDDEN},
        workload=replace(JOB, keep_checkpoint=False),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_missing": FORBIDDEN, "sink_repeated": ALLOWED, "lost": FORBIDDEN, "duplicate": FORBIDDEN},
    ),
)
