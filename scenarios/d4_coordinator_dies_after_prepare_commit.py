"""D4 — research: the transaction coordinator dies right after a Streams app's commit was logged as prepared.

A transaction commits in two phases: the coordinator logs PrepareCommit in
``__transaction_state`` and answers the commit request, then writes a commit marker into
every partition the transaction touched (output, changelog, the group's offsets) and logs
CompleteCommit. Once PrepareCommit is logged the commit must complete: a coordinator that
dies in between is replaced by the next leader of its ``__transaction_state`` partition,
which reads the log and writes the markers again. Until then read_committed readers wait at
the open transaction.

Here every broker's replication links are slowed (300 ms towards the broker), which slows
the markers too, so a prepared commit stays incomplete for a second or two; the broker that
coordinates the app's commits is SIGKILLed right after it logged one and restarted 5 s later.
The guarantee side (exactly_once_v2) is the story. The control (at_least_once) has no
transactions: its commits are offset commits, final once written, so the same kill lands on
its group coordinator right after one. No configuration on a sound cluster can lose a
prepared commit, so there is no control that must show an anomaly: this pair makes no
pass/fail claim and reports what each side shows, with, per side, how many of the app's
prepared commits the log shows completed (``transactions`` in the sink section).

Fault (one side after the other: it hits brokers): 300 ms latency on every broker's
replication listener towards it for the first 25 s; once ``CommitLogged`` holds (exactly-once: the app's
transactional.id's latest state is PrepareCommit; at-least-once: its group's committed
offsets just advanced), kill -9 ``CommitCoordinator`` (the transaction coordinator of that
id, or the group's coordinator) for 5 s.
Control: at_least_once. Guarantee side: exactly_once_v2; expected, not claimed: every
prepared commit completed, one output per input, exact totals.
"""

from dataclasses import replace

from harness.faults import Brokers, Step, kill, latency
from harness.scenario import Scenario, Variant
from harness.verdict.checks import sink_at_least
from harness.verdict.document import ALLOWED
from harness.workloads.streams import (
    AT_LEAST_ONCE,
    EXACTLY_ONCE_V2,
    CommitCoordinator,
    CommitLogged,
    StreamsWorkload,
    streams_app,
)

MARKER_DELAY_MS = 300
SLOW_S = 25.0
DOWN_S = 5.0
FINDINGS = {a: ALLOWED for a in ("sink_missing", "sink_repeated", "aggregate_mismatch")}

APP = StreamsWorkload(
    inputs=2000,
    partitions=3,
    keys=12,
    commit_interval_ms=1000,
    delay_ms_per_record=2.0,
    # The slowed links stretch a commit to about 9 s, near Streams' 10 s default: a transaction
    # the coordinator aborted on its own would muddle what the kill did.
    config={"producer.transaction.timeout.ms": 30_000},
)


COMMIT = CommitLogged(streams_app(1))
COORDINATOR_DIES_AFTER_A_COMMIT = (
    Step(
        at_s=0.0,
        fault=latency(Brokers(), ms=MARKER_DELAY_MS, listener="replication", direction="to_broker"),
        duration_s=SLOW_S,
    ),
    Step(at_s=0.0, fault=kill(CommitCoordinator(COMMIT)), duration_s=DOWN_S, when=COMMIT, when_timeout_s=60.0),
)


SCENARIO = Scenario(
    id="D4",
    title="research: a Streams app's coordinator killed right after its commit was logged (PrepareCommit)",
    story=__doc__ or "",
    workload=APP,
    schedule=COORDINATOR_DIES_AFTER_A_COMMIT,
    control=Variant("control", {}, expect=FINDINGS, workload=replace(APP, processing_guarantee=AT_LEAST_ONCE)),
    guarantee=Variant(
        "guarantee",
        {},
        expect=FINDINGS,
        workload=replace(APP, processing_guarantee=EXACTLY_ONCE_V2),
        checks=(sink_at_least("prepared_commits", 1, "the kill must follow a commit the coordinator had logged"),),
    ),
    research=True,
)
