"""B2b — a zombie app wakes up after a rebalance; the consumer group's metadata fences it (KIP-447).

Two app instances share the input partitions, each with its own ``transactional.id``, as
apps written since Kafka 2.5 do. One stalls (SIGSTOP) mid-batch; the group drops it and
the other instance takes over its partitions. Without transactions the survivor
reprocesses the stalled instance's unfinished batch, and the zombie, once awake, writes
it again. With transactions the offsets travel inside the transaction together with the
consumer's group metadata (generation and member id): the zombie's offsets are refused
once the generation moved on, so its transaction aborts; and the survivor, reading
offsets that a pending transaction is still changing, waits until that transaction ends
instead of reading stale ones. Each input ends up with exactly one visible output.

Fault: once one of two instances is mid-stream (300 outputs sent) and holds a batch it has
not committed, SIGSTOP it for 15 s (past its 6 s session timeout), then SIGCONT.
Control (plain apps): inputs processed twice.
Guarantee (transactional, distinct transactional.ids, offsets with group metadata):
exactly one output per input.
"""

from dataclasses import replace

from harness.faults import App, Step, pause
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import BatchUncommitted, PipelineWorkload, transformer

STALL_S = 15.0  # longer than the consumer's session timeout (6 s) plus a rebalance

PIPELINE = PipelineWorkload(inputs=4000, partitions=4, instances=2, batch_size=50, pause_before_commit_ms=150)

SCENARIO = Scenario(
    id="B2b",
    title="zombie app after a rebalance: fenced through the consumer group metadata (KIP-447)",
    story=__doc__ or "",
    workload=PIPELINE,
    # Not at a fixed time, nor at a count of sends alone: the stall must find a batch in hand.
    schedule=(
        Step(
            at_s=0.0,
            fault=pause(App(transformer(1))),
            duration_s=STALL_S,
            when=BatchUncommitted(transformer(1), after=300),
        ),
    ),
    control=Variant("control", {}, expect={"eos_repeated": REQUIRED}, workload=replace(PIPELINE, mode="plain")),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"eos_repeated": FORBIDDEN, "eos_missing": FORBIDDEN, "duplicate": FORBIDDEN, "aborted_read": FORBIDDEN},
        workload=replace(PIPELINE, mode="transactional"),
    ),
    sides_together=True,  # faults hit each side's own apps only
)
