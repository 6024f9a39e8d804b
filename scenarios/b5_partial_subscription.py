"""B5 — a transaction is atomic across partitions, but a consumer of some partitions sees only its part.

A transaction writes to several partitions and commits them all or none, yet each
partition is read on its own. A consumer assigned only some of the partitions (one member
of a group, or a manual assignment) sees exactly the transaction's records in those
partitions: committed and complete there, but only part of the whole. That is Kafka's
documented limit, not a broken guarantee: what must hold is that within the partitions
read no committed transaction is torn and nothing committed is missing.

Fault: none; transactions of eight keyed records spread over four partitions.
Control (the consumer is assigned partitions 0 and 1 only): committed transactions read
in part; none torn, none lost within the partitions read.
Guarantee (the consumer is assigned every partition): every committed transaction read
whole; none torn, none lost.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import ProducerWorkload

WITHIN_THE_PARTITIONS_READ = {"torn_transaction": FORBIDDEN, "lost": FORBIDDEN, "aborted_read": FORBIDDEN}

SCENARIO = Scenario(
    id="B5",
    title="a consumer of some partitions sees part of a transaction, never a torn one",
    story=__doc__ or "",
    workload=ProducerWorkload(
        count=800, rate_per_s=400, keys=16, partitions=4, txn_size=8, config={"transactional.id": "b5-app"}
    ),
    schedule=(),
    sides_together=True,  # no fault: the sides cannot disturb each other
    control=Variant(
        "control", {}, expect={"partly_read": REQUIRED, **WITHIN_THE_PARTITIONS_READ}, read_partitions=(0, 1)
    ),
    guarantee=Variant("guarantee", {}, expect={"partly_read": FORBIDDEN, **WITHIN_THE_PARTITIONS_READ}),
)
