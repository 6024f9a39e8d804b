"""A3 — unclean leader election: an out-of-sync follower becomes leader and acked writes vanish.

The followers stop fetching (their replication link to the leader is cut), fall behind,
and leave the ISR; the leader carries on alone. With ``acks=1`` it acknowledges every
write it appends, replicated or not. Then the leader dies (SIGKILL). With unclean
election allowed, the controller makes a follower leader although it lacks everything
written since the cut: those acknowledged records are gone, and when the old leader
returns it truncates its log to match. With ``acks=all``, ``min.insync.replicas=2`` and
unclean election off, the leader refuses writes once it is alone in the ISR, and no
out-of-sync replica may lead: the partition is unavailable until the old leader is back,
and nothing acknowledged is lost. The producer sees that as timeouts, reported as
unavailability, not as loss.

Fault: cut the leader's replication listener (the followers' fetches), wait until the ISR
is the leader alone, kill -9 the leader for 15 s (longer than the controller takes to
fence it and elect), then heal.
Control (acks=1, unclean election on): acknowledged records lost.
Guarantee (acks=all, idempotence, min.insync.replicas=2, unclean election off): none lost.
"""

from harness.faults import MAIN, Isr, Leader, Step, cut, kill
from harness.scenario import Scenario, Variant
from harness.verdict.checks import lost_were_acknowledged, outage_is_unavailability
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import PRODUCER, ProducerWorkload

SCENARIO = Scenario(
    id="A3",
    title="unclean leader election: acknowledged writes of an out-of-sync leader are lost",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=4000,
        rate_per_s=200,  # 20 s: still sending when the leader dies
        config={"linger.ms": 5, "message.timeout.ms": 15_000},
    ),
    schedule=(
        Step(at_s=1.0, fault=cut(Leader(MAIN), listener="replication")),
        Step(at_s=2.0, fault=kill(Leader(MAIN)), duration_s=15.0, when=Isr(MAIN, 0, at_most=1)),
    ),
    control=Variant(
        "control",
        {"acks": 1, "enable.idempotence": False},
        expect={"lost": REQUIRED},
        topic_config={"unclean.leader.election.enable": "true", "min.insync.replicas": "1"},
        checks=(lost_were_acknowledged("the lost records are ones the leader had acknowledged: acks=1 lets it"),),
    ),
    guarantee=Variant(
        "guarantee",
        {"acks": "all", "enable.idempotence": True},
        expect={"lost": FORBIDDEN, "duplicate": FORBIDDEN, "phantom": FORBIDDEN},
        topic_config={"unclean.leader.election.enable": "false", "min.insync.replicas": "2"},
        checks=(outage_is_unavailability(PRODUCER, "the same outage must surface as timeouts, never as loss"),),
    ),
)
