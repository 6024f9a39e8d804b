"""ACLs on a secured cluster, and the barrier that makes sure every broker applies them (and
any metadata committed before) before a client counts on them. Mixed into ``KafkaCluster``."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from harness.cluster import security
from harness.cluster.broker import Broker
from harness.errors import HarnessError


class Acls:
    # What the cluster it is mixed into provides.
    admin: Callable[[], AdminClient]
    brokers: dict[int, Broker]
    secured: bool
    _create: Callable[[NewTopic, float], None]
    _own_client: Callable[[dict[str, Any]], dict[str, Any]]

    def allow(self, grants: list[security.Grant], names: dict[security.Resource, list[str]]) -> None:
        """Create the ACLs of ``grants`` on the resources ``names`` (secured clusters only)."""
        if not grants:
            return
        if not self.secured:
            raise HarnessError("ACLs need a secured cluster: client_security SASL_PLAINTEXT")
        bindings = [b for grant in grants for b in grant.bindings(names)]
        for binding, future in self.admin().create_acls(bindings, request_timeout=30).items():
            try:
                future.result(30)
            except KafkaException as exc:
                raise HarnessError(f"cannot create ACL {binding}: {exc.args[0].str()}") from exc
        self.wait_metadata_applied()

    def wait_metadata_applied(self, timeout_s: float = 60) -> None:
        """Until every broker has applied the metadata committed so far. The controller commits
        an ACL before a broker applies it, seconds before under load (CI saw a transactional.id
        refused by two brokers 3 s after its grant): a topic with one partition on each broker is
        made next, and a broker takes a record for its partition only once it has applied that
        topic, so every record before it too."""
        brokers = sorted(self.brokers)
        name = f"__harness_barrier_{uuid.uuid4().hex[:8]}"
        self._create(NewTopic(name, len(brokers), replica_assignment=[[b] for b in brokers]), timeout_s)
        producer = Producer(
            self._own_client(
                {
                    "acks": 1,  # the leader's taking it is the proof; the topic has one replica anyway
                    "message.timeout.ms": int(timeout_s * 1000),
                }
            )
        )
        refused: list[str] = []

        def delivered(err: KafkaError | None, _: object) -> None:
            if err is not None:
                refused.append(err.str())

        try:
            for p in range(len(brokers)):
                producer.produce(name, b"", partition=p, on_delivery=delivered)
            if producer.flush(timeout_s) or refused:
                raise HarnessError(f"brokers did not apply the cluster's metadata within {timeout_s:g} s: {refused}")
        finally:
            producer.close()  # not left to a traceback that outlives the cluster
        self.admin().delete_topics([name])
