"""A6 — the old leader comes back, rebuilds its producer state, and leads again.

A broker that restarts after a crash rebuilds what it knows of each idempotent producer
(last sequence numbers and epoch) from its producer-state snapshot and the log after it.
The partition leader's responses stop reaching the producer, and a second later it is
killed (SIGKILL) with batches replicated but unacknowledged; it restarts, catches up,
and then leadership moves back to it (a preferred leader election, as an operator or the
auto-rebalancer does). If the rebuilt state were wrong, the producer's next batches would
be rejected or stored twice. Without idempotence there is nothing to rebuild: the batches
resent around the two leader changes are stored again.

Fault: blackhole the leader's responses, kill -9 it a second later, restart it 6 s after
that, and once it is back in the ISR elect it leader again.
Control (A1's control: idempotence off, acks=all, retries on): duplicates.
Guarantee (idempotence on): no duplicate, no loss, order kept across both changes.
"""

from harness.faults import MAIN, Isr, Leader, Step, blackhole, elect_preferred, kill
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN
from harness.workloads.producer import ProducerWorkload
from scenarios.a1_lost_ack import SCENARIO as A1

SCENARIO = Scenario(
    id="A6",
    title="old leader restarts and leads again: producer state rebuilt from snapshot and log",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=8000,
        rate_per_s=500,
        # socket.timeout.ms: give up on the silent connection soon after the leader is gone.
        config={"acks": "all", "linger.ms": 5, "socket.timeout.ms": 5000, "message.timeout.ms": 120_000},
    ),
    schedule=(
        Step(at_s=2.0, fault=blackhole(Leader(MAIN), direction="from_broker"), duration_s=1.5),
        Step(at_s=3.0, fault=kill(Leader(MAIN)), duration_s=6.0),
        Step(at_s=10.0, fault=elect_preferred(MAIN), when=Isr(MAIN, 0, at_least=3)),
    ),
    control=A1.control,
    guarantee=Variant(
        "guarantee",
        {"enable.idempotence": True},
        expect={"duplicate": FORBIDDEN, "lost": FORBIDDEN, "order": FORBIDDEN, "phantom": FORBIDDEN},
    ),
)
