"""R4 — KAFKA-16386: a lost verification is fatal to the Java client's offset commit, Kafka 3.7.0 vs 3.7.1.

Bug: https://issues.apache.org/jira/browse/KAFKA-16386 (fix: https://github.com/apache/kafka/pull/15559,
3.7 backport https://github.com/apache/kafka/pull/15755). Since Kafka 3.6 a broker verifies a
transactional write with the transaction coordinator before it takes it; since 3.7 the group
coordinator does the same for a transaction's offset commit (TxnOffsetCommit, KAFKA-15449).
That check is an inter-broker AddPartitionsToTxn request. When it is disconnected or times
out, a 3.7.0 broker answers the client with NETWORK_EXCEPTION, which Kafka's Java producer has
no case for in its TxnOffsetCommit handler: "Unexpected error in TxnOffsetCommitResponse", a
fatal error. The producer is dead, and the consume-transform-produce app with it. 3.7.1 maps
the error to one the client retries (COORDINATOR_LOAD_IN_PROGRESS for the offset commit).

Workload: the Java transformer (kafka-clients 3.7.1 on both sides: the client's handler is the
same; only the broker differs), transactional, one instance, its consumer group's coordinator
on another broker than its transaction coordinator (the group id is chosen so), so the group
coordinator's checks cross the inter-broker links.
Fault: for 4 s from mid-stream, every AddPartitionsToTxn reaching the transaction coordinator
over its inter-broker (replication) link is let through and its connection closed where the
answer comes back (protocol fault ``cut_after``): the checking broker sees a disconnect. The
app's next TxnOffsetCommit is held 2 s on the way to its group coordinator (``hold``) and the
cut put on while it waits, so the first check the cut meets is that commit's (a cut that met
the produce checks first would leave the app retrying them, on 3.7.0 too, never committing).
Control: Kafka 3.7.0: the app stops on "Unexpected error in TxnOffsetCommitResponse".
Guarantee: Kafka 3.7.1: the offset commit is retried, every input has exactly one output.
"""

from harness.faults import AppSent, Brokers, Hits, Step, TransactionalId, TxnCoordinator, protocol
from harness.scenario import Scenario, Variant
from harness.verdict.checks import stopped_by
from harness.verdict.document import ALLOWED, FORBIDDEN, REQUIRED
from harness.workloads.clients import JAVA
from harness.workloads.pipeline import PipelineWorkload, transformer

PIPELINE = PipelineWorkload(
    client=JAVA,
    client_version="3.7.1",
    inputs=3000,
    partitions=3,
    batch_size=50,
    pause_before_commit_ms=100,
    coordinators_apart=True,
)


TXN = TransactionalId(transformer(1))
CUT = protocol(TxnCoordinator(TXN), "AddPartitionsToTxn", "cut_after", times=0, listener="replication")
# The app's next offset commit waits on the wire, the cut is put on meanwhile, and the commit's
# check meets it (a cut that met produce checks first would leave the app retrying them).
LATE_COMMIT = protocol(Brokers(), "TxnOffsetCommit", "hold", duration_ms=2000, transactional_id=TXN)


SCENARIO = Scenario(
    id="R4",
    title="KAFKA-16386: a lost verification is fatal to the Java client's offset commit, Kafka 3.7.0 vs 3.7.1",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=(
        Step(1.0, LATE_COMMIT, duration_s=8.0, when=AppSent(transformer(1), 300)),
        Step(1.0, CUT, duration_s=4.0, when=Hits("TxnOffsetCommit")),  # once the commit is held
    ),
    sides_together=True,  # each side has a cluster of its own
    control=Variant(
        "control",
        {},
        kafka_version="3.7.0",
        expect={"app_fenced": REQUIRED, "eos_missing": ALLOWED},
        checks=(stopped_by(transformer(1), "TxnOffsetCommitResponse", "the offset commit's lost check was fatal"),),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        kafka_version="3.7.1",
        expect={a: FORBIDDEN for a in ("app_fenced", "eos_missing", "eos_repeated", "duplicate", "aborted_read")},
    ),
)
