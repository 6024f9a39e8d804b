"""The protocol fault: its checks without a cluster; on a real cluster, each action hits one
EndTxn of a transactional producer on each client, and a fault on every broker's client link
hits each of the three."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harness.cluster.kafka import KafkaCluster
from harness.faults import Brokers, Step, TransactionalId, TxnCoordinator
from harness.faults.kinds import protocol as protocol_kind
from harness.faults.kinds.protocol import apis, protocol
from harness.runner import run_variant
from harness.scenario import Scenario, Variant, on_client
from harness.verdict.document import FORBIDDEN
from harness.workloads.clients import CLIENTS, ClientSpec
from harness.workloads.producer import PRODUCER, ProducerWorkload


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"api": "NoSuchApi", "action": "drop"}, "unknown Kafka API"),
        ({"api": "EndTxn", "action": "explode"}, "unknown protocol action"),
        ({"api": "EndTxn", "action": "hold"}, "duration_ms"),
        ({"api": "Produce", "action": "error", "error": "NOT_COORDINATOR"}, "no top-level error code"),
        ({"api": "EndTxn", "action": "error", "error": "NO_SUCH_ERROR"}, "unknown Kafka error"),
        ({"api": "Fetch", "action": "drop", "transactional_id": "x"}, "no field transactional_id"),
        ({"api": "EndTxn", "action": "drop", "where": {"partition": 1}}, "no field partition"),
        ({"api": "EndTxn", "action": "drop", "probability": 0.0}, "probability"),
    ],
)
def test_a_fault_the_toxics_cannot_do_is_refused_when_written(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        protocol(Brokers(), **kwargs)


def test_an_error_is_named_and_sent_as_its_code() -> None:
    spec = protocol(Brokers(), "EndTxn", "error", error="NOT_COORDINATOR")
    assert spec.params["error_code"] == 16
    assert spec.direction == "both"  # the answer is changed on the way back
    assert protocol(Brokers(), "EndTxn", "cut_after").direction == "both"
    assert protocol(Brokers(), "EndTxn", "drop").direction == "to_broker"


def test_the_api_table_knows_the_transactional_apis() -> None:
    table = apis()
    assert {"EndTxn", "AddPartitionsToTxn", "AddOffsetsToTxn", "TxnOffsetCommit", "InitProducerId"} <= set(table)
    assert table["EndTxn"]["key"] == 26


class _HeldProxies:
    """Toxiproxy as a heal sees it: one request toxic still holding ``pending`` requests."""

    def __init__(self, pending: int) -> None:
        self.pending, self.removed = pending, []

    def update_toxic(self, proxy: str, name: str, attributes: dict[str, Any]) -> None:
        pass

    def toxic(self, proxy: str, name: str) -> dict[str, Any]:
        return {"attributes": {"pending": self.pending, "matched": 2, "hits": [{"at": 1.0, "api": "EndTxn"}]}}

    def remove_toxic(self, proxy: str, name: str) -> None:
        self.removed.append(name)


@pytest.mark.parametrize("pending", [0, 1])
def test_a_heal_that_gives_up_on_held_requests_says_so(
    pending: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(protocol_kind, "_HEAL_SLACK_S", 0.05)
    proxies = _HeldProxies(pending)
    active = protocol_kind.Active(
        SimpleNamespace(proxies=proxies), {"api": "EndTxn"}, [("p1", "req")], [("p1", "ans")], {"p1": 1}, 0.0
    )
    found = active()
    assert proxies.removed == ["req", "ans"] and found["matched"] == 2 and len(found["hits"]) == 1
    if pending:
        assert found["unsettled"].startswith("1 request(s) still held after 0 s, removed with the toxics")
        assert "protocol fault on EndTxn: 1 request(s) still held" in capsys.readouterr().err
    else:
        assert "unsettled" not in found


TXN_ID = "protocol-kinds"
# (at, action, extra arguments): one EndTxn each, in turn, on the coordinator's client link.
ACTIONS = [
    (2.0, "hold", {"duration_ms": 1500}),
    (5.0, "drop", {}),
    (10.0, "cut_after", {}),
    (13.0, "delay_response", {"duration_ms": 1000}),
    (16.0, "error", {"error": "NOT_COORDINATOR"}),
]


COORDINATOR = TxnCoordinator(TransactionalId(PRODUCER))
EACH_ACTION_ONCE = tuple(
    Step(at, protocol(COORDINATOR, "EndTxn", action, **extra), duration_s=2.5) for at, action, extra in ACTIONS
)


SCENARIO = Scenario(
    id="protocol-actions",
    title="every protocol action on one EndTxn",
    story="",
    workload=ProducerWorkload(
        count=2000,
        rate_per_s=100,
        txn_size=10,
        config={"transactional.id": TXN_ID, "socket.timeout.ms": 3000, "message.timeout.ms": 60_000},
    ),
    schedule=EACH_ACTION_ONCE,
    control=Variant("control", {}, expect={}),
    guarantee=Variant("guarantee", {}, expect={a: FORBIDDEN for a in ("lost", "duplicate", "torn_transaction")}),
)


@pytest.mark.parametrize("client", CLIENTS)
def test_each_action_hits_one_end_txn_and_the_transactions_stay_whole(
    cluster: KafkaCluster, tmp_path: Path, client: str
) -> None:
    scenario = on_client(SCENARIO, ClientSpec(client))
    verdict = run_variant(cluster, scenario, scenario.guarantee, tmp_path)
    assert verdict.passed, verdict.reasons
    faults = verdict.record.faults
    assert [f["params"]["action"] for f in faults] == [a for _, a, _ in ACTIONS]
    for fault in faults:
        (hit,) = fault["hits"]
        assert hit["api"] == "EndTxn" and hit["committed"] is True, hit
        assert hit["transactional_id"].startswith(TXN_ID) and hit["broker"] == fault["brokers"][0]
        action = fault["params"]["action"]
        if action == "hold":
            assert hit["delivered_at"] - hit["at"] >= 1.4
            assert hit["responded_at"] >= hit["delivered_at"] and hit["broker_error_code"] == 0
        if action == "cut_after":
            assert hit["closed_at"] >= hit["responded_at"] >= hit["at"]
        if action == "delay_response":
            assert hit["delivered_at"] - hit["responded_at"] >= 0.9
        if action == "error":
            assert hit["broker_error_code"] == 0  # the commit went through; the client was told otherwise
    assert not verdict.record.fault_errors


def test_a_fault_on_every_broker_hits_each_broker(cluster: KafkaCluster, tmp_path: Path) -> None:
    scenario = Scenario(
        id="protocol-brokers",
        title="a Produce answer delayed on each broker",
        story="",
        workload=ProducerWorkload(count=600, rate_per_s=150, partitions=3, keys=30, config={"linger.ms": 5}),
        schedule=(Step(1.0, protocol(Brokers(), "Produce", "delay_response", duration_ms=300), duration_s=4.0),),
        control=Variant("control", {}, expect={}),
        guarantee=Variant("guarantee", {}, expect={"lost": FORBIDDEN}),
    )
    verdict = run_variant(cluster, scenario, scenario.guarantee, tmp_path)
    assert verdict.passed, verdict.reasons
    (fault,) = verdict.record.faults
    assert sorted(h["broker"] for h in fault["hits"]) == [1, 2, 3]
    assert all(h["api"] == "Produce" and h["delivered_at"] - h["responded_at"] >= 0.25 for h in fault["hits"])
