"""B12 — research: a late InitProducerId fences the producer that sent it.

A transactional producer starts (here: restarts after a crash) and asks its coordinator for
its producer id and epoch (InitProducerId). The request is held up on the wire past the
client's request timeout; the client gives up on that connection, asks again over a new
one, gets epoch e and starts its transactions. Then the held copy reaches the coordinator,
which takes it for a new incarnation of the same transactional.id: it bumps the epoch to
e+1, aborting whatever the live producer had open (then it answers CONCURRENT_TRANSACTIONS,
else NONE). The live producer, which sent both
requests, is now a zombie of itself: its next transactional request is refused as fenced.

What does each client do? Neither can tell the late copy from a real new instance; the
question is how the app learns it (which error, when) and what becomes of its records.

Fault: once the app has 100 records acknowledged (its own InitProducerId long answered), the
next InitProducerId of its transactional.id is held 6 s on its coordinator's client link
(protocol fault ``hold``); at 400 acknowledged the app is killed and restarted at once, so
the held request is the new incarnation's first: past the 2 s request timeout, the client has
retried, got its epoch and is mid-stream when the late copy lands. (Fired at 4.5 and 5 s, the
two once met an app that had not started on a busy machine.)
Control side: librdkafka. Guarantee side: Kafka's Java client (each side pins its client).
No claim either way: the findings (fenced, errors, records lost or aborted) are the result.
"""

from harness.faults import App, AppSent, Step, TransactionalId, TxnCoordinator, kill, protocol
from harness.scenario import Scenario, Variant
from harness.verdict.checks import late_copy_answered
from harness.verdict.document import ALLOWED
from harness.workloads.clients import JAVA, LIBRDKAFKA
from harness.workloads.producer import PRODUCER, ProducerWorkload

TXN_ID = "b12-app"
HELD_MS = 6000  # the client has long retried and is mid-stream when the late copy lands
FINDINGS = {a: ALLOWED for a in ("lost", "aborted_read", "torn_transaction", "duplicate", "app_fenced")}
# The coordinator answers NONE (between transactions) or CONCURRENT_TRANSACTIONS (it aborts
# the open one first): either way the epoch moves on.
ARRIVED = late_copy_answered((), "the late InitProducerId reached the coordinator after the client had moved on")

WORKLOAD = ProducerWorkload(
    count=3000,
    rate_per_s=200,
    txn_size=20,
    config={"transactional.id": TXN_ID, "socket.timeout.ms": 2000, "message.timeout.ms": 60_000},
)


TXN = TransactionalId(PRODUCER)
HOLD = protocol(TxnCoordinator(TXN), "InitProducerId", "hold", duration_ms=HELD_MS, transactional_id=TXN)
LATE_INIT_AFTER_A_RESTART = (
    # In place until well after the kill and the restart, however long a busy machine takes between them.
    Step(4.5, HOLD, duration_s=60.0, when=AppSent(PRODUCER, 100, acknowledged=True)),
    Step(5.0, kill(App(PRODUCER)), duration_s=0.5, when=AppSent(PRODUCER, 400, acknowledged=True)),
)


SCENARIO = Scenario(
    id="B12",
    title="research: a late InitProducerId fences the producer that sent it (librdkafka vs Java)",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=LATE_INIT_AFTER_A_RESTART,
    research=True,
    sides_together=True,  # each side's fault matches only its own transactional.id
    control=Variant("control", {}, client=LIBRDKAFKA, expect=FINDINGS, checks=(ARRIVED,)),
    guarantee=Variant("guarantee", {}, client=JAVA, expect=FINDINGS, checks=(ARRIVED,)),
)
