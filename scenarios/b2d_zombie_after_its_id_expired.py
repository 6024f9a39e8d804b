"""B2d — research: a zombie comes back after its transactional.id expired; what fences it?

B2a's story with one more wait. The transactional app stalls (SIGSTOP) in the middle of a
batch, and stays stalled long enough for the brokers to forget its transactional.id. The
coordinator first aborts the open transaction when ``transaction.timeout.ms`` runs out,
bumping the producer epoch (e to e+1): the abort markers it writes carry e+1, so from then on
the leaders of the transaction's partitions refuse the zombie's epoch-e batches (INVALID_PRODUCER_EPOCH) for as long
as they keep its producer id (``producer.id.expiration.ms``, default a day). Only a
transactional.id whose transaction is over (Empty, CompleteCommit, CompleteAbort: never an
Ongoing or Prepare* one) expires, ``transactional.id.expiration.ms`` (default 7 days) after its
last update; the coordinator looks for such ids every
``transaction.remove.expired.transaction.cleanup.interval.ms`` (default 1 h), writes a tombstone
and forgets the id. The replacement's ``init_transactions`` then finds no such id and is given a
*new producer id* P1 at epoch 0, not a bumped epoch of the zombie's P0.

What the coordinator answers the zombie (Kafka's TransactionCoordinator, read in its source,
and the answers recorded here on Kafka 4.4.0): AddPartitionsToTxn, AddOffsetsToTxn and EndTxn
compare the producer id before the epoch, so P0 against P1 (or against no id at all) is
INVALID_PRODUCER_ID_MAPPING, not PRODUCER_FENCED. What the zombie makes of it depends on its
client:

- librdkafka (EndTxn v1): abortable, with an epoch bump (KIP-360). It aborts (an EndTxn abort:
  INVALID_PRODUCER_ID_MAPPING again), then asks InitProducerId (v4) naming (P0, e). The
  coordinator accepts that only if the id's stored epoch is unset (metadata just created), or
  the producer id is the stored one, or the previous one at an exhausted epoch: P0 is none of
  these for P1's id, so it answers PRODUCER_FENCED and the app stops fenced (``_FENCED``).
- Kafka's Java client 4.4.0 on transaction protocol 2 (EndTxn v5): the error moves the producer
  to its fatal state at once (TV2 leaves epoch bumps to the coordinator); it sends nothing more
  and the app stops on INVALID_PRODUCER_ID_MAPPING. Its EndTxn may first be answered
  CONCURRENT_TRANSACTIONS, which it retries: Kafka 4.4.0's protocol-2 EndTxn looks for a pending
  transition (the new owner's transaction ending) before it compares producer ids (2 runs in 5
  here). (Java clients before 4.0 take the librdkafka path, without the EndTxn abort.)

Had nobody taken the id yet, the zombie's own InitProducerId would have found no metadata,
created it and been given a new producer id: it would go on as the id's owner, alone, until a
replacement fenced it as usual. So expiry changes *what* fences the zombie (the producer id
mapping, and the refused epoch bump, instead of the epoch), not *whether*: its transaction was
aborted by the timeout and nothing of it becomes visible. A Produce of the zombie would meet
partition leaders that remember P0 at e+1 (INVALID_PRODUCER_EPOCH), or after
``producer.id.expiration.ms`` verification (Kafka 3.6+, on by default) asking the coordinator
(INVALID_PRODUCER_ID_MAPPING); without verification (before 3.6, or switched off) such a late
batch would be taken into a transaction nobody ends: R1/R2's hanging transaction. Here the
zombie sends none: its batch was delivered before the stall.

Fault: once the app is mid-stream (300 outputs sent) and has held a batch it has not committed
for 300 ms (its offsets added, asleep in the 1 s before its commit), SIGSTOP it for 30 s (past
its 6 s session and its 5 s transaction timeout); 16 s into the stall start the replacement
(same transactional.id); then SIGCONT the zombie, whose next request is its commit (EndTxn),
or AddOffsetsToTxn if the stall found it before it had added its offsets (a busy machine).
From the stall on, every EndTxn, AddOffsetsToTxn and InitProducerId the zombie (client.id
transformer-1) sends its coordinator is delayed 1 ms (protocol ``delay_response``) so that the
broker's answers are recorded; the checks take the fencing answer from either request.
Control: a cluster of its own with ``transactional.id.expiration.ms=5000`` and both cleanup
intervals at 1 s: the id is gone about 12 s into the stall. The zombie's commit is answered
INVALID_PRODUCER_ID_MAPPING and it stops (librdkafka: its epoch bump answered PRODUCER_FENCED).
Guarantee: Kafka's default expiry (7 days): the replacement's InitProducerId bumps P0's epoch
and the zombie's commit is answered PRODUCER_FENCED (INVALID_PRODUCER_EPOCH to librdkafka's
EndTxn v1, the name brokers give it for requests older than KIP-588); it stops fenced.
A research pair: both sides are expected clean, the result is the answers (the checks).
"""

