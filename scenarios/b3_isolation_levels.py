"""B3 — aborted transactions are visible to a consumer that reads uncommitted.

An aborted transaction's records stay in the log; what hides them is the abort marker
and the consumer's isolation level. A ``read_committed`` consumer skips them (and reads
no further than the last stable offset); a ``read_uncommitted`` one hands them to the
application as if they had been written for good. The Java client reads uncommitted
unless told otherwise, librdkafka reads committed.

Fault: none; the producer aborts every other transaction on purpose (after its records
were written).
Control (the downstream consumer reads uncommitted): aborted records read.
Guarantee (the downstream consumer reads committed): none read, nothing committed lost,
no transaction torn.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.checks import exactly, stat
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import ProducerWorkload

SCENARIO = Scenario(
    id="B3",
    title="aborted transactions are read by a read_uncommitted consumer, never by read_committed",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=400, rate_per_s=400, txn_size=10, abort_every=2, config={"transactional.id": "b3-app"}
    ),
    schedule=(),
    sides_together=True,  # no fault: the sides cannot disturb each other
    control=Variant(
        "control",
        {},
        expect={"aborted_read": REQUIRED},
        consumer_view="read_uncommitted",
        checks=(exactly("aborted_read", 200, "every record of the 20 aborted transactions of 10, and only those"),),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"aborted_read": FORBIDDEN, "lost": FORBIDDEN, "torn_transaction": FORBIDDEN},
        checks=(stat("transactions_aborted", 20, "the producer aborted every other one of its 40 transactions"),),
    ),
)
