"""A2 — five batches in flight, a flaky link, and retries that land out of order.

With ``max.in.flight.requests.per.connection=5`` the producer keeps five requests on the
wire. When the link resets mid-request, some of them were written and some were not; the
producer sends them all again. Without idempotence the broker appends whatever arrives:
batches that were written before the reset are written a second time, and a batch that
failed can land behind one that was sent after it. With idempotence every batch carries
its producer id and sequence; the leader answers a replayed batch as a duplicate and a
batch that skips ahead with OutOfOrderSequence, and the producer resends in order.

Fault: the leader's answers on the client link are slow and uneven (latency with jitter),
the link is sliced into small pieces and reset every few seconds, for most of the run.
Control (idempotence off, in-flight 5, retries on): duplicates or reordering.
Guarantee (idempotence on, in-flight 5): stored order is send order, nothing duplicated or lost.
"""

from harness.faults import MAIN, OWN_LINKS, Leader, Step, latency, reset_peer, slicer
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, ONE_OF
from harness.workloads.producer import ProducerWorkload

RESETS_EVERY_S = 2.5  # each reset tears down whatever five requests are in flight
RESETS = 6
# Only the answers are slow: the requests reach the leader and are written at once, so a
# reset finds up to five written batches whose acks are still on the way, all of which the
# producer sends again. With the delay both ways a reset caught requests not yet written, and
# the control's duplicates ranged 10-241 over 5 runs.
ACK_DELAY_MS = 80

SCENARIO = Scenario(
    id="A2",
    title="five in-flight batches over a resetting link: retries duplicate or reorder without idempotence",
    story=__doc__ or "",
    workload=ProducerWorkload(
        own_links=True,  # the fault on its links reaches this side's producer alone
        count=4000,
        rate_per_s=400,
        config={
            "acks": "all",
            "max.in.flight.requests.per.connection": 5,
            "linger.ms": 2,
            "batch.num.messages": 20,  # many small batches, so five are in flight at once
            "socket.timeout.ms": 3000,
            "message.timeout.ms": 120_000,
        },
    ),
    schedule=(
        Step(
            at_s=1.0,
            fault=latency(Leader(MAIN), listener=OWN_LINKS, direction="from_broker", ms=ACK_DELAY_MS, jitter_ms=40),
            duration_s=RESETS * RESETS_EVERY_S + 1,
        ),
        Step(
            at_s=1.0,
            fault=slicer(Leader(MAIN), listener=OWN_LINKS, average_size=256, size_variation=128, delay_us=200),
            duration_s=RESETS * RESETS_EVERY_S + 1,
        ),
        *[
            Step(
                at_s=2.0 + i * RESETS_EVERY_S,
                fault=reset_peer(Leader(MAIN), listener=OWN_LINKS, after_ms=0),
                duration_s=0.3,
            )
            for i in range(RESETS)
        ],
    ),
    sides_together=True,  # each side's faults hit its own links and its own app
    control=Variant(
        "control",
        {"enable.idempotence": False, "retries": 2_147_483_647},
        expect={"duplicate": ONE_OF, "order": ONE_OF},
    ),
    guarantee=Variant(
        "guarantee",
        {"enable.idempotence": True},
        expect={"duplicate": FORBIDDEN, "order": FORBIDDEN, "lost": FORBIDDEN, "phantom": FORBIDDEN},
    ),
)
