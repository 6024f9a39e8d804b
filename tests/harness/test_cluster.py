"""The cluster comes up healthy, reachable only on loopback, with every link proxied."""

from __future__ import annotations

from harness.cluster import LISTENERS, PROBE_TOPIC, KafkaCluster


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


def test_every_listener_of_every_broker_has_its_own_proxy(cluster: KafkaCluster) -> None:
    assert cluster.proxies is not None
    for node_id in (1, 2, 3):
        for listener in LISTENERS:
            assert cluster.proxies.toxics(cluster.proxy_name(node_id, listener)) == []


def test_a_broker_that_cannot_start_fails_fast_with_its_log_and_leaves_nothing() -> None:
    import docker
    import pytest

    from harness.config import LABEL_RUN
    from harness.errors import HarnessError

    bad = KafkaCluster().with_broker_properties({"min.insync.replicas": "banana"})
    with pytest.raises(HarnessError) as err:
        bad.start()
    assert "exited" in str(err.value)
    assert "min.insync.replicas" in err.value.detail  # the brokers' own complaint, from their log tail
    dc = docker.from_env()
    assert dc.containers.list(all=True, filters={"label": f"{LABEL_RUN}={bad.run_id}"}) == []
    with pytest.raises(RuntimeError):
        bad.with_broker_settings(min_insync_replicas="2")  # configuring after start() raises
