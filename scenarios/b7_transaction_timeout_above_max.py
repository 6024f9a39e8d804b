"""B7 — a producer asks for a transaction timeout above the broker's maximum.

The transaction coordinator caps how long a transaction may stay open at
``transaction.max.timeout.ms`` (15 minutes by default). A producer whose
``transaction.timeout.ms`` is larger is turned away when it registers
(``init_transactions``) with InvalidTxnTimeout, before it can write anything. The harness
reports that as a ``config_error`` with the broker's answer.

Fault: none.
Control (transaction.timeout.ms = 1 hour): refused with INVALID_TRANSACTION_TIMEOUT.
Guarantee (transaction.timeout.ms = 1 minute): starts, commits, nothing lost.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import ProducerWorkload

SCENARIO = Scenario(
    id="B7",
    title="transaction.timeout.ms above the broker's transaction.max.timeout.ms is refused",
    story=__doc__ or "",
    workload=ProducerWorkload(count=200, rate_per_s=500, config={"transactional.id": "b7-app"}),
    schedule=(),
    sides_together=True,  # no fault: the sides cannot disturb each other
    control=Variant("control", {"transaction.timeout.ms": 3_600_000}, expect={"config_error": REQUIRED}),
    guarantee=Variant(
        "guarantee",
        {"transaction.timeout.ms": 60_000},
        expect={"config_error": FORBIDDEN, "lost": FORBIDDEN, "aborted_read": FORBIDDEN},
    ),
)
