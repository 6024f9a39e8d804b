"""B11 — the commit is carried out but its answer is lost: did it commit?

The app ends a transaction: its EndTxn reaches the transaction coordinator, which writes the
commit, but the connection dies before the answer comes back. The client asks again over a
new connection, which dies the same way, and again, until the app's commit call times out
with a retriable error. The outcome is open: the transaction *has* committed.

Kafka's clients say what to do with a retriable error from commit: call commit again. The
coordinator answers the retried EndTxn with success, and the transaction counts once. An app
that instead takes the failed commit for "not done" and sends the batch again (from a fresh
producer, as apps do after an error they do not understand) writes every record of it twice,
both copies committed.

Fault: every EndTxn of the app's transactional.id is let through to its coordinator and the
connection closed behind it (protocol fault ``cut_after``), for 9 s from mid-stream: longer
than the app's 4 s commit timeout. On the app's own links, so both sides run at once.
Control (the app resends the batch after a failed commit): duplicates must appear.
Guarantee (the app retries the commit): no duplicate, nothing lost, nothing torn.
"""

from dataclasses import replace

from harness.faults import OWN_LINKS, AppSent, Step, TransactionalId, TxnCoordinator, protocol
from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "b11-app"
COMMIT_TIMEOUT_S = 4.0
CUT_S = 9.0  # past the commit timeout: the app's commit call fails while the fault lasts

WORKLOAD = ProducerWorkload(
    own_links=True,
    count=3000,
    rate_per_s=200,
    txn_size=20,
    commit_timeout_s=COMMIT_TIMEOUT_S,
    config={"transactional.id": TXN_ID, "socket.timeout.ms": 2000, "message.timeout.ms": 60_000},
)


CUT = protocol(TxnCoordinator(TransactionalId(PRODUCER)), "EndTxn", "cut_after", times=0, listener=OWN_LINKS)


SCENARIO = Scenario(
    id="B11",
    title="a commit carried out whose answer is lost: retried, it counts once; resent, twice",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=(Step(3.0, CUT, duration_s=CUT_S, when=AppSent(PRODUCER, 600)),),
    sides_together=True,  # each side's fault is on its own links
    control=Variant(
        "control",
        {},
        workload=replace(WORKLOAD, on_commit_error="resend"),
        expect={"duplicate": REQUIRED},
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"duplicate": FORBIDDEN, "lost": FORBIDDEN, "torn_transaction": FORBIDDEN, "aborted_read": FORBIDDEN},
    ),
)
