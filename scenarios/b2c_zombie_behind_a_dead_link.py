"""B2c — the zombie is made by the network: its links to every broker go silent.

The same story as B2b, but the app does not stall: its network does. Every byte between
one app instance and the brokers is swallowed (a blackhole on its own client links; the
other instance's links stay healthy). Its consumer stops heartbeating, the group hands
its partitions to the other instance, and when the links come back the cut-off instance
carries on with the batch it had in hand. Without transactions that batch is processed
twice. With transactions (distinct transactional.ids, offsets sent with the consumer's
group metadata) the zombie's offsets are refused or its transaction is aborted, and each
input keeps exactly one visible output.

Fault: once transformer-1 is mid-stream (500 outputs sent) and holds a batch it has not
committed, blackhole both directions of its client links to every broker for 15 s (past
its 6 s session timeout), then heal.
Control (plain apps): inputs processed twice.
Guarantee (transactional, KIP-447): exactly one output per input.
"""

from dataclasses import replace

from harness.faults import OWN_LINKS, Brokers, Step, blackhole
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import BatchUncommitted, PipelineWorkload, transformer

CUT_OFF_S = 15.0  # longer than the consumer's session timeout (6 s) plus a rebalance
# Requests lost in the blackhole are given up after this, rather than librdkafka's 60 s.
REQUEST_TIMEOUT_MS = 10_000

PIPELINE = PipelineWorkload(
    # Each instance has 1500 to do; the cut comes a third of the way through. After it
    # the survivor does the rest alone, and that is most of the pair's time.
    inputs=3000,
    partitions=4,
    instances=2,
    own_links=(1,),
    batch_size=50,
    # The cut waits for a batch in hand, but cutting every link takes a few toxiproxy calls;
    # a long window keeps the commit request from leaving meanwhile. (With 150 ms and no
    # such wait, 2 controls in 21 were cut just after a commit request left: the broker
    # applied it, only the answer was lost, and nothing was repeated.)
    pause_before_commit_ms=500,
    producer_config={"socket.timeout.ms": REQUEST_TIMEOUT_MS},
    consumer_config={"socket.timeout.ms": REQUEST_TIMEOUT_MS},
)

SCENARIO = Scenario(
    id="B2c",
    title="zombie app behind a dead network link: fenced through the group metadata",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=(
        # Mid-batch, not at a fixed time: a slow start (group still joining), or the moment
        # after a commit, would leave the cut-off instance nothing in hand to do twice.
        Step(
            at_s=0.0,
            fault=blackhole(Brokers(), listener=OWN_LINKS),
            duration_s=CUT_OFF_S,
            when=BatchUncommitted(transformer(1), after=500),
        ),
    ),
    control=Variant("control", {}, expect={"eos_repeated": REQUIRED}, workload=replace(PIPELINE, mode="plain")),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"eos_repeated": FORBIDDEN, "eos_missing": FORBIDDEN, "duplicate": FORBIDDEN, "aborted_read": FORBIDDEN},
        workload=replace(PIPELINE, mode="transactional"),
    ),
    sides_together=True,  # each side's instance has its own links to cut
)
