"""A5 — the partition leader dies mid-stream; the new leader already has the producer's last batches.

Followers copy each batch together with its producer id and sequence numbers, so every
in-sync replica knows the last five batches of every idempotent producer. The leader goes
bad: its responses stop reaching the producer, it keeps writing and replicating what
arrives, and a second later it dies (SIGKILL). Everything written in that second is
replicated but unacknowledged, and the producer resends it to the new leader. Without
idempotence the new leader appends it again. With it, the new leader recognises the
sequence numbers and acknowledges without writing, and the order carries on unbroken.

Fault: blackhole the leader's responses on its client link, kill -9 it a second later,
restart it 8 s after that.
Control (A1's control: idempotence off, acks=all, retries on): duplicates.
Guarantee (idempotence on): no duplicate, no loss, stored order is send order.
"""

from harness.faults import MAIN, Leader, Step, blackhole, kill
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN
from harness.workloads.producer import ProducerWorkload
from scenarios.a1_lost_ack import SCENARIO as A1

SCENARIO = Scenario(
    id="A5",
    title="leader failover mid-stream: the new leader deduplicates the resent batches",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=5000,
        rate_per_s=500,
        # socket.timeout.ms: give up on the silent connection soon after the leader is gone.
        config={"acks": "all", "linger.ms": 5, "socket.timeout.ms": 5000, "message.timeout.ms": 120_000},
    ),
    schedule=(
        Step(at_s=2.0, fault=blackhole(Leader(MAIN), direction="from_broker"), duration_s=1.5),
        Step(at_s=3.0, fault=kill(Leader(MAIN)), duration_s=8.0),
    ),
    control=A1.control,
    guarantee=Variant(
        "guarantee",
        {"enable.idempotence": True},
        expect={"duplicate": FORBIDDEN, "lost": FORBIDDEN, "order": FORBIDDEN, "phantom": FORBIDDEN},
    ),
)
