"""B8 — exactly-once stops at Kafka's edge: a side effect in the loop happens again after a crash.

The app's effect is not a Kafka record but a row in a database (standing in for an
e-mail, a payment, a REST call). Transactions cannot take it back. Doing the effect in
the processing loop and committing the input offsets to Kafka afterwards, a crash in
between repeats the effect on restart. Storing the effect and the next input offsets in
the same database transaction, and starting from the database's offsets rather than the
consumer group's, makes the pair atomic: after any number of crashes there is exactly
one row per input.

Fault: SIGKILL the app three times mid-stream (it spends most of each batch between its
effects and its offset commit), restarting it a second later.
Control (rows inserted in the loop, offsets committed to Kafka after): inputs with two or
more rows.
Guarantee (rows and offsets in one SQLite transaction, offsets read back from it): exactly
one row per input.
"""

from dataclasses import replace

from harness.faults import App, Step, kill
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import PipelineWorkload, transformer

# Apart by more than a restart takes: joining the group waits for the dead member's session
# (6 s) to expire.
KILLS_AT_S = (4.0, 14.0, 24.0)
PIPELINE = PipelineWorkload(inputs=4000, partitions=3, batch_size=50, pause_before_commit_ms=150, sink="sqlite")

SCENARIO = Scenario(
    id="B8",
    title="side effects outside Kafka repeat after a crash unless stored with the offsets",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=tuple(Step(at_s=at, fault=kill(App(transformer(1))), duration_s=1.0) for at in KILLS_AT_S),
    sides_together=True,  # faults hit each side's own app only
    control=Variant("control", {}, expect={"sink_repeated": REQUIRED}, workload=replace(PIPELINE, mode="plain")),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN},
        workload=replace(PIPELINE, mode="transactional"),
    ),
)
