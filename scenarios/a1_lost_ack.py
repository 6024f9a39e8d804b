"""A1 — the ack is lost after the write was replicated, and the producer retries.

The leader appends the batch and every in-sync follower copies it, so it is committed.
The response never reaches the producer: its link from the leader swallows every byte.
The request times out and the producer sends the same batch again once the link heals.
Without idempotence the broker cannot tell the retry from new data and stores it twice.
With idempotence the retry carries the same producer id and sequence numbers, the
leader recognises them and acknowledges without writing again.

Fault: once the leader has acknowledged 300 records (and not before 3 s), blackhole the
broker->client direction of the partition leader's client link for longer than the
producer's request timeout (socket.timeout.ms), then heal.
Control (idempotence off, acks=all, retries on): duplicates must appear.
Guarantee (idempotence on): no duplicates and no acknowledged record lost.
"""

from harness.faults import MAIN, OWN_LINKS, AppSent, Leader, Step, blackhole
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import PRODUCER, ProducerWorkload

REQUEST_TIMEOUT_MS = 2500  # the producer gives up on a request after this ...
BLACKHOLE_S = 6.0  # ... so the responses must stay away longer than that.

SCENARIO = Scenario(
    id="A1",
    title="lost ack after a replicated write: the retry duplicates without idempotence",
    story=__doc__ or "",
    workload=ProducerWorkload(
        own_links=True,  # the fault on its links reaches this side's producer alone
        count=3000,
        rate_per_s=250,
        config={
            "acks": "all",
            # Batches of about a dozen records: what the requests in flight when the acks
            # vanish carry is what gets written twice. The Java client keeps only five in
            # flight, so with 1-record batches its control showed 0-24 duplicates.
            "linger.ms": 50,
            "socket.timeout.ms": REQUEST_TIMEOUT_MS,
            # Far beyond the outage, so every record is retried rather than expired.
            "message.timeout.ms": 120_000,
        },
    ),
    schedule=(
        Step(
            at_s=3.0,
            fault=blackhole(Leader(MAIN), listener=OWN_LINKS, direction="from_broker"),
            duration_s=BLACKHOLE_S,
            # Not before the leader acknowledges the producer's writes: a JVM that starts slowly
            # on a busy machine met a blackhole that was there before its first request, so
            # nothing was in flight to be written and retried (A1-java's control once saw no
            # duplicate that way).
            when=AppSent(PRODUCER, 300, acknowledged=True),
        ),
    ),
    sides_together=True,  # each side's faults hit its own links and its own app
    control=Variant(
        "control",
        {"enable.idempotence": False, "retries": 2_147_483_647},
        expect={"duplicate": REQUIRED},
    ),
    guarantee=Variant(
        "guarantee",
        {"enable.idempotence": True},
        expect={"duplicate": FORBIDDEN, "lost": FORBIDDEN, "phantom": FORBIDDEN},
    ),
)
