"""The read-back on the real cluster: both views reach the same high watermarks."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from confluent_kafka import Producer

from harness.cluster.kafka import KafkaCluster
from harness.history import loading, readback
from harness.history.records import encode_value


def _transactional(cluster: KafkaCluster) -> Producer:
    producer = Producer({"bootstrap.servers": cluster.bootstrap_servers(), "transactional.id": uuid.uuid4().hex})
    producer.init_transactions(30)
    producer.begin_transaction()
    return producer


def test_read_committed_waits_for_an_open_transaction_and_reads_what_was_committed_after_it(
    cluster: KafkaCluster, topic: str, tmp_path: Path
) -> None:
    # Seen in B2c: a stuck app left its transaction open below records another app had
    # committed. Asked as read_committed, the "high watermark" is the last stable offset,
    # and the read stopped there: the committed records looked lost.
    stuck = _transactional(cluster)
    stuck.produce(topic, encode_value(1, 10))
    stuck.flush(30)
    committed = _transactional(cluster)
    for record_id in range(2, 7):
        committed.produce(topic, encode_value(record_id, 10))
    committed.commit_transaction(30)
    ends = threading.Timer(3.0, stuck.abort_transaction, args=(30,))  # as the coordinator would, later
    ends.start()
    try:
        reads = readback.read_back(cluster.bootstrap_servers(), [topic], tmp_path / "reads", timeout_s=60)
    finally:
        ends.join()
        stuck.close()  # every client closed before the test can fail: none outlives the cluster
        committed.close()
    views = loading.load([], reads).views
    assert sorted(views["read_committed"].id.tolist()) == [2, 3, 4, 5, 6]
    assert sorted(i for i in views["read_uncommitted"].id.tolist() if i > 0) == [1, 2, 3, 4, 5, 6]
    # Each file says how many partitions the topic has (one here), beside the partitions it read.
    assert [v.topic_partitions for v in views.values()] == [{0: 1}, {0: 1}]
