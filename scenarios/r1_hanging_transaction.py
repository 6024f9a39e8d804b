"""R1 — KAFKA-14402: a late Produce after an abort joins the producer's next transaction, Kafka 3.5.2 vs 3.6.1.

Bug: https://issues.apache.org/jira/browse/KAFKA-14402 (KIP-890 part 1, "Transactions
Server-Side Defense", https://cwiki.apache.org/confluence/display/KAFKA/KIP-890%3A+Transactions+Server-Side+Defense).
Up to Kafka 3.5 a partition leader takes a transactional batch from any producer at a
current epoch, whether or not the coordinator has that partition in an open transaction. A
Produce held on the wire past the client's timeout reaches the leader after the client
failed the batch and aborted the transaction: the leader opens a transaction for it that the
coordinator knows nothing of. Nothing can end it but the producer's next write to that
partition, which joins it, so the next commit commits the aborted batch (records read though
aborted); with no next write the partition's last stable offset stays there for good
(read_committed readers stall). Kafka 3.6.0 added verification: before it opens a
transaction for a producer the leader asks the coordinator, and the late batch is refused.
3.6.0 itself had KAFKA-15653 (verification with compression); 3.6.1 is the first fixed release.
R2 shows the same bug on one version with the setting off and on.

Workload and fault: ``late_produce`` (scenarios/late_produce.py): librdkafka's transactional
producer, one Produce held 4.5 s past its 2 s timeouts, the app backing off 4 s after the abort.
Control: Kafka 3.5.2: the late batch is taken (answered NONE) and its aborted records are read.
Guarantee: Kafka 3.6.1: the late batch is refused, nothing is read though aborted.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.checks import late_copy_answered
from harness.verdict.document import FORBIDDEN, ONE_OF
from scenarios.late_produce import LATE_PRODUCE, WORKLOAD

SCENARIO = Scenario(
    id="R1",
    title="KAFKA-14402: a late Produce after an abort joins the next transaction, Kafka 3.5.2 vs 3.6.1",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=LATE_PRODUCE,
    sides_together=True,  # each side has a cluster of its own
    control=Variant(
        "control",
        {},
        kafka_version="3.5.2",
        expect={"aborted_read": ONE_OF, "read_committed_stall": ONE_OF},
        checks=(late_copy_answered(("NONE",), "the leader took the late batch of an aborted transaction"),),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        kafka_version="3.6.1",
        expect={"aborted_read": FORBIDDEN, "lost": FORBIDDEN, "duplicate": FORBIDDEN},
        checks=(
            late_copy_answered(
                ("INVALID_TXN_STATE", "PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH", "TRANSACTION_ABORTABLE"),
                "verification refused the late batch",
            ),
        ),
    ),
)
