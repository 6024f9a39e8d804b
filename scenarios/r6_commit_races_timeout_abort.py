"""R6 — research: KAFKA-20785, a TV2 commit racing the timeout abort is told INVALID_TXN_STATE.

Bug: https://issues.apache.org/jira/browse/KAFKA-20785 (fix: https://github.com/apache/kafka/pull/23204,
"Return PRODUCER_FENCED when EndTxn commit races with coordinator-side abort"). Under
transaction protocol 2 (KIP-890) the coordinator bumps the producer epoch when it aborts a
transaction that outlived its timeout. A commit (EndTxn) already on its way carries the old
epoch e while the coordinator now holds e+1: TV2 takes "stored epoch = request epoch + 1" for a
retry of the request that ended the transaction, so the epoch check passes; then the state
check finds COMPLETE_ABORT where a COMMIT was asked and answers INVALID_TXN_STATE, which the
Java client treats as fatal (a Kafka Streams thread dies) instead of a fencing error an app
recovers from. Affected: transaction protocol 2 on every 4.x release up to 4.4.0, the newest
on Maven Central; no release holds the fix yet, so this is research: when one ships it becomes
the guarantee side and R6 an ordinary regression pair.

Workload: Kafka's Java client 4.4.0 (it speaks TV2 to a 4.x cluster), transactions of 20
records that time out after 3 s; the brokers look for timed-out transactions every second;
the partitions are led off the coordinator, so its link carries only the transaction's own
requests.
Fault: the third commit after the fault starts (an EndTxn on the coordinator's client link) is
held 7 s: past the transaction timeout and the abort it brings, well within the client's 30 s
request timeout, so the client is still waiting for the answer when the commit arrives.
Control: Kafka 4.3.1: the held commit is answered INVALID_TXN_STATE and the app stops on it.
Other side: Kafka 4.4.0: what it answers the same commit is the finding (so far: the same).
"""

from harness.faults import AppSent, Step, TransactionalId, TxnCoordinator, protocol
from harness.scenario import Scenario, Variant
from harness.verdict.checks import held_answered, stopped_by
from harness.verdict.document import ALLOWED
from harness.workloads.clients import JAVA
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "r6-app"
CLEANUP = {"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000"}
FINDINGS = {a: ALLOWED for a in ("app_fenced", "lost", "duplicate", "aborted_read", "torn_transaction")}

WORKLOAD = ProducerWorkload(
    client=JAVA,
    client_version="4.4.0",
    count=1500,
    rate_per_s=100,
    partitions=2,
    keys=8,
    txn_size=20,
    leaders_off_coordinator=True,
    config={
        "transactional.id": TXN_ID,
        "transaction.timeout.ms": 3000,
        "socket.timeout.ms": 30_000,
        "message.timeout.ms": 60_000,
    },
)


HOLD = protocol(TxnCoordinator(TransactionalId(PRODUCER)), "EndTxn", "hold", duration_ms=7000, after=3)


SCENARIO = Scenario(
    id="R6",
    title="research: KAFKA-20785, a TV2 commit racing the timeout abort is told INVALID_TXN_STATE, Kafka 4.3.1, 4.4.0",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=(Step(1.0, HOLD, duration_s=20.0, when=AppSent(PRODUCER, 100)),),
    research=True,
    sides_together=True,  # each side has a cluster of its own
    control=Variant(
        "control",
        {},
        kafka_version="4.3.1",
        broker_settings=CLEANUP,
        expect=FINDINGS,
        checks=(
            held_answered(("INVALID_TXN_STATE",), "the commit met the timeout abort's bumped epoch"),
            stopped_by(PRODUCER, "INVALID_TXN_STATE", "the client took the answer as fatal"),
        ),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        kafka_version="4.4.0",
        broker_settings=CLEANUP,
        expect=FINDINGS,
        checks=(held_answered((), "the held commit reached the coordinator after its timeout abort"),),
    ),
)
