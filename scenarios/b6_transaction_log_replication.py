"""B6 — the transaction log needs more brokers than the cluster has: transactions cannot start.

Transactional producers register with a transaction coordinator, whose state lives in the
internal ``__transaction_state`` topic. That topic is created on first use with
``transaction.state.log.replication.factor`` replicas and must keep
``transaction.state.log.min.isr`` of them in sync. Ask for more replicas than there are
brokers and it can never be created: no coordinator is ever available, and every
``init_transactions`` times out, while plain producers on the same cluster work fine.
A replication factor the cluster can meet works, and is what the broker rules of
``kafka-harness verify-config`` demand.

Fault: none; the control runs on a cluster of its own whose transaction log asks for 4
replicas of 3 brokers.
Control (transaction.state.log.replication.factor = 4): init_transactions fails.
Guarantee (replication factor 3, min ISR 2, the harness's default cluster): transactions
start and commit.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import ProducerWorkload

SCENARIO = Scenario(
    id="B6",
    title="transaction log replication factor above the broker count: transactions never start",
    story=__doc__ or "",
    workload=ProducerWorkload(count=200, rate_per_s=500, config={"transactional.id": "b6-app"}),
    schedule=(),
    control=Variant(
        "control",
        {},
        expect={"txn_init_failed": REQUIRED},
        broker_settings={"transaction.state.log.replication.factor": "4"},
    ),
    guarantee=Variant("guarantee", {}, expect={"txn_init_failed": FORBIDDEN, "lost": FORBIDDEN}),
    sides_together=True,  # the control has a cluster of its own
)
