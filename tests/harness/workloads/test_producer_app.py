"""The producer app: without a broker, its ledger discipline (a record reaches the client only once
its ``invoke`` line is in the file, whatever the chunking, keys and duplicated sends) and its
transactions by time; on the cluster, a restart's read-back of the records in doubt."""

from __future__ import annotations

import uuid
from dataclasses import replace
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.cluster.kafka import KafkaCluster
from harness.history import columns, loading
from harness.history.records import decode_id, make_id
from harness.workloads.apps import producer as producer_app
from harness.workloads.apps.producer import ProducerSpec
from harness.workloads.input import Pace


class _Delivered:
    def __init__(self, value: bytes, offset: int) -> None:
        self._value, self._offset = value, offset

    def value(self) -> bytes:
        return self._value

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset


class _Client:
    """Stands in for confluent_kafka's Producer: notes the ledger's size when each record is handed
    over, and acknowledges every record at the next poll."""

    def __init__(self, ledger: Path) -> None:
        self.ledger = ledger
        self.handed_over: list[tuple[int, int]] = []  # (record id, ledger bytes by then)
        self._queue: list[Any] = []

    def produce(
        self, topic: str, value: bytes, key: str | None = None, headers: Any = None, on_delivery: Any = None
    ) -> None:
        self.handed_over.append((decode_id(value), self.ledger.stat().st_size))
        self._queue.append((on_delivery, _Delivered(value, len(self.handed_over))))

    def poll(self, timeout: float = 0) -> int:
        served, self._queue = self._queue, []
        for on_delivery, delivered in served:
            on_delivery(None, delivered)
        return len(served)

    def __len__(self) -> int:
        return len(self._queue)

    def flush(self, timeout: float = 0) -> int:
        self.poll()
        return 0

    def init_transactions(self, timeout: float) -> None:
        pass

    def begin_transaction(self) -> None:
        pass

    def commit_transaction(self, timeout: float) -> None:
        self.poll()


def _invoke_line_ends(ledger: Path) -> dict[int, list[int]]:
    """Per record id, the byte offsets at which its ``invoke`` lines end."""
    ends: dict[int, list[int]] = {}
    at = 0
    for line in ledger.read_bytes().splitlines(keepends=True):
        at += len(line)
        fields = line.split(b",")
        if fields[0] == b"invoke":
            ends.setdefault(int(fields[3]), []).append(at)
    return ends


@pytest.mark.parametrize("rate_per_s", [1e9, 20_000])
def test_every_record_reaches_the_client_after_its_invoke_line_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rate_per_s: float
) -> None:
    ledger = tmp_path / "producer-1.csv"
    client = _Client(ledger)
    monkeypatch.setattr(producer_app, "Producer", lambda config: client)
    spec = ProducerSpec(
        bootstrap_servers="unused:9092",
        topic='a,"topic"',
        ledger=str(ledger),
        count=3000,
        rate_per_s=rate_per_s,
        chunk=250,
        keys=7,
        duplicate_every=100,
    )
    report = producer_app.run(spec)

    assert report["outcomes"] == {"ok": 3030, "fail": 0, "info": 0, "unfinished": 0}  # 30 records sent twice
    ends = _invoke_line_ends(ledger)
    seen: dict[int, int] = {}
    for record_id, ledger_bytes in client.handed_over:
        copy = seen.get(record_id, 0)
        seen[record_id] = copy + 1
        assert ends[record_id][copy] <= ledger_bytes, f"record {record_id} handed over before its invoke line"
    assert sorted(seen) == [make_id(1, seq) for seq in range(3000)]
    h = loading.load([ledger], None)
    assert (h.sends.outcome == columns.OK).all() and len(h.sends.outcome) == 3000


def test_transactions_end_after_txn_ms_when_that_comes_before_txn_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = tmp_path / "producer-1.csv"
    monkeypatch.setattr(producer_app, "Producer", lambda config: _Client(ledger))
    spec = ProducerSpec(
        bootstrap_servers="unused:9092",
        topic="t",
        ledger=str(ledger),
        count=400,
        rate_per_s=2000,  # 0.2 s of sending
        config={"transactional.id": "by-time"},
        txn_size=1000,
        txn_ms=20,
    )
    assert producer_app.run(spec)["outcomes"]["ok"] == 400
    h = loading.load([ledger], None)
    committed = h.txns.state == columns.TXN_COMMITTED
    assert committed.all() and 3 <= len(committed) <= 20  # about ten of 20 ms, whatever the machine's hiccups
    assert (h.sends.txn >= 0).all()


def test_a_restart_drops_the_in_doubt_records_it_finds_committed(cluster: KafkaCluster, tmp_path: Path) -> None:
    topic = f"resume-{uuid.uuid4().hex[:8]}"
    cluster.create_topic(topic, 1)
    spec = ProducerSpec(
        bootstrap_servers=cluster.bootstrap_servers(),
        topic=topic,
        ledger=str(tmp_path / "producer-1.csv"),
        count=40,
        rate_per_s=1e9,
        config={"transactional.id": f"resume-{uuid.uuid4().hex[:6]}"},
        txn_size=20,
        login=cluster.client_config(),
    )
    assert producer_app.run(spec)["outcomes"]["ok"] == 40
    # Seqs 30..49 as if a transaction of 30..39 and one of 40..49 (never sent) were in doubt.
    planned = replace(spec, resume={"resend": list(range(30, 50)), "in_doubt": list(range(30, 50))})
    assert producer_app._resend(planned) == list(range(40, 50))


@pytest.mark.parametrize(("burst", "pause_s"), [(0, 0.0), (250, 2.0), (7, 0.5)])
def test_records_fall_due_at_the_rate_in_bursts_and_pauses(burst: int, pause_s: float) -> None:
    """A live input's pace: ``burst`` records at the rate, then a pause; steady when 0. The
    count due by a time and the time a record falls due agree, and a burst's pause is there."""
    sender = SimpleNamespace(spec=ProducerSpec("b", "t", "l", rate_per_s=500.0, burst=burst, pause_s=pause_s))
    due_by = partial(producer_app._Sender._due_by, sender)
    due_at = partial(producer_app._Sender._due_at, sender)
    assert due_by(0.0) == 1  # the first record at once
    for n in range(1, 2000, 13):
        assert due_by(due_at(n) + 1e-9) >= n + 1 and due_by(due_at(n) - 1e-6) <= n
    if burst:
        assert due_at(burst) - due_at(burst - 1) == pytest.approx(1 / 500 + pause_s)
        assert Pace(500.0, burst, pause_s).seconds(2 * burst) == pytest.approx(2 * burst / 500 + pause_s)
    else:
        assert due_at(1000) == pytest.approx(2.0)
