"""A producer app killed (SIGKILL) mid-stream at full speed leaves a ledger that accounts for the log.

The apps write a chunk's ``invoke`` lines before its records reach the client and collect
outcome lines until the next poll (harness.history.ledger), so after a kill:

- no record in the log lacks its ``invoke`` line: the checker finds no phantom;
- the sends left without an outcome (indeterminate) are at most what the app can have had in
  flight. librdkafka (the Python app): the rest of the chunk not yet handed over, plus what
  the client held, which ``queue.buffering.max.messages`` caps (queued, in flight, or
  delivered in the running ``poll()``): ``chunk + max messages``. Kafka's Java client (the
  Java app): the rest of the chunk, plus the records in the client's buffer, which
  ``buffer.memory`` caps at ``buffer.memory / value_bytes`` records, plus the outcome lines the
  I/O thread collected after their batches left the buffer, at most ``chunk``.

Both bounds are set small here so that the kill, at full speed, finds them nearly full.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from harness.checker.check import check
from harness.checker.result import CheckOptions
from harness.cluster.kafka import KafkaCluster
from harness.history import loading, readback
from harness.jvm.java_clients import PRODUCER_APP
from harness.settings import Settings
from harness.workloads import clients
from harness.workloads.apps.producer import ProducerSpec
from harness.workloads.process import AppProcess

CHUNK = 500
VALUE_BYTES = 1000
IN_CLIENT = 5000  # records the client may hold: librdkafka's message cap, Java's buffer in records
ACKED_BEFORE_KILL = 20_000  # mid-stream: well past the start, far from the end
CONFIG = {
    clients.LIBRDKAFKA: {"acks": "all", "enable.idempotence": True, "queue.buffering.max.messages": IN_CLIENT},
    clients.JAVA: {"acks": "all", "enable.idempotence": True, "buffer.memory": IN_CLIENT * VALUE_BYTES},
}
BOUND = {clients.LIBRDKAFKA: CHUNK + IN_CLIENT, clients.JAVA: CHUNK + IN_CLIENT + CHUNK}


def _spec(cluster: KafkaCluster, client: str, topic: str, ledger: Path) -> dict[str, Any]:
    spec = ProducerSpec(
        bootstrap_servers=cluster.bootstrap_servers(),
        topic=topic,
        ledger=str(ledger),
        count=2_000_000,
        rate_per_s=1e9,
        chunk=CHUNK,
        value_bytes=VALUE_BYTES,
        config=CONFIG[client],
        login=clients.login(client, cluster.client_config()),
    )
    return asdict(spec)


def _acknowledged(ledger: Path) -> int:
    return ledger.read_bytes().count(b"\nok,") if ledger.exists() else 0


@pytest.mark.parametrize("client", clients.CLIENTS)
def test_a_producer_killed_at_full_speed_leaves_no_phantom_and_at_most_its_in_flight_undecided(
    cluster: KafkaCluster, client: str, tmp_path: Path
) -> None:
    topic = f"kill-{uuid.uuid4().hex[:8]}"
    cluster.create_topic(topic, 3)
    settings = Settings()
    version = clients.version_for(clients.ClientSpec(client), settings.kafka_version)
    command = clients.app_command(client, "harness.workloads.apps.producer", PRODUCER_APP, settings, version)
    app = AppProcess("producer-1", tmp_path, lambda ledger, _: _spec(cluster, client, topic, ledger), command)
    app.start()
    ledger = app.current.ledger
    try:
        deadline = time.monotonic() + 120
        while _acknowledged(ledger) < ACKED_BEFORE_KILL:
            assert app.current.proc.poll() is None, (tmp_path / "producer-1.1.out").read_text()[-3000:]
            assert time.monotonic() < deadline, f"{_acknowledged(ledger)} acknowledged after 120 s"
            time.sleep(0.05)
        os.kill(app.current.proc.pid, signal.SIGKILL)
    finally:
        app.kill()
    assert app.current.proc.returncode == -signal.SIGKILL

    reads = readback.read_back(cluster.bootstrap_servers(), [topic], tmp_path / "reads", login=cluster.client_config())
    result = check(loading.load([ledger], reads), CheckOptions(view="read_uncommitted"))
    stats = result.stats
    found = {name: f.count for name, f in result.anomalies.items() if f.count}
    assert found == {}, f"{found}; {stats}"  # phantom above all, and nothing lost or duplicated
    assert stats["sent"] < 2_000_000 and stats["acknowledged"] >= ACKED_BEFORE_KILL  # killed mid-stream
    assert 0 < stats["indeterminate"] <= BOUND[client], stats
