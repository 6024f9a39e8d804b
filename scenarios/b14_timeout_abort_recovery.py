"""B14 — a transaction outlives its timeout: the producer recovers under TV2, is fenced by no one under TV1.

When a transaction stays open longer than ``transaction.timeout.ms`` its coordinator aborts it
and bumps the producer's epoch. The producer's next write is answered INVALID_PRODUCER_EPOCH,
which Kafka's Java client calls abortable since KIP-588: its javadoc tells the app to abort,
and the client re-initialises the producer "under the hood" (an InitProducerId naming its
producer id and old epoch). Under the original transaction protocol (TV1) that request is
refused: the coordinator accepts the old epoch only as the last one a producer itself bumped
from, and a timeout abort records none, so the answer is PRODUCER_FENCED ("a newer producer
with the same transactionalId"), though there is no other producer. The app must be
restarted. KIP-588's own error for this case (TRANSACTION_TIMED_OUT) never shipped. Under
transaction protocol 2 (KIP-890, Kafka 4.x with a 4.x Java client) the epoch moves at every
transaction's end anyway: the abort completes and the producer goes on. librdkafka raises the
fatal ``_FENCED`` at the first INVALID_PRODUCER_EPOCH, on any broker (its issue 3928).

Workload and fault: R5's (one Java transactional producer, transactions of 20 that time out
after 3 s; a write's partition verification held 7 s on the coordinator's inter-broker link,
past the timeout and the abort it brings), on releases without KAFKA-19690, so the held write
is answered INVALID_PRODUCER_EPOCH on both sides.
Control: Kafka 3.9.2 and its Java client (TV1): the abort is fenced, the app stops.
Guarantee: Kafka 4.4.0 and its Java client (TV2): the same write is refused, the app aborts and
delivers the rest; nothing lost, repeated or read though aborted.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.checks import client_error, delivered
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import PRODUCER
from scenarios.r5_fatal_invalid_txn_state import CLEANUP, VERIFICATION_HELD_PAST_THE_TIMEOUT, WORKLOAD

TIMED_OUT = client_error(PRODUCER, "INVALID_PRODUCER_EPOCH", True, "the held write met the epoch the abort bumped")

SCENARIO = Scenario(
    id="B14",
    title="a transaction outlives its timeout: the producer recovers under TV2, is fenced by no one under TV1",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=VERIFICATION_HELD_PAST_THE_TIMEOUT,
    sides_together=True,  # each side has a cluster of its own
    control=Variant(
        "control",
        {},
        kafka_version="3.9.2",
        broker_settings=CLEANUP,
        workload=replace(WORKLOAD, client_version="3.9.2"),
        expect={"app_fenced": REQUIRED},
        checks=(TIMED_OUT,),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        kafka_version="4.4.0",
        broker_settings=CLEANUP,
        workload=replace(WORKLOAD, client_version="4.4.0"),
        expect={a: FORBIDDEN for a in ("app_fenced", "lost", "duplicate", "aborted_read", "torn_transaction")},
        checks=(TIMED_OUT, delivered(PRODUCER, 0, "the app aborted the timed-out transaction and went on")),
    ),
)
