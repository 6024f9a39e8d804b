"""B9 — research: can a late EndTxn, resent over a new connection, end the wrong transaction? (KAFKA-17754)

Under the original transaction protocol (TV1) the request that ends a transaction (EndTxn)
names the producer id and epoch but not which transaction it means. Suppose one EndTxn is
held up on the wire: the client times out, closes that connection, resends the EndTxn over
a new one, gets its answer and starts the next transaction. When the held copy finally
reaches the coordinator it finds that next transaction open, with the same id and epoch,
and ends it early: its later records land outside any transaction (a hanging or torn
transaction, records lost or read though aborted). Kafka 4.0's protocol TV2 (KIP-890) bumps
the epoch with every transaction, so the late copy is fenced, but only for a client that
speaks TV2: Kafka's Java client 4.x does, librdkafka does not (its issue 5423).

How the race is set up: the topic's one partition is not led by the coordinator's broker,
so its client link carries the transaction requests alone, and with one partition a
transaction adds it once, at its start: most requests held are EndTxns. A 3 s latency, on
half of that link's connections (drawn per connection), holds an EndTxn past the client's
2 s request timeout while the reconnection it makes may go through at once; the held bytes
still reach the broker after the client gave up on them. Eight such windows of 3.5 s,
0.6 s apart.

Run with ``--client java`` for the Java client on both sides. It makes no pass/fail claim;
the checker's findings on each side are the result.
Control: Kafka 3.9.2 (TV1). Guarantee side: Kafka 4.4.0, the harness default (TV2).
"""

from harness.faults import AppSent, Step, TxnCoordinator, latency
from harness.scenario import Scenario, Variant
from harness.verdict.judge import ALLOWED
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "b9-app"
REQUEST_TIMEOUT_MS = 2000
HELD_MS = 3000  # past the request timeout: the client resends before the held copy arrives
WINDOWS, WINDOW_S = 8, 3.5
# Between windows: a transaction or more runs free, so a window opens at any point of one
# (right after a heal it would always open on the next transaction's first request).
PAUSE_S = 0.6
FINDINGS = {a: ALLOWED for a in ("lost", "aborted_read", "torn_transaction", "duplicate", "inconsistent_offset")}


def late_end_txn_windows(topic: str) -> list[Step]:
    # The runner gives the transactional.id the topic as a suffix.
    hold = latency(TxnCoordinator(f"{TXN_ID}-{topic}"), ms=HELD_MS, direction="to_broker", toxicity=0.5)
    # From 10 s, once transactions are under way: a window over the client's start would hold
    # its InitProducerId, whose late copy bumps the epoch and fences the producer itself.
    started = AppSent(PRODUCER, 150)
    period = WINDOW_S + PAUSE_S
    return [
        Step(10.0 + i * period, hold, WINDOW_S, when=started, when_timeout_s=WINDOWS * period + 60)
        for i in range(WINDOWS)
    ]


SCENARIO = Scenario(
    id="B9",
    title="research: a late EndTxn over another connection (KAFKA-17754), Kafka 3.9 vs 4.x",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=6000,
        partitions=1,
        rate_per_s=150,
        txn_size=10,
        leaders_off_coordinator=True,
        config={
            "transactional.id": TXN_ID,
            "socket.timeout.ms": REQUEST_TIMEOUT_MS,
            "message.timeout.ms": 60_000,
        },
    ),
    schedule=late_end_txn_windows,
    control=Variant("control", {}, expect=FINDINGS, kafka_version="3.9.2"),
    guarantee=Variant("guarantee", {}, expect=FINDINGS),
    research=True,
    sides_together=True,  # the control has a cluster of its own (Kafka 3.9)
)
