"""The cluster comes up healthy, reachable only on loopback, with every link proxied."""

from __future__ import annotations

import uuid

from confluent_kafka.admin import AdminClient

from harness.cluster.kafka import LISTENERS, PROBE_TOPIC, KafkaCluster
from harness.faults import TxnCoordinator


def test_three_brokers_registered_and_probe_topic_in_sync(cluster: KafkaCluster) -> None:
    assert cluster.registered_brokers() == [1, 2, 3]
    assert cluster.isr(PROBE_TOPIC) == [1, 2, 3]


def test_clients_only_ever_see_loopback_addresses(cluster: KafkaCluster) -> None:
    assert all(hp.startswith("127.0.0.1:") for hp in cluster.bootstrap_servers().split(","))
    advertised = cluster.admin().list_topics(timeout=5).brokers.values()
    assert {b.host for b in advertised} == {"127.0.0.1"}


def test_published_ports_bind_to_127_0_0_1_only(cluster: KafkaCluster) -> None:
    for container in [cluster.toxiproxy, *(b.container for b in cluster.brokers.values())]:
        assert container is not None
        wrapped = container.get_wrapped_container()
        wrapped.reload()
        bindings = [b for mapped in (wrapped.ports or {}).values() if mapped for b in mapped]
        assert all(b["HostIp"] == "127.0.0.1" for b in bindings), bindings


def test_a_client_of_the_second_listener_is_only_told_about_its_ports(cluster: KafkaCluster) -> None:
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers("client2"), "log_level": 4})
    advertised = {b.port for b in admin.list_topics(timeout=10).brokers.values()}
    assert advertised == {cluster.client_port(i, "client2") for i in (1, 2, 3)}
    assert not advertised & {cluster.client_port(i) for i in (1, 2, 3)}


def test_every_listener_of_every_broker_has_its_own_proxy(cluster: KafkaCluster) -> None:
    assert cluster.proxies is not None
    for node_id in (1, 2, 3):
        for listener in LISTENERS:
            assert cluster.proxies.toxics(cluster.proxy_name(node_id, listener)) == []


def test_a_broker_that_cannot_start_fails_fast_with_its_log_and_leaves_nothing() -> None:
    # Its own process: toxiproxy-python allows one Toxiproxy per process, and the session
    # cluster holds this one.
    import json
    import subprocess
    import sys

    import docker

    from harness.settings import LABEL_RUN

    code = """
import json
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
bad = KafkaCluster().with_broker_properties({"min.insync.replicas": "banana"})
try:
    bad.start()
except HarnessError as exc:
    try:
        bad.with_broker_settings(min_insync_replicas="2")
        late = "accepted"
    except RuntimeError:
        late = "refused"
    print(json.dumps({"error": str(exc), "detail": exc.detail, "run": bad.run_id, "late": late}))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "exited" in out["error"]
    assert "min.insync.replicas" in out["detail"]  # the brokers' own complaint, from their log tail
    assert out["late"] == "refused"  # configuring after start() raises instead of doing nothing
    dc = docker.from_env()
    assert dc.containers.list(all=True, filters={"label": f"{LABEL_RUN}={out['run']}"}) == []


def test_a_topic_can_keep_its_leaders_off_the_transaction_coordinator(cluster: KafkaCluster) -> None:
    cluster.ensure_transaction_log()
    coordinator = TxnCoordinator("some-app").resolve(cluster)[0]
    name = f"t-leaders-{uuid.uuid4().hex[:6]}"
    cluster.create_topic(name, partitions=4, leaders_not_on=coordinator)
    leaders = {cluster.leader(name, p) for p in range(4)}
    assert leaders == {1, 2, 3} - {coordinator}, "the other two brokers lead, in turn"
    assert all(cluster.isr(name, p) == [1, 2, 3] for p in range(4)), "the coordinator still holds a replica"


def test_health_names_a_toxic_or_a_disabled_proxy_left_behind(cluster: KafkaCluster) -> None:
    assert cluster.health() == []
    api = cluster.proxies
    assert api is not None
    api.add_toxic("kafka-2-client", "left-behind", "latency", "upstream", {"latency": 1})
    api.set_enabled("kafka-3-replication", False)
    try:
        problems = cluster.health()
    finally:
        api.remove_toxic("kafka-2-client", "left-behind")
        api.set_enabled("kafka-3-replication", True)
    assert problems == [
        "proxy kafka-2-client has toxics ['left-behind']",
        "proxy kafka-3-replication disabled",
    ]
    assert cluster.health() == []