from dataclasses import replace

from harness.faults import App, Paused, Step, TransactionalId, TxnCoordinator, launch, pause, protocol
from harness.scenario import Scenario, Variant
from harness.verdict.checks import answered, ended
from harness.verdict.document import ALLOWED
from harness.workloads.apps.transactions import FENCED_EXIT
from harness.workloads.pipeline import BatchUncommitted, transformer
from scenarios import b2a_zombie_fenced_by_transactional_id as b2a

ZOMBIE, REPLACEMENT = transformer(1), transformer(2)
STALL_S = 30.0
# The id is gone ~12 s into the stall (5 s transaction timeout + 1 s abort scan, then 5 s
# expiry + 1 s cleanup scan); the replacement starts after that.
REPLACE_AFTER_S = 16.0
TRANSACTION_TIMEOUT_MS = 5000
EXPIRY = {
    "transactional.id.expiration.ms": "5000",
    "transaction.remove.expired.transaction.cleanup.interval.ms": "1000",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "1000",
}
# Requests whose answers tell what fenced the zombie. Its first request after the stall is
# its commit's EndTxn, or, when the stall found it still adding its offsets (a slow machine
# keeps it there past held_ms), AddOffsetsToTxn: both compare the producer id, then the epoch.
FENCING_ASKED = ("EndTxn", "AddOffsetsToTxn")
RECORDED = (*FENCING_ASKED, "InitProducerId")
# The epoch check's answer: PRODUCER_FENCED, which brokers send as INVALID_PRODUCER_EPOCH to
# requests older than KIP-588's (EndTxn v0-1, InitProducerId v0-3: librdkafka's EndTxn).
EPOCH_FENCED = ("PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH")
# Fenced, or (Java on protocol 2, control) a fatal INVALID_PRODUCER_ID_MAPPING: exit 3 either way.
STOPS = ended(ZOMBIE, (FENCED_EXIT,), "the zombie stops, told it may not go on")
FINDINGS = {a: ALLOWED for a in ("eos_repeated", "eos_missing", "zombie_write", "duplicate", "aborted_read")}

# B2a's pipeline (one app, a standby replacement sharing its transactional.id), with
# transactions the coordinator aborts 5 s into a stall, and a second between adding a batch's
# offsets and committing it: the stall must find the app there, asleep, and not in a client
# call (a request in flight when it stops has timed out when it wakes, and is never answered).
PIPELINE = replace(
    b2a.PIPELINE,
    pause_before_commit_ms=1000,
    producer_config={"transaction.timeout.ms": TRANSACTION_TIMEOUT_MS},
)
MID_BATCH = BatchUncommitted(ZOMBIE, after=300, held_ms=300)


# The coordinator of the transactional.id every instance shares.
COORDINATOR = TxnCoordinator(TransactionalId(ZOMBIE))
STALL_PAST_EXPIRY = (
    Step(0.0, pause(App(ZOMBIE)), duration_s=STALL_S, when=MID_BATCH),
    Step(0.0, launch(App(REPLACEMENT)), when=Paused(ZOMBIE, for_s=REPLACE_AFTER_S)),
    *(
        Step(0.0, protocol(COORDINATOR, api, "delay_response", 1, times=0, client_id=ZOMBIE), when=Paused(ZOMBIE))
        for api in RECORDED
    ),
)


SCENARIO = Scenario(
    id="B2d",
    title="research: a zombie after its transactional.id expired is fenced by the id mapping, not the epoch",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=STALL_PAST_EXPIRY,
    research=True,
    sides_together=True,  # faults hit each side's own apps and its own transactional.id only
    control=Variant(
        "control",
        {},
        broker_settings=EXPIRY,
        expect=FINDINGS,
        checks=(
            answered(
                FENCING_ASKED, ZOMBIE, ("INVALID_PRODUCER_ID_MAPPING",), "its expired id maps to a new producer id"
            ),
            STOPS,
        ),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect=FINDINGS,
        checks=(answered(FENCING_ASKED, ZOMBIE, EPOCH_FENCED, "the replacement's init bumped the epoch"), STOPS),
    ),
)
