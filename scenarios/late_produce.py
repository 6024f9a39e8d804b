"""The workload and fault R1 and R2 share (KAFKA-14402): a transactional Produce held past the
client's timeout lands after the app aborted that transaction.

The app sends transactions of 20 records to one partition, led off its transaction
coordinator. One of its Produce requests, the 20th after the fault starts, is held 4.5 s on the
partition leader's client link (protocol fault ``hold``, only the app's transactional.id):
past the client's 2 s request and delivery timeouts, so the batch fails there, the app aborts
the transaction and backs off 4 s before the next one; the held copy reaches the leader
inside that pause, after the abort's markers. Without the pause the next transaction's first
write (at the bumped epoch) would reach the partition first and fence the late copy.

librdkafka looks for timed-out requests once a second, so a 2 s timeout fires between 2 and
3 s, later on a loaded machine: a copy held 3 s once reached the leader before the client had
given up (CI, R2's control: answered NONE over the open connection, no abort, nothing to
see). 4.5 s leaves 1.5 s past the latest of those, and the 4 s pause as much after it.
"""

from harness.faults import MAIN, AppSent, Leader, Step, TransactionalId, protocol
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "late-produce-app"
TIMEOUT_MS = 2000  # the client's request and delivery timeouts
HELD_MS = TIMEOUT_MS + 2500  # past both: the batch has failed and the transaction aborted
PAUSE_MS = 4000  # the app's back-off after the abort: the late copy lands in it

WORKLOAD = ProducerWorkload(
    count=2000,
    rate_per_s=200,
    txn_size=20,
    pause_after_abort_ms=PAUSE_MS,
    leaders_off_coordinator=True,
    config={
        "transactional.id": TXN_ID,
        "linger.ms": 0,
        "socket.timeout.ms": TIMEOUT_MS,
        "message.timeout.ms": TIMEOUT_MS,
        "transaction.timeout.ms": 60_000,
    },
)


HOLD = protocol(
    Leader(MAIN), "Produce", "hold", duration_ms=HELD_MS, after=20, transactional_id=TransactionalId(PRODUCER)
)
LATE_PRODUCE = (Step(1.0, HOLD, duration_s=15.0, when=AppSent(PRODUCER, 200)),)
