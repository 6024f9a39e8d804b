"""Who leads: a partition's leader and in-sync replicas, waits for them to change, preferred
leader elections, the KRaft quorum's leader. Mixed into ``KafkaCluster``, whose ``admin``
client and ``brokers`` it asks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from confluent_kafka import ElectionType, KafkaError, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient

from harness.cluster.broker import Broker
from harness.errors import HarnessError
from harness.waits import Deadline, wait_until

# Where each KRaft node keeps what it knows of the quorum (its leader among it).
_QUORUM_STATE = "/var/lib/kafka/data/__cluster_metadata-0/quorum-state"


class Leadership:
    # What the cluster it is mixed into provides.
    admin: Callable[[], AdminClient]
    brokers: dict[int, Broker]

    def partition(self, topic: str, partition: int) -> Any:
        """The partition's metadata. A topic just created may still be unknown to the broker asked
        (metadata reaches the brokers a moment after the create returns): that one error is asked
        again for up to 10 s; any other is raised at once, as the callers' own waits expect."""
        deadline = Deadline(10.0)
        while True:
            t = self.admin().list_topics(topic=topic, timeout=5).topics[topic]
            if t.error is None:
                return t.partitions[partition]
            if t.error.code() != KafkaError.UNKNOWN_TOPIC_OR_PART or deadline.expired():
                raise KafkaException(t.error)
            time.sleep(0.2)

    def leader(self, topic: str, partition: int = 0) -> int:
        return int(self.partition(topic, partition).leader)

    def isr(self, topic: str, partition: int = 0) -> list[int]:
        return sorted(self.partition(topic, partition).isrs)

    def wait_for_isr(self, topic: str, partition: int, size: int, timeout_s: float = 60) -> list[int]:
        return wait_until(
            lambda: self.isr(topic, partition),
            lambda isr: len(isr) >= size,
            timeout_s,
            f"{topic}-{partition} to have {size} in-sync replicas",
        )

    def wait_for_isr_at_most(self, topic: str, partition: int, size: int, timeout_s: float = 60) -> list[int]:
        return wait_until(
            lambda: self.isr(topic, partition),
            lambda isr: len(isr) <= size,
            timeout_s,
            f"{topic}-{partition} to shrink to {size} in-sync replica(s)",
        )

    def wait_for_leader(self, topic: str, partition: int = 0, not_on: int | None = None, timeout_s: float = 60) -> int:
        what = f"{topic}-{partition} to have a leader" + (f" other than broker {not_on}" if not_on else "")
        return wait_until(
            lambda: self.leader(topic, partition), lambda lead: lead > 0 and lead != not_on, timeout_s, what
        )

    def elect_preferred_leader(self, topic: str, partition: int = 0, timeout_s: float = 30) -> None:
        """Make the first replica the leader again; it must be in the ISR by then."""

        def elect() -> KafkaError | None:
            future = self.admin().elect_leaders(ElectionType.PREFERRED, [TopicPartition(topic, partition)])
            failure = next(iter(future.result(timeout_s).values()), None)
            err = failure.args[0] if isinstance(failure, KafkaException) else failure
            # ELECTION_NOT_NEEDED: it already leads, which is what was asked for.
            return None if err is None or err.code() == KafkaError.ELECTION_NOT_NEEDED else err

        # Just back in the ISR, the replica may not count as available to the controller
        # yet (seen in CI for A6): PREFERRED_LEADER_NOT_AVAILABLE is asked again.
        err = wait_until(
            elect,
            lambda e: e is None or e.code() != KafkaError.PREFERRED_LEADER_NOT_AVAILABLE,
            timeout_s,
            f"a preferred leader election for {topic}-{partition}",
            interval_s=1.0,
        )
        if err is not None:
            raise HarnessError(f"preferred leader election for {topic}-{partition} failed: {err.str()}")

    def active_controller(self, timeout_s: float = 30) -> int:
        """The node leading the KRaft quorum: what the running nodes' ``quorum-state`` files say
        (no Kafka API tells a client: brokers answer DescribeCluster with any broker)."""

        def leader() -> int:
            for broker in self.brokers.values():
                container = broker.docker()
                container.reload()
                if container.status != "running":
                    continue
                code, out = container.exec_run(["cat", _QUORUM_STATE])
                if code == 0:
                    return int(json.loads(out)["leaderId"])
            return -1

        return wait_until(leader, lambda node: node > 0, timeout_s, "a KRaft quorum leader")
