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

Fault: three times, the app's next commit of its input offsets is swallowed on the wire
(the plain app's ``OffsetCommit``, the transactional app's ``AddOffsetsToTxn`` or
``TxnOffsetCommit``, recognised by its group id) and the app is SIGKILLed while it waits for
the answer, restarted a second later (``crash_at_commit``): the fault makes the window instead
of waiting for the moment it is open.
Control (plain: produce, flush, then commit offsets): some inputs have two or more outputs.
Guarantee (transactional, downstream read_committed): every input has exactly one output.
"""

from dataclasses import replace

from harness.faults import App, Step, crash_at_commit
from harness.scenario import Scenario, Variant
from harness.verdict.checks import caught_at_commit
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import PipelineWorkload, transformer

WINDOWS = 3
# Each side's app, caught three times in its commit window, then left to finish its input.
CAUGHT = caught_at_commit(transformer(1), WINDOWS, "each kill found outputs written and their offsets uncommitted")

PIPELINE = PipelineWorkload(
    inputs=4000,
    partitions=3,
    batch_size=50,
    # Between writing a batch and committing it: a user's app may pause here too, or not.
    pause_before_commit_ms=150,
)

SCENARIO = Scenario(
    id="B1",
    title="app crashes between producing and committing offsets: reprocessed input repeats its output",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=(Step(0.0, crash_at_commit(App(transformer(1)), after=2, times=WINDOWS), duration_s=240),),
    control=Variant(
        "control", {}, expect={"eos_repeated": REQUIRED}, workload=replace(PIPELINE, mode="plain"), checks=(CAUGHT,)
    ),
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
        checks=(CAUGHT,),
    ),
    sides_together=True,  # faults hit each side's own app only
)
