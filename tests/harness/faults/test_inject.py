"""Each fault kind demonstrably takes effect on a real cluster, and healing undoes it.

The probe is one produce of one record to a single-partition topic whose leader is the
fault's target (a role resolved when the fault fires), timed from a fresh producer.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import OffsetSpec

from harness import faults as f
from harness.cluster.kafka import KafkaCluster
from harness.faults import Faults, FaultSpec, Leader, Node, Target
from harness.waits import poll_until

PROBE_TIMEOUT_S = 5.0


def produce_once(cluster: KafkaCluster, topic: str, size: int = 100, acks: str = "all") -> float:
    """Seconds until one record is acknowledged; raises if it is not within the timeout."""
    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap_servers(),
            "acks": acks,
            "message.timeout.ms": int(PROBE_TIMEOUT_S * 1000),
            "socket.timeout.ms": int(PROBE_TIMEOUT_S * 1000),
            "message.max.bytes": 2_000_000,
        }
    )
    errors: list[str] = []
    started = time.monotonic()
    try:
        producer.produce(topic, b"x" * size, on_delivery=lambda err, msg: err and errors.append(err.name()))
        left = producer.flush(PROBE_TIMEOUT_S + 2)
    finally:
        producer.close()
    elapsed = time.monotonic() - started
    if left or errors:
        raise RuntimeError(f"produce failed after {elapsed:.1f}s: {errors or 'not delivered'}")
    return elapsed


def probe_fails(cluster: KafkaCluster, topic: str, size: int = 100) -> bool:
    try:
        produce_once(cluster, topic, size)
    except RuntimeError:
        return True
    return False


# (fault, probe size, effect to check) for every link fault kind.
LINK_CASES = {
    "latency": (lambda t: f.latency(Leader(t), ms=600), 100, lambda c, t, s: produce_once(c, t, s) >= 1.2),
    "blackhole": (lambda t: f.blackhole(Leader(t), direction="from_broker"), 100, probe_fails),
    "reset_peer": (lambda t: f.reset_peer(Leader(t)), 100, probe_fails),
    "limit_data": (lambda t: f.limit_data(Leader(t), max_bytes=1), 100, probe_fails),
    "bandwidth": (
        lambda t: f.bandwidth(Leader(t), kb_per_s=64, direction="to_broker"),
        256_000,
        lambda c, t, s: produce_once(c, t, s) >= 2.0,
    ),
    "slicer": (
        lambda t: f.slicer(Leader(t), average_size=64, size_variation=0, delay_us=20_000, direction="to_broker"),
        6_400,
        lambda c, t, s: produce_once(c, t, s) >= 1.0,
    ),
    "cut": (lambda t: f.cut(Leader(t), "client"), 100, probe_fails),
}


@pytest.mark.parametrize("kind", sorted(LINK_CASES))
def test_link_fault_takes_effect_and_heals(cluster: KafkaCluster, topic: str, kind: str) -> None:
    make, size, effect = LINK_CASES[kind]
    assert produce_once(cluster, topic, size) < 2.0, "the link must be healthy before the fault"
    faults = Faults(cluster)
    injected = faults.inject(make(topic))
    try:
        assert effect(cluster, topic, size), f"{kind} had no visible effect"
    finally:
        faults.heal_all()
    assert injected.healed_at is not None
    assert produce_once(cluster, topic, size) < 3.0, f"{kind}: healing did not restore the link"


def test_cut_replication_link_pushes_followers_out_of_isr(cluster: KafkaCluster, topic: str) -> None:
    leader = cluster.leader(topic)
    faults = Faults(cluster)
    faults.inject(f.cut(Leader(topic), "replication"))
    try:
        # A follower whose log ends where the leader's does counts as caught up however long it
        # has not fetched (Replica.isCaughtUp), so the leader must get ahead of the cut followers.
        produce_once(cluster, topic, acks="1")
        cluster.wait_for_isr_at_most(topic, 0, 1, timeout_s=40)
        assert cluster.isr(topic) == [leader]
    finally:
        faults.heal_all()
    cluster.wait_for_isr(topic, 0, 3, timeout_s=60)


@pytest.mark.parametrize("make", [f.kill, f.stop, f.pause], ids=lambda make: make.__name__)
def test_process_fault_moves_leadership_and_heals(
    cluster: KafkaCluster, topic: str, make: Callable[[Target], FaultSpec]
) -> None:
    leader = cluster.leader(topic)
    faults = Faults(cluster)
    injected = faults.inject(make(Leader(topic)))
    try:
        assert injected.brokers == [leader]
        new_leader = cluster.wait_for_leader(topic, not_on=leader, timeout_s=60)
        assert new_leader != leader
        produce_once(cluster, topic)  # the partition is writable again on the new leader
    finally:
        faults.heal_all()
    assert cluster.registered_brokers() == [1, 2, 3]
    cluster.wait_for_isr(topic, 0, 3, timeout_s=90)


@pytest.mark.parametrize("second", [f.kill, f.pause], ids=lambda make: make.__name__)
def test_a_process_fault_on_a_broker_already_down_leaves_it_to_the_first(
    cluster: KafkaCluster, topic: str, second: Callable[[Target], FaultSpec]
) -> None:
    """Two drawn steps may overlap on one broker: Docker refuses to kill or pause a container that
    is not running, so the second leaves it to the first, whose heal brings it back."""
    leader = cluster.leader(topic)
    faults = Faults(cluster)
    faults.inject(f.kill(Node(leader)))
    try:
        assert faults.inject(second(Node(leader))).brokers == [leader]
    finally:
        faults.heal_all()
    assert cluster.registered_brokers() == [1, 2, 3]
    cluster.wait_for_isr(topic, 0, 3, timeout_s=90)


def test_restart_brings_the_broker_back_in_sync(cluster: KafkaCluster, topic: str) -> None:
    faults = Faults(cluster)
    faults.inject(f.restart(Leader(topic)))
    faults.heal_all()
    assert cluster.registered_brokers() == [1, 2, 3]
    cluster.wait_for_isr(topic, 0, 3, timeout_s=90)


def test_a_fault_on_own_links_lands_on_the_sides_own_listener(cluster: KafkaCluster) -> None:
    """Two sides of a pair run at once each have their own-link listener: a blackhole one
    side aims at OWN_LINKS reaches only its listener's proxies, and only it heals them."""
    api = cluster.proxies
    assert api is not None
    first, second = Faults(cluster, own_links="client2"), Faults(cluster, own_links="client3")
    injected = second.inject(f.blackhole(f.Brokers(), listener=f.OWN_LINKS))
    try:
        assert injected.spec.listeners == ("client3",)
        for node_id in (1, 2, 3):
            assert api.toxics(cluster.proxy_name(node_id, "client3"))
            assert not api.toxics(cluster.proxy_name(node_id, "client2"))
        first.heal_all()  # the other side's sweep leaves this side's faults alone
        assert all(api.toxics(cluster.proxy_name(node_id, "client3")) for node_id in (1, 2, 3))
    finally:
        second.heal_all()
    assert not any(api.toxics(cluster.proxy_name(node_id, "client3")) for node_id in (1, 2, 3))


