"""C1 — Spark Kafka -> Kafka: the Kafka sink is at-least-once; only the checkpoint bounds the repeats.

A Structured Streaming job reads the input topic and writes one output record per input
to an output topic with Spark's Kafka sink; each output names its input. The driver is
SIGKILLed twice while a micro-batch is being written, each time after the incarnation has
committed two batches of its own. Spark's sink has no transactions (Spark documents it
as at-least-once): the restarted driver runs the unfinished batch again from its
checkpoint and writes again what the killed one had written. What the checkpoint does
guarantee is that nothing is lost and only the batches in flight at a kill repeat.

Fault (both sides): two driver kills mid-batch, each after two committed batches of the
killed incarnation; latency and a short blackhole on the driver's links
(scenarios/spark_driver_faults.py).
Control (the checkpoint lost with the driver: each start gets an empty one): the job
starts over from the earliest offsets, so the committed batches repeat too: more repeats
than the batches in flight, which the guarantee's bound forbids.
Guarantee (the same checkpoint across restarts): no input missing; repeats are allowed
(the documented limit), counted and reported, and never more than the batches in flight
at the kills (2 x 300 inputs).
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.checks import at_least, at_most
from harness.verdict.document import ALLOWED, FORBIDDEN, REQUIRED
from harness.workloads.spark import SparkWorkload
from scenarios.spark_driver_faults import DRIVER_KILLED_MID_BATCH, KILLS, driver_kills

# 10 ms per record: a batch takes seconds to write, so a kill lands while it writes. Ten
# batches: each incarnation commits two of its own before it is killed, and the last
# one still has batches left to finish.
JOB = SparkWorkload(job="kafka_sink", inputs=3000, delay_ms_per_record=10.0)
COMMITTED_BEFORE_A_KILL = 2
IN_FLIGHT = KILLS * JOB.max_offsets_per_trigger  # inputs a kill can leave written but uncommitted

SCENARIO = Scenario(
    id="C1",
    title="Spark's Kafka sink repeats the batch in flight after a driver kill (at-least-once)",
    story=__doc__ or "",
    workload=JOB,
    schedule=driver_kills(after_commits=COMMITTED_BEFORE_A_KILL),
    sides_together=True,  # each side is mostly JVM starts: run them at once
    control=Variant(
        "control",
        {},
        expect={"sink_repeated": REQUIRED, "sink_missing": FORBIDDEN},
        workload=replace(JOB, keep_checkpoint=False),
        checks=(
            DRIVER_KILLED_MID_BATCH,
            at_least("sink_repeated", IN_FLIGHT + 1, "committed batches repeat too: beyond the guarantee's bound"),
        ),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_missing": FORBIDDEN, "sink_repeated": ALLOWED, "lost": FORBIDDEN, "duplicate": FORBIDDEN},
        checks=(
            DRIVER_KILLED_MID_BATCH,
            at_most("sink_repeated", IN_FLIGHT, "with its checkpoint a driver re-runs only the batch a kill cut"),
        ),
    ),
)
