"""B9 — research: can a late EndTxn, resent over a new connection, end the wrong transaction? (KAFKA-17754)

Under the original transaction protocol (v1) the request that ends a transaction
(EndTxn) names the producer id and epoch but not which transaction it means. If one
EndTxn is delayed on the wire, the client times out, resends it over a new connection and
moves on to its next transaction, the delayed copy may arrive later and commit or abort
that next transaction instead. Kafka 4.0's protocol v2 (KIP-890) bumps the epoch on every
transaction, so a late EndTxn is fenced; but it needs a client that speaks it, and this
one (librdkafka) may not. This scenario tries to provoke the race on both versions and
reports what the checker finds: lost writes, aborted reads, torn transactions. It makes
no pass/fail claim.

Fault: every 4 s, 1.5 s of 2.5 s (±1 s) latency on the client link of the transaction
coordinator, towards it, while the producer's request timeout is 2 s.
Control: Kafka 3.9.2 (protocol v1). Guarantee side: Kafka 4.4.0, the harness default (v2).
"""

from harness.faults import Step, TxnCoordinator, latency
from harness.scenario import Scenario, Variant
from harness.verdict.judge import ALLOWED
from harness.workloads.producer import ProducerWorkload

TXN_ID = "b9-app"
FINDINGS = {a: ALLOWED for a in ("lost", "aborted_read", "torn_transaction", "duplicate", "inconsistent_offset")}

SCENARIO = Scenario(
    id="B9",
    title="research: a late EndTxn over another connection (KAFKA-17754), Kafka 3.9 vs 4.x",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=1500,
        rate_per_s=150,
        txn_size=10,
        config={"transactional.id": TXN_ID, "socket.timeout.ms": 2000, "message.timeout.ms": 60_000},
    ),
    # The runner gives the transactional.id the topic as a suffix.
    schedule=lambda topic: [
        Step(
            at_s=2.0 + 4 * i,
            fault=latency(TxnCoordinator(f"{TXN_ID}-{topic}"), ms=2500, jitter_ms=1000, direction="to_broker"),
            duration_s=1.5,
        )
        for i in range(5)
    ],
    control=Variant("control", {}, expect=FINDINGS, kafka_version="3.9.2"),
    guarantee=Variant("guarantee", {}, expect=FINDINGS),
    research=True,
    sides_together=True,  # the control has a cluster of its own (Kafka 3.9)
)
