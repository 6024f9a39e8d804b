"""Detection power on the real cluster: control runs that must produce each anomaly class.

Duplicates come from A1 (tests/scenarios). Here: acknowledged records lost to a leader
failover with acks=1, and aborted transactions read by a read_uncommitted consumer. Each
pair's guarantee side must be clean under the same fault, so the checker is shown to
tell the two apart rather than to flag everything.
"""

from __future__ import annotations

from pathlib import Path

from harness.cluster import KafkaCluster
from harness.faults import Leader, Step, cut, kill
from harness.runner import run_pair
from harness.scenario import ProducerWorkload, Scenario, Variant
from harness.verdict import FORBIDDEN, REQUIRED

LOST_TO_FAILOVER = Scenario(
    id="CHECK-LOST",
    title="acks=1 records acknowledged by a leader that dies before replicating them",
    story="The leader's followers stop fetching; the leader keeps acknowledging acks=1 writes, then is "
    "killed while the followers are still in the ISR. A follower takes over without those records and "
    "the old leader truncates them on return.",
    workload=ProducerWorkload(
        count=4000,
        rate_per_s=200,
        config={"linger.ms": 5, "message.timeout.ms": 90_000, "enable.idempotence": False, "retries": 1_000_000},
    ),
    schedule=lambda topic: [
        Step(at_s=2.0, fault=cut(Leader(topic), listener="replication"), duration_s=10.0),
        Step(at_s=5.0, fault=kill(Leader(topic)), duration_s=12.0),
    ],
    control=Variant("control", {"acks": "1"}, expect={"lost": REQUIRED}),
    guarantee=Variant("guarantee", {"acks": "all", "enable.idempotence": True}, expect={"lost": FORBIDDEN}),
)

ABORTED_READ = Scenario(
    id="CHECK-ABORTED",
    title="a consumer that reads uncommitted sees aborted transactions",
    story="A transactional producer aborts every other transaction. A read_uncommitted consumer "
    "reads those records anyway; a read_committed one never does.",
    workload=ProducerWorkload(count=400, rate_per_s=400, txn_size=10, abort_every=2),
    schedule=lambda topic: [],
    control=Variant(
        "control", {"transactional.id": "aborter"}, expect={"aborted_read": REQUIRED}, consumer_view="read_uncommitted"
    ),
    guarantee=Variant(
        "guarantee",
        {"transactional.id": "aborter"},
        expect={"aborted_read": FORBIDDEN, "lost": FORBIDDEN, "torn_transaction": FORBIDDEN},
    ),
)


def test_lost_acknowledged_writes_are_found(cluster: KafkaCluster, tmp_path: Path, report) -> None:  # type: ignore[no-untyped-def]
    pair = run_pair(cluster, LOST_TO_FAILOVER, tmp_path)
    report(pair.summary())
    assert pair.outcome == "passed", pair.summary()
    example = pair.control.result.anomalies["lost"].examples[0]
    assert example["acked_at"], example  # the example names where the broker said it was stored


def test_aborted_reads_are_found(cluster: KafkaCluster, tmp_path: Path, report) -> None:  # type: ignore[no-untyped-def]
    pair = run_pair(cluster, ABORTED_READ, tmp_path)
    report(pair.summary())
    assert pair.outcome == "passed", pair.summary()
    assert pair.control.result.count("aborted_read") == 200, pair.summary()  # every aborted record
    assert pair.guarantee.result.stats["transactions_aborted"] == 20
