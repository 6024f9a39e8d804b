"""D1 — Kafka Streams: an instance crashes after writing state and output, before its offsets commit.

A Streams app maps each input to one output record and keeps a per-key count and sum of the
input ids in a state store whose changelog is a Kafka topic, sending each key's running totals
downstream. Between two commits it has written outputs, store updates, changelog records and
totals for inputs whose offsets are not committed yet. SIGKILLed then and restarted, it
resumes from the last committed offsets and processes those inputs again. Under
``at_least_once`` what it wrote stays: the outputs are written twice, and the store, rebuilt
from a changelog that holds the updates of the reprocessed inputs, counts them twice. Under
``exactly_once_v2`` the outputs, the changelog records and the input offsets are one
transaction: the restarted instance's producer (same transactional.id: its process id is kept
in the state directory) aborts the open one, the store is rebuilt from the changelog's
committed records only, and every input has one output and is counted once.

Fault: the instance's second commit of its input offsets from the start is swallowed on the
wire (at_least_once: its ``OffsetCommit``, sent once its outputs and changelog records are
flushed; exactly_once_v2: its ``AddOffsetsToTxn`` or ``TxnOffsetCommit``, inside the open
transaction), recognised by the application id, and the instance is SIGKILLed while it waits
for the answer (``crash_at_commit``); it restarts a second later on the same state directory.
Both sides commit every 2 s and spend 2 ms per input, so about a thousand inputs are in hand.
Control (at_least_once): repeated outputs (``sink_repeated``) and over-counted keys
(``aggregate_mismatch``).
Guarantee (exactly_once_v2, read_committed downstream): one output per input, exact totals.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.streams import AT_LEAST_ONCE, EXACTLY_ONCE_V2, StreamsWorkload
from scenarios.streams_faults import KILL_AT_A_COMMIT, KILLED_ONCE

APP = StreamsWorkload(inputs=3000, partitions=3, keys=12, commit_interval_ms=2000, delay_ms_per_record=2.0)

SCENARIO = Scenario(
    id="D1",
    title="Streams instance killed between its writes and its offsets commit: repeats and over-counts",
    story=__doc__ or "",
    workload=APP,
    schedule=KILL_AT_A_COMMIT,
    control=Variant(
        "control",
        {},
        expect={"sink_repeated": REQUIRED, "aggregate_mismatch": REQUIRED, "sink_missing": FORBIDDEN},
        workload=replace(APP, processing_guarantee=AT_LEAST_ONCE),
        checks=(KILLED_ONCE,),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN, "aggregate_mismatch": FORBIDDEN},
        workload=replace(APP, processing_guarantee=EXACTLY_ONCE_V2),
        checks=(KILLED_ONCE,),
    ),
    sides_together=True,  # the kill hits each side's own app only
)