LATE_MS = 6000
LATE_ATTEMPTS = 5


def test_bytes_sent_before_the_client_gave_up_still_arrive_late(cluster: KafkaCluster, topic: str) -> None:
    """What B9 builds on: a request held by a latency toxic is not lost when its client times
    out and closes the connection; it reaches the broker once its delay has passed. The
    client's timeouts leave a busy machine time to send the request before giving up on it,
    and the record is waited for, not given a fixed time."""
    producer = Producer(
        {
            "bootstrap.servers": cluster.bootstrap_servers(),
            "enable.idempotence": False,
            "retries": 0,
            "socket.timeout.ms": 1500,
            "message.timeout.ms": 3000,
        }
    )
    partition = TopicPartition(topic, 0)

    def end() -> int:
        return cluster.admin().list_offsets({partition: OffsetSpec.latest()})[partition].result(10).offset

    try:
        # On a loaded machine nothing may be late: the proxy may not have read a request off the
        # client's socket before the client gives up and resets it, or the send is answered in
        # time after all (seen once at load 35-45). Sent again until one send fails at the client.
        for _ in range(LATE_ATTEMPTS):
            # A live connection first (and the leader learnt): after an attempt the client
            # reconnects, and a send made while the toxic holds its new connection's handshake
            # never leaves the client, so nothing of it can be late (seen at load 30).
            producer.produce(topic, b"x")
            assert producer.flush(30) == 0
            written = end()
            faults = Faults(cluster)
            faults.inject(f.latency(Leader(topic), ms=LATE_MS, direction="to_broker"))
            try:
                errors: list[str] = []
                producer.produce(
                    topic, b"late", on_delivery=lambda err, msg, seen=errors: err and seen.append(err.name())
                )
                producer.flush(30)
                if errors:
                    time.sleep(LATE_MS / 1000 + 1)  # its delay passes, the toxic still in place
            finally:
                faults.heal_all()
            if not errors:  # delivered in time: nothing was late, so this send proves nothing
                continue
            # Read once the link is healed (the leader's link is slow until then); waited for, not
            # timed: a busy machine appends it late.
            arrived = poll_until(end, lambda n, before=written: n > before, 60, interval_s=0.5)
            if arrived.done:
                return
        pytest.fail(f"no record whose send failed was written after all, in {LATE_ATTEMPTS} sends")
    finally:
        producer.close()  # not left to a failed test's traceback, which outlives the cluster
