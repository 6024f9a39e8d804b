"""B13 — at-most-once: the app commits its input offsets before it writes the outputs, and crashes in between.

The delivery-semantics seed's first case. An app that records how far it read *before* it
acts on what it read is at-most-once: it reads a batch, commits the consumer group's
offsets past it, then writes one output per input. Killed (SIGKILL) between the commit and
the outputs, it restarts at the committed offsets, after the batch: those inputs are never
processed, and nothing tells anyone. The at-least-once order commits only once the outputs
are written (acknowledged): killed between the two, the restarted app reads the batch
again, so an input may get two outputs but never none.

Fault: SIGKILL the app three times (4 s, 14 s, 24 s in, each once it is between a batch's
two steps, ``BatchInHand``: offsets committed and outputs not yet written in the control,
outputs written and offsets not yet committed in the guarantee; each side spends 1 s of
every batch there), restarting it a second later.
Control (``at_most_once``: commit, then produce): inputs with no output (``eos_missing``).
Guarantee (``plain``: produce, flush, then commit): no input without an output; inputs with
two outputs are allowed (at-least-once's price; B1 shows transactions removing them).
Both sides run the same app, on librdkafka or, with ``--client java``, on Kafka's Java client.
"""

from dataclasses import replace

from harness.faults import App, Step, kill
from harness.scenario import Scenario, Variant
from harness.verdict.document import ALLOWED, FORBIDDEN, REQUIRED
from harness.workloads.apps.transformer import AT_MOST_ONCE, PLAIN
from harness.workloads.pipeline import BatchInHand, PipelineWorkload, transformer

# Apart by more than a restart takes: joining the group waits for the dead member's
# session (6 s) to expire.
KILLS_AT_S = (4.0, 14.0, 24.0)
APP = transformer(1)

PIPELINE = PipelineWorkload(
    inputs=2000,
    partitions=3,
    batch_size=50,
    # The window between a batch's two steps: longer than a condition's 0.5 s poll, so the
    # kill finds the app in it.
    pause_before_commit_ms=1000,
)

SCENARIO = Scenario(
    id="B13",
    title="at-most-once: offsets committed before the outputs; a crash in between loses the batch",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=tuple(Step(at_s=at, fault=kill(App(APP)), duration_s=1.0, when=BatchInHand(APP)) for at in KILLS_AT_S),
    control=Variant("control", {}, expect={"eos_missing": REQUIRED}, workload=replace(PIPELINE, mode=AT_MOST_ONCE)),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"eos_missing": FORBIDDEN, "lost": FORBIDDEN, "eos_repeated": ALLOWED},
        workload=replace(PIPELINE, mode=PLAIN),
    ),
    sides_together=True,  # faults hit each side's own app only
)
