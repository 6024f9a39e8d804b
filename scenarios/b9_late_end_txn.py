"""B9 — a late EndTxn, resent over another connection, ends the next transaction (KAFKA-17754).

Under the original transaction protocol (TV1) a producer keeps its epoch from one transaction
to the next, and the request that ends a transaction (EndTxn) names the producer id and epoch
but not which transaction it means. Suppose one EndTxn is held up on the wire: the client's
request times out, it closes that connection, resends the EndTxn over a new one, gets its
answer and begins the next transaction at the same epoch. When the held copy reaches the
coordinator it finds that next transaction open, with the same id and epoch, and commits it
there and then: the records sent so far are committed, the rest are refused or left in a
transaction the client can no longer end (a torn transaction, or records read though the
app aborted them). Kafka 4.x with transaction protocol 2 (KIP-890) bumps the epoch at every
transaction's end, so the late copy carries a stale epoch and is refused; only a client that
speaks TV2 gets that: Kafka's Java client 4.x does, librdkafka does not (its issue 5423: it
sends EndTxn v0-1 to 4.x brokers too, which answer them with TV1 semantics).

Fault: one EndTxn (commit) of the app, the third after the fault starts, is held for 3.5 s on
its coordinator's client link (protocol fault ``hold``): past the client's 2 s request
timeout, so the client resends it on a new connection, and into the next transaction, which
stays open 3 s and keeps sending. The partitions are led off the coordinator, so its link
carries only the transaction's own requests.
Control: Kafka 3.9.2 and its Java client (TV1): the next transaction is torn (or read though
aborted), and the late copy was carried out (answered NONE).
Guarantee: Kafka 4.4.0 and its Java client (TV2): nothing torn, lost or read though aborted,
and the late copy was refused as fenced.

With ``--client librdkafka`` both sides run librdkafka, and the guarantee shows the bug on
4.4.0 too (the pair fails): librdkafka users are exposed on Kafka 4.x.
"""

from harness.faults import AppSent, Step, TransactionalId, TxnCoordinator, protocol
from harness.scenario import Scenario, Variant
from harness.verdict.checks import late_copy_answered
from harness.verdict.document import FORBIDDEN, ONE_OF
from harness.workloads.clients import JAVA
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "b9-app"
REQUEST_TIMEOUT_MS = 2000
HELD_MS = 3500  # past the request timeout, and into the next transaction
TXN_MS = 3000  # each transaction stays open this long, sending all along


HOLD = protocol(TxnCoordinator(TransactionalId(PRODUCER)), "EndTxn", "hold", duration_ms=HELD_MS, after=3)


SCENARIO = Scenario(
    id="B9",
    title="a late EndTxn ends the next transaction (KAFKA-17754): Kafka 3.9 (TV1) vs 4.x (TV2)",
    story=__doc__ or "",
    workload=ProducerWorkload(
        client=JAVA,
        count=3000,
        partitions=2,
        keys=16,
        rate_per_s=100,
        txn_size=100_000,  # transactions end by time (txn_ms)
        txn_ms=TXN_MS,
        leaders_off_coordinator=True,
        config={
            "transactional.id": TXN_ID,
            "socket.timeout.ms": REQUEST_TIMEOUT_MS,
            "message.timeout.ms": 60_000,
        },
    ),
    # Once transactions are under way: a held InitProducerId would fence the producer itself.
    schedule=(Step(2.0, HOLD, duration_s=20.0, when=AppSent(PRODUCER, 200)),),
    sides_together=True,  # the control has a cluster of its own (Kafka 3.9)
    control=Variant(
        "control",
        {},
        kafka_version="3.9.2",
        expect={"torn_transaction": ONE_OF, "aborted_read": ONE_OF},
        checks=(late_copy_answered(("NONE",), "the late EndTxn was carried out on the next transaction"),),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={a: FORBIDDEN for a in ("torn_transaction", "aborted_read", "lost", "duplicate")},
        checks=(
            late_copy_answered(
                ("PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH"), "TV2 refused the late EndTxn: its epoch was stale"
            ),
        ),
    ),
)
