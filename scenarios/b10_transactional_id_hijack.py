"""B10 — a foreign producer takes over the app's transactional.id; only an ACL on the id stops it.

A transactional producer owns its ``transactional.id`` only by being the last to call
``init_transactions`` with it. Any client that knows the id (it is no secret: it sits in
configuration files and logs) can call ``init_transactions`` with it too: the coordinator
bumps the id's epoch, aborts the app's open transaction and fences the app, which must
stop. Kafka's answer is authorization: with ACLs enforced, a ``TransactionalId`` resource
lets only the principals granted WRITE on it use the id; anyone else is refused with
TRANSACTIONAL_ID_AUTHORIZATION_FAILED before the coordinator does anything.

Both sides run on one secured cluster (SASL/PLAIN logins, ACLs enforced), so the only
difference between them is the one ACL under test: in the control the hijacker's user
may use the app's id, which is what every client may do on a cluster without ACLs (and
what a grant too broad allows on one with them); in the guarantee only the app's user
may. Running the control on an open cluster instead would also show the fencing, but the
pair would then differ in logins and authorization altogether, and would not prove that
the ACL on the id is what stops the hijacker. Both users may write the topic either way.

Fault: 3 s in, a second producer ("hijacker", its own SASL user) with the app's
transactional.id calls ``init_transactions`` and stops.
Control (the hijacker's user is granted the app's transactional.id): the app is fenced.
Guarantee (only the app's user is granted it): the hijacker gets
TRANSACTIONAL_ID_AUTHORIZATION_FAILED; the app is not fenced, nothing lost or duplicated.
"""

from harness.checker.client import TXN_ID_UNAUTHORIZED
from harness.cluster.security import SASL_PLAINTEXT, Grant
from harness.faults import App, Step, launch
from harness.scenario import Scenario, Variant
from harness.verdict.checks import delivered, fenced, refused
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import HIJACKER, PRODUCER, Hijacker, ProducerWorkload

WRITE = ("WRITE", "DESCRIBE")  # DESCRIBE finds the id's coordinator and the topic's leaders
BOTH_WRITE_THE_TOPIC_AND_APP_OWNS_ITS_ID = (
    Grant("app", "topic", WRITE),
    Grant("app", "transactional_id", WRITE),
    Grant("hijacker", "topic", WRITE),
)

SCENARIO = Scenario(
    id="B10",
    title="a foreign producer hijacks the app's transactional.id unless an ACL on the id refuses it",
    story=__doc__ or "",
    # 10 s of transactions: the hijacker (a fresh process, started 3 s in) lands mid-stream.
    workload=ProducerWorkload(
        count=1000,
        rate_per_s=100,
        config={"transactional.id": "b10-app"},
        user="app",
        hijacker=Hijacker(user="hijacker"),
    ),
    schedule=(Step(at_s=3.0, fault=launch(App(HIJACKER))),),
    control=Variant(
        "control",
        {},
        expect={"app_fenced": REQUIRED, "txn_id_unauthorized": FORBIDDEN},
        client_security=SASL_PLAINTEXT,
        acls=(*BOTH_WRITE_THE_TOPIC_AND_APP_OWNS_ITS_ID, Grant("hijacker", "transactional_id", WRITE)),
        checks=(
            fenced(PRODUCER, "the hijacker's init_transactions took the id"),
            delivered(HIJACKER, 0, "the hijacker got the id and finished"),
        ),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={
            "txn_id_unauthorized": REQUIRED,
            "app_fenced": FORBIDDEN,
            "lost": FORBIDDEN,
            "duplicate": FORBIDDEN,
            "aborted_read": FORBIDDEN,
        },
        client_security=SASL_PLAINTEXT,
        acls=BOTH_WRITE_THE_TOPIC_AND_APP_OWNS_ITS_ID,
        checks=(
            refused(HIJACKER, TXN_ID_UNAUTHORIZED, "only the app's user may use the id"),
            delivered(PRODUCER, 1000, "the app keeps its id and delivers all 1000"),
        ),
    ),
    sides_together=True,  # the fault is each side's own hijacker
)
