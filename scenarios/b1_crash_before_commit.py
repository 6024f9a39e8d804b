"""B1 — consume-transform-produce: the app crashes after writing its output, before committing its input offsets.

The app reads a batch, writes one output per input, and then records how far it read by
committing the consumer group's offsets. Killed (SIGKILL) between the two, it restarts at
the last committed offset and processes the batch again: its outputs are written twice.
With transactions the outputs and the input offsets are one unit: produce inside a
transaction, add the offsets with ``send_offsets_to_transaction`` (with the consumer's
group metadata), commit. Killed in between, the restarted app's ``init_transactions``
aborts the unfinished transaction, its outputs never become visible to a
``read_committed`` consumer, and the offsets were never committed: each input is
processed into exactly one visible output.

Fault: SIGKILL the app three times, each while it is between producing a batch and
committing it (the app spends most of its time there), restarting it a second later.
Control (plain: produce, flush, then commit offsets): some inputs have two or more outputs.
Guarantee (transactional, downstream read_committed): every input has exactly one output.
"""

from dataclasses import replace

from harness.faults import App, Step, kill
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import PipelineWorkload, transformer

# Apart by more than a restart takes: joining the group waits for the dead member's
# session (6 s) to expire.
KILLS_AT_S = (4.0, 14.0, 24.0)

PIPELINE = PipelineWorkload(
    inputs=4000,
    partitions=3,
    batch_size=50,
    # The crash window: output written, offsets not yet committed.
    pause_before_commit_ms=150,
)

SCENARIO = Scenario(
    id="B1",
    title="app crashes between producing and committing offsets: reprocessed input repeats its output",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=lambda topic: [Step(at_s=at, fault=kill(App(transformer(1))), duration_s=1.0) for at in KILLS_AT_S],
    control=Variant("control", {}, expect={"eos_repeated": REQUIRED}, workload=replace(PIPELINE, mode="plain")),
    guarantee=Variant(
        "guarantee",
        {},
        expect={
            "eos_repeated": FORBIDDEN,
            "eos_missing": FORBIDDEN,
            "duplicate": FORBIDDEN,
            "aborted_read": FORBIDDEN,
            "lost": FORBIDDEN,
        },
        workload=replace(PIPELINE, mode="transactional"),
    ),
    sides_together=True,  # faults hit each side's own app only
)
