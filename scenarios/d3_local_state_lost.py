"""D3 — Kafka Streams: an instance's local state is lost; the store is rebuilt from its changelog.

A Streams app's state store (per-key count and sum of the input ids) lives in a local RocksDB
folder, a cache of its changelog topic. The instance is SIGKILLed mid-stream, between two
commits, and restarted on an empty state directory, as on a new disk: it restores the store
from the changelog, then resumes from the last committed offsets. What the changelog holds
decides the totals. Under ``exactly_once_v2`` the changelog records of the uncommitted inputs
belong to the killed instance's open transaction; the restore reads the changelog
read_committed, so the store is exactly what the committed offsets account for, and the
reprocessed inputs are counted once. Under ``at_least_once`` the changelog already holds the
updates of inputs whose offsets were never committed: the restored store counts them, and
reprocessing counts them again. Losing the local state costs neither guarantee anything by
itself (both restore from the changelog); the crash between commits is what the control
cannot survive. It costs exactly-once time, though: Streams keeps its process id, part of
its transactional.id, in the state directory, so the restarted instance has a new id, cannot
abort the killed one's transaction, and read_committed readers wait until that transaction
times out (10 s, plus the coordinator's abort scan).

Fault: the instance's second commit of its input offsets is swallowed on the wire and the
instance SIGKILLed while it waits for the answer (``crash_at_commit``, as D1); a second later
it restarts on a new, empty state directory (``wipe_state``: the old folder is left in the run
folder). Both sides commit every 2 s and spend 2 ms per input.
Control (at_least_once): over-counted keys and repeated outputs.
Guarantee (exactly_once_v2): the restarted instance restores the store from the changelog and
every key's totals equal the recount of the committed input; one output per input.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.checks import restored
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.streams import AT_LEAST_ONCE, EXACTLY_ONCE_V2, StreamsWorkload, streams_app
from scenarios.streams_faults import KILL_AT_A_COMMIT, KILLED_ONCE

APP = StreamsWorkload(
    inputs=3000, partitions=3, keys=12, commit_interval_ms=2000, delay_ms_per_record=2.0, wipe_state=True
)

SCENARIO = Scenario(
    id="D3",
    title="Streams instance restarted on empty local state: totals exact only from an exactly-once changelog",
    story=__doc__ or "",
    workload=APP,
    schedule=KILL_AT_A_COMMIT,
    control=Variant(
        "control",
        {},
        expect={"aggregate_mismatch": REQUIRED, "sink_repeated": REQUIRED, "sink_missing": FORBIDDEN},
        workload=replace(APP, processing_guarantee=AT_LEAST_ONCE),
        checks=(KILLED_ONCE,),
    ),
    guarantee=Variant(
        "guarantee",
        {},
        expect={"aggregate_mismatch": FORBIDDEN, "sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN},
        workload=replace(APP, processing_guarantee=EXACTLY_ONCE_V2),
        checks=(KILLED_ONCE, restored(streams_app(1), 2, "the restart began on an empty state directory")),
    ),
    sides_together=True,  # the kill hits each side's own app only
)
