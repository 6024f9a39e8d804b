"""The transformer app without a broker: a batch that takes longer than ``idle_exit_s`` (a fault,
a busy machine) does not make the app stop before it looks for the next one; the order in which
each mode writes a batch's outputs and commits its offsets, as its ledger tells it."""

from __future__ import annotations

import csv
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from confluent_kafka import TopicPartition

from harness.history import columns, loading
from harness.history.records import encode_value, make_id
from harness.workloads.apps import transformer as transformer_app
from harness.workloads.apps.transformer import TransformerSpec

IDLE_EXIT_S = 0.2
SLOW_FLUSH_S = 0.5  # each batch's flush: longer than the idle time


class _Record:
    def __init__(self, value: bytes, offset: int) -> None:
        self._value, self._offset = value, offset

    def value(self) -> bytes:
        return self._value

    def key(self) -> bytes:
        return b"k"

    def error(self) -> None:
        return None

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset


class _Consumer:
    """One partition of two batches, handed out one per consume()."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.batches = [[_Record(encode_value(make_id(1, n), 10), n) for n in range(k, k + 5)] for k in (0, 5)]
        self.read = 0

    def subscribe(self, topics: list[str]) -> None:
        self.topic = topics[0]

    def consume(self, num_messages: int, timeout: float) -> list[_Record]:
        if not self.batches:
            time.sleep(timeout / 10)
            return []
        batch = self.batches.pop(0)
        self.read += len(batch)
        return batch

    def assignment(self) -> list[TopicPartition]:
        return [TopicPartition(self.topic, 0)]

    def position(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        return [TopicPartition(self.topic, 0, self.read)]

    def list_topics(self, topic: str, timeout: float) -> SimpleNamespace:
        # A Metadata request from the app teaches librdkafka 2.1.0 the leader epochs early (R3).
        raise AssertionError("the app asked the brokers for metadata")

    def get_watermark_offsets(self, tp: TopicPartition, timeout: float, cached: bool) -> tuple[int, int]:
        return 0, 10

    def commit(self, asynchronous: bool) -> None:
        pass

    def close(self) -> None:
        pass


class _Producer:
    """Acknowledges everything at the next poll; a flush takes ``SLOW_FLUSH_S``."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.queue: list[Any] = []

    def produce(self, topic: str, value: bytes, key: bytes, on_delivery: Any) -> None:
        self.queue.append((on_delivery, _Record(value, len(self.queue))))

    def poll(self, timeout: float = 0) -> None:
        served, self.queue = self.queue, []
        for on_delivery, record in served:
            on_delivery(None, record)

    def flush(self, timeout: float = 0) -> int:
        time.sleep(SLOW_FLUSH_S)
        self.poll()
        return 0


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> tuple[Path, dict[str, Any]]:
    monkeypatch.setattr(transformer_app, "Consumer", _Consumer)
    monkeypatch.setattr(transformer_app, "Producer", _Producer)
    ledger = tmp_path / "transformer-1.csv"
    spec = TransformerSpec(
        bootstrap_servers="unused:9092",
        input_topic="in",
        output_topic="out",
        group_id="g",
        ledger=str(ledger),
        session=2,
        input_partitions=1,
        mode=mode,
        idle_exit_s=IDLE_EXIT_S,
    )
    writer = transformer_app.LedgerWriter(ledger)
    report = transformer_app._App(spec, writer).run()
    writer.close()
    return ledger, report


def test_a_batch_slower_than_the_idle_time_does_not_end_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger, report = _run(tmp_path, monkeypatch, "plain")
    assert report["outcomes"] == {"consumed": 10, "produced": 10, "batches": 2, "aborted": 0}
    assert (loading.load([ledger], None).sends.outcome == columns.OK).sum() == 10


@pytest.mark.parametrize(
    ("mode", "batch"),
    [
        ("plain", ["invoke", "ok", "offsets-commit"]),
        ("at_most_once", ["offsets-commit", "offsets-committed", "invoke", "ok"]),
    ],
)
def test_each_mode_writes_a_batch_and_commits_its_offsets_in_its_own_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, batch: list[str]
) -> None:
    ledger, report = _run(tmp_path, monkeypatch, mode)
    assert report["outcomes"]["produced"] == 10
    with ledger.open(newline="") as f:
        events = [row[0] for row in csv.reader(f)][1:]
    # One line per kind and batch: repeated invoke and ok lines collapsed.
    collapsed = [e for i, e in enumerate(events) if i == 0 or e != events[i - 1]]
    assert collapsed == ["session", *batch, *batch]
