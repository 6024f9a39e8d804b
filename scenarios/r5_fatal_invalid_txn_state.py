"""R5 — KAFKA-19690: a write after a timeout abort is refused with the fatal INVALID_TXN_STATE, Kafka 3.9.1 vs 3.9.2.

Bug: https://issues.apache.org/jira/browse/KAFKA-19690 ("Unexpected Fatal error
InvalidTxnStateException on Kafka Streams (KIP-890)"; fixes https://github.com/apache/kafka/pull/20534,
3.9 https://github.com/apache/kafka/pull/20577). A transactional Produce is checked in two
phases. A partition that already has the producer's transaction open at its leader needs no
verification; one that sees the transaction's first batch is verified with the coordinator
(an inter-broker AddPartitionsToTxn), and if any partition of a request needs verification,
all of them are appended only once the coordinator has answered. If the coordinator aborts
the transaction (its timeout) while the request waits, the abort marker closes the open
partition's transaction; when the answer comes, that partition's batch, which never needed
verification, is refused as "not part of an ongoing transaction": INVALID_TXN_STATE, which
the Java client treats as fatal (a Kafka Streams thread dies). The fix checks the producer
epoch first and answers the recoverable INVALID_PRODUCER_EPOCH. Affected 3.6.0-3.9.1, 4.0.0-4.0.1,
4.1.0; fixed in 3.9.2, 4.0.2, 4.1.1 and 4.2.0.

Workload: the Java transactional producer (kafka-clients 3.9.1 on both sides), 2 partitions led
by one broker, off the transaction coordinator; each transaction sends its first record alone
(always key k0, so always the same partition) and waits for it (that partition's leader then
has the transaction open), then the rest with 200 ms of linger, so one Produce request carries
that open partition and the other one's first batch. Transactions time out after 6 s (room
for a busy machine to reach the second request before the timeout does); the brokers look
for timed-out transactions every second.
Fault: the next verification of the producer's transactions that checks the *other*
partition (an AddPartitionsToTxn reaching the coordinator over its inter-broker link, picked
by the first partition it names) is held 14 s: past the transaction timeout and its abort,
within the client's 30 s request timeout. A verification of the first record's partition
would only hold that record back, with no open partition beside it (the 6th verification,
counted blind, was the wrong kind in 1 of 5 runs).
Control: Kafka 3.9.1: the held request's records are refused with INVALID_TXN_STATE.
Guarantee: Kafka 3.9.2: they are refused with INVALID_PRODUCER_EPOCH, never INVALID_TXN_STATE.
The coordinator's abort bumped the epoch: this plain producer ends fenced on both sides (on
3.9.2 the abort that INVALID_PRODUCER_EPOCH calls for is fenced too, TV1's gap that B14 shows);
the difference is the error it is told, which decides whether an app that can recover (a
Kafka Streams thread, which rebuilds its producer on a fencing error) does.
"""

from harness.faults import AppSent, Step, TransactionalId, TxnCoordinator, protocol
from harness.faults.roles import key_partition
from harness.scenario import Scenario, Variant
from harness.verdict.checks import client_error
from harness.verdict.document import ALLOWED, FORBIDDEN
from harness.workloads.clients import JAVA
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "r5-app"
KEYS, PARTITIONS = 4, 2
OPEN = key_partition("k0", PARTITIONS)  # each transaction's first record's partition
OTHER = 1 - OPEN
if all(key_partition(f"k{i}", PARTITIONS) == OPEN for i in range(KEYS)):
    raise ValueError("R5 needs a key that goes to the other partition")
CLEANUP = {"transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000"}
# A transaction's second request must come before its timeout (under load its first record's
# round trip took seconds: the producer was fenced before the request the fault holds); the
# hold outlasts the timeout and the abort scan after it, and stays inside the request timeout.
TRANSACTION_TIMEOUT_MS = 6000
HELD_MS = 14_000

WORKLOAD = ProducerWorkload(
    client=JAVA,
    client_version="3.9.1",
    count=1500,
    rate_per_s=100,
    partitions=PARTITIONS,
    keys=KEYS,
    txn_size=20,  # a multiple of KEYS: every transaction's first record has key k0
    open_first=True,
    leaders_off_coordinator=True,
    one_leader=True,
    config={
        "transactional.id": TXN_ID,
        "transaction.timeout.ms": TRANSACTION_TIMEOUT_MS,
        "socket.timeout.ms": 30_000,
        "message.timeout.ms": 60_000,
        "linger.ms": 200,
    },
)


TXN = TransactionalId(PRODUCER)
HOLD = protocol(
    TxnCoordinator(TXN),
    "AddPartitionsToTxn",
    "hold",
    duration_ms=HELD_MS,
    transactional_id=TXN,
    where={"partition": OTHER},
    listener="replication",
)
VERIFICATION_HELD_PAST_THE_TIMEOUT = (Step(1.0, HOLD, duration_s=HELD_MS / 1000 + 15.0, when=AppSent(PRODUCER, 100)),)


SCENARIO = Scenario(
    id="R5",
    title="KAFKA-19690: a write after a timeout abort gets the fatal INVALID_TXN_STATE, Kafka 3.9.1 vs 3.9.2",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=VERIFICATION_HELD_PAST_THE_TIMEOUT,
    sides_together=True,  # each side has a cluster of its own
    control=Variant(
        "control",
        {},
        kafka_version="3.9.1",
        broker_settings=CLEANUP,
        expect={"app_fenced": ALLOWED},
        checks=(client_error(PRODUCER, "INVALID_TXN_STATE", True, "the write was refused as in no transaction"),),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        kafka_version="3.9.2",
        broker_settings=CLEANUP,
        expect={
            "app_fenced": ALLOWED,
            **{a: FORBIDDEN for a in ("lost", "duplicate", "aborted_read", "torn_transaction")},
        },
        checks=(
            client_error(PRODUCER, "INVALID_TXN_STATE", False, "the epoch is checked first: a fencing error"),
            client_error(PRODUCER, "INVALID_PRODUCER_EPOCH", True, "the held request met the bumped epoch"),
        ),
    ),
)
