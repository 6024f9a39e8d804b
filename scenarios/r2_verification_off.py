"""R2 — KAFKA-14402 on one broker version: a late Produce after an abort, with the partition's
transaction verification off (control) and on (guarantee).

Bug: https://issues.apache.org/jira/browse/KAFKA-14402 (KIP-890 part 1, "Transactions
Server-Side Defense"). A partition leader takes a transactional batch from any producer id
at a current epoch, whether or not the coordinator has that partition in an open transaction.
A Produce held on the wire past the client's timeout reaches the leader after the client
failed the batch and aborted the transaction: the leader opens a new transaction for it that
the coordinator knows nothing of. Nothing can end it but the producer's next write to that
partition, which joins it: the next commit commits the aborted batch (records read though
aborted); with no next write the partition's last stable offset stays there for good
(read_committed readers stall). Kafka 3.6 added verification: the leader asks the
coordinator before it opens a transaction for a producer, and the late batch is refused.
It is a broker setting, ``transaction.partition.verification.enable`` (default true since
3.6.1; 3.6.0 had KAFKA-15653). Clients on transaction protocol 1 rely on it alone: librdkafka
is one on every broker (its issue 5423), and Kafka 4.x answers it with protocol 1 semantics.

Workload and fault: ``late_produce`` (scenarios/late_produce.py): librdkafka's transactional
producer, one Produce held 4.5 s past its 2 s timeouts, the app backing off 4 s after the abort.
Control: Kafka 4.4.0 with ``transaction.partition.verification.enable=false``: the late batch
is taken (answered NONE) and its aborted records are read. Guarantee: the same broker with
verification on (the default): the late batch is refused, nothing read though aborted.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.checks import late_copy_answered
from harness.verdict.document import FORBIDDEN, ONE_OF
from scenarios.late_produce import LATE_PRODUCE, WORKLOAD

SCENARIO = Scenario(
    id="R2",
    title="KAFKA-14402 on one version: a late Produce after an abort, partition verification off vs on",
    story=__doc__ or "",
    workload=WORKLOAD,
    schedule=LATE_PRODUCE,
    sides_together=True,  # the control has a cluster of its own
    control=Variant(
        "control",
        {},
        broker_settings={"transaction.partition.verification.enable": "false"},
        expect={"aborted_read": ONE_OF, "read_committed_stall": ONE_OF},
        checks=(late_copy_answered(("NONE",), "the leader took the late batch of an aborted transaction"),),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"aborted_read": FORBIDDEN, "lost": FORBIDDEN, "duplicate": FORBIDDEN},
        checks=(
            late_copy_answered(
                ("INVALID_TXN_STATE", "PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH", "TRANSACTION_ABORTABLE"),
                "verification refused the late batch",
            ),
        ),
    ),
)
