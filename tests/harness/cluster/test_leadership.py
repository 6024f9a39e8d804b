"""Who leads, as the cluster tells it."""

from __future__ import annotations

from harness.cluster.kafka import KafkaCluster


def test_the_active_controller_is_one_of_the_nodes(cluster: KafkaCluster) -> None:
    assert cluster.active_controller() in (1, 2, 3)
