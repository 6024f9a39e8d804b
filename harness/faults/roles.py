"""Fault targets as roles ("the leader of the input topic's partition 0", "the app producer-1"),
resolved to concrete brokers only when a fault fires, as in Jepsen. A role names a topic,
transactional.id or group by its part of the run's plan (``harness.faults.plan``: ``INPUT``,
``TransactionalId("producer-1")``) or by a literal name; a schedule is bound to the run's
names when it starts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.faults.plan import GroupId, Topic, TransactionalId, named

if TYPE_CHECKING:
    from harness.cluster.kafka import KafkaCluster


@dataclass(frozen=True)
class Node:
    """A fixed broker by node id."""

    node_id: int

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return [self.node_id]

    def __str__(self) -> str:
        return f"broker {self.node_id}"


@dataclass(frozen=True)
class Brokers:
    """Every broker: with listener OWN_LINKS, every link of the apps that have their own."""

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return sorted(cluster.brokers)

    def __str__(self) -> str:
        return "every broker"


@dataclass(frozen=True)
class Leader:
    """The broker leading a partition when the fault fires."""

    topic: str | Topic
    partition: int = 0

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return [cluster.wait_for_leader(named(self.topic), self.partition, timeout_s=30)]

    def __str__(self) -> str:
        return f"leader of {self.topic}-{self.partition}"


@dataclass(frozen=True)
class Followers:
    """Every replica of a partition except its leader, when the fault fires."""

    topic: str | Topic
    partition: int = 0

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        leader = cluster.wait_for_leader(named(self.topic), self.partition, timeout_s=30)
        return [r for r in sorted(cluster.partition(named(self.topic), self.partition).replicas) if r != leader]

    def __str__(self) -> str:
        return f"followers of {self.topic}-{self.partition}"


@dataclass(frozen=True)
class Replicas:
    """Every replica of a partition (the target of a leader election)."""

    topic: str | Topic
    partition: int = 0

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return sorted(cluster.partition(named(self.topic), self.partition).replicas)

    def __str__(self) -> str:
        return f"replicas of {self.topic}-{self.partition}"


@dataclass(frozen=True)
class TxnCoordinator:
    """The broker coordinating a transactional.id: the leader of its ``__transaction_state``
    partition, which Kafka picks as abs(Java hashCode of the id) mod the partition count."""

    transactional_id: str | TransactionalId

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        partitions = int(cluster.broker_settings["transaction.state.log.num.partitions"])
        return [
            cluster.wait_for_leader(
                "__transaction_state", java_hash(named(self.transactional_id)) % partitions, timeout_s=30
            )
        ]

    def __str__(self) -> str:
        return f"transaction coordinator of {self.transactional_id}"


@dataclass(frozen=True)
class GroupCoordinator:
    """The broker coordinating a consumer group: the leader of its ``__consumer_offsets``
    partition, which Kafka picks as abs(Java hashCode of the group id) mod the partition count."""

    group_id: str | GroupId

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        partitions = int(cluster.broker_settings["offsets.topic.num.partitions"])
        return [
            cluster.wait_for_leader("__consumer_offsets", java_hash(named(self.group_id)) % partitions, timeout_s=30)
        ]

    def __str__(self) -> str:
        return f"group coordinator of {self.group_id}"


def java_hash(text: str) -> int:
    """Java's String.hashCode, made non-negative the way Kafka's Utils.abs does
    (absolute value, and 0 for Integer.MIN_VALUE)."""
    h = 0
    for unit in text.encode("utf-16-be").hex(" ", 2).split():
        h = (31 * h + int(unit, 16)) & 0xFFFFFFFF
    signed = h - (1 << 32) if h >= 1 << 31 else h
    return 0 if signed == -(1 << 31) else abs(signed)


def key_partition(key: str, partitions: int) -> int:
    """The partition Kafka's Java producer sends a record with ``key`` to (its default
    partitioner: the positive part of murmur2 of the key's bytes, mod the partition count)."""
    data = key.encode()
    m, h = 0x5BD1E995, (0x9747B28C ^ len(data)) & 0xFFFFFFFF
    whole = len(data) - len(data) % 4
    for i in range(0, whole, 4):
        k = int.from_bytes(data[i : i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> 24
        k = (k * m) & 0xFFFFFFFF
        h = ((h * m) & 0xFFFFFFFF) ^ k
    tail = data[whole:]
    if tail:
        h ^= int.from_bytes(tail, "little")
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return (h & 0x7FFFFFFF) % partitions


@dataclass(frozen=True)
class Controller:
    """The active KRaft controller (the quorum's leader) when the fault fires."""

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return [cluster.active_controller()]

    def __str__(self) -> str:
        return "active controller"


@dataclass(frozen=True)
class App:
    """A workload process of the run, by the name the runner registered it under."""

    name: str

    def resolve(self, cluster: KafkaCluster) -> list[int]:
        return []

    def __str__(self) -> str:
        return f"app {self.name}"


Target = Node | Brokers | Leader | Followers | Replicas | TxnCoordinator | GroupCoordinator | Controller | App
