"""B2a — a zombie app wakes up after its replacement took over; the shared transactional.id fences it.

The app stalls (SIGSTOP: think of a long GC pause) in the middle of a batch. Its consumer
stops heartbeating, the group drops it, and a replacement instance takes over its
partitions, starting from the last committed offsets. When the stalled app wakes it
carries on where it was: it writes the rest of its batch and commits. Without
transactions nothing stops it: the batch it had started is processed twice, once by each.
With transactions the replacement was started with the same ``transactional.id``; its
``init_transactions`` bumped the epoch, which aborts the zombie's open transaction and
makes every later write or commit of the zombie fail with a fencing error. The zombie
stops; none of its output is visible to a ``read_committed`` consumer.

Fault: once the app is mid-stream (300 outputs sent) and holds a batch it has not committed,
SIGSTOP it for 15 s (past its 6 s session timeout); as soon as it is stopped start the
replacement; then SIGCONT the zombie.
Control (plain apps): inputs processed twice.
Guarantee (transactional, the replacement shares the transactional.id): exactly one output
per input, no zombie write; the zombie reports the fencing error it got.
"""

from dataclasses import replace

from harness.faults import App, Paused, Step, launch, pause
from harness.scenario import Scenario, Variant
from harness.verdict.checks import fenced
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import BatchUncommitted, PipelineWorkload, transformer

STALL_S = 15.0  # longer than the consumer's session timeout (6 s) plus a rebalance
# Not at a fixed time, nor at a count of sends alone: the stall must find a batch in hand.
MID_BATCH = BatchUncommitted(transformer(1), after=300)

PIPELINE = PipelineWorkload(
    inputs=3000,
    partitions=3,
    instances=1,
    standby=1,
    shared_transactional_id=True,
    batch_size=50,
    pause_before_commit_ms=150,
)

SCENARIO = Scenario(
    id="B2a",
    title="zombie app after a stall: fenced by its replacement's transactional.id",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=(
        Step(at_s=0.0, fault=pause(App(transformer(1))), duration_s=STALL_S, when=MID_BATCH),
        Step(at_s=0.0, fault=launch(App(transformer(2))), when=Paused(transformer(1))),
    ),
    control=Variant("control", {}, expect={"eos_repeated": REQUIRED}, workload=replace(PIPELINE, mode="plain")),
    guarantee=Variant(
        "guarantee",
        {},
        expect={
            "eos_repeated": FORBIDDEN,
            "eos_missing": FORBIDDEN,
            "zombie_write": FORBIDDEN,
            "duplicate": FORBIDDEN,
            "aborted_read": FORBIDDEN,
        },
        workload=replace(PIPELINE, mode="transactional"),
        checks=(fenced(transformer(1), "the zombie learns it was fenced, and stops"),),
    ),
    sides_together=True,  # faults hit each side's own apps only
)
