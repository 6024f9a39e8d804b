"""D2 — Kafka Streams: a stalled instance (zombie) wakes after the other took over its tasks.

Two instances of a Streams app form one group (the application id). The first runs alone
until it stalls mid-stream, with outputs and store updates written past its last commit, for
longer than its session timeout; the second, started the moment it stalls, joins, the group
drops the stalled one and the second takes over its tasks from the last committed offsets.
Under ``at_least_once`` the zombie's writes since that commit stay, so its inputs get a
second output and their keys are counted twice, and once awake it carries on with what it
had fetched until it learns it lost its tasks. Under ``exactly_once_v2`` those writes are an
open transaction; the survivor's transaction commits on its own, and the zombie's is
aborted: by the coordinator after the transaction timeout, or by the zombie itself once
awake, when its offsets are refused for an old generation of the group (KIP-447) and Streams
treats the tasks as migrated. Nothing the zombie wrote after the survivor took over becomes
visible to read_committed readers.

The control's totals are wrong only when the order of the last writes says so: the survivor,
restoring the zombie's uncommitted updates from the changelog and counting their inputs
again, over-counts; the zombie, awake, sends totals from its own store, which never counted
anything twice. Whichever writes a key's total last decides it: stale (below the recount,
seen in 3 runs of 4), over-counted, or, when the zombie's late writes reach the end of its
input (1 run of 4), right. So the control requires the repeats and reports the totals.

Fault: once instance 1 has committed at least once and processed 100 inputs since its last
commit (``StreamsUncommitted``), SIGSTOP it for 15 s (past its 6 s session timeout and the
rebalance), then SIGCONT; instance 2 is launched as soon as instance 1 is stopped. (Both
started at once, a slow JVM start could leave instance 1 only warm-up tasks and nothing
uncommitted to stall with: 1 inconclusive control in 5.) Both sides commit every 2 s and
spend 2 ms per input.
Control (at_least_once): repeated outputs; wrong totals allowed and reported.
Guarantee (exactly_once_v2): one output per input, exact totals; the zombie's report shows
its transaction aborted or its commit refused.
"""

from dataclasses import replace

from harness.faults import App, Paused, Step, launch, pause
from harness.scenario import Scenario, Variant
from harness.verdict.checks import aborted_or_fenced
from harness.verdict.document import ALLOWED, FORBIDDEN, REQUIRED
from harness.workloads.streams import AT_LEAST_ONCE, EXACTLY_ONCE_V2, StreamsUncommitted, StreamsWorkload, streams_app

STALL_S = 15.0  # past the 6 s session timeout plus a rebalance

APP = StreamsWorkload(
    inputs=4000, partitions=4, keys=12, instances=1, standby=1, commit_interval_ms=2000, delay_ms_per_record=2.0
)

SCENARIO = Scenario(
    id="D2",
    title="Streams zombie instance after a stall: its writes repeat unless fenced by exactly-once",
    story=__doc__ or "",
    workload=APP,
    schedule=(
        Step(
            at_s=0.0,
            fault=pause(App(streams_app(1))),
            duration_s=STALL_S,
            when=StreamsUncommitted(streams_app(1), 100),
            when_timeout_s=120.0,
        ),
        Step(at_s=0.0, fault=launch(App(streams_app(2))), when=Paused(streams_app(1))),
    ),
    control=Variant(
        "control",
        {},
        expect={"sink_repeated": REQUIRED, "aggregate_mismatch": ALLOWED, "sink_missing": FORBIDDEN},
        workload=replace(APP, processing_guarantee=AT_LEAST_ONCE),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN, "aggregate_mismatch": FORBIDDEN},
        workload=replace(APP, processing_guarantee=EXACTLY_ONCE_V2),
        checks=(aborted_or_fenced(streams_app(1), "the zombie's open transaction was aborted or its writes refused"),),
    ),
    sides_together=True,  # the stall hits each side's own app only
)
