"""The fault D1 and D3 share: a Streams instance SIGKILLed with work it has not committed.

Instance 1's second commit of its input offsets from the start (at_least_once: its
``OffsetCommit``, sent once its outputs and changelog records are flushed; exactly_once_v2: its
``AddOffsetsToTxn`` or ``TxnOffsetCommit``, inside the open transaction) is swallowed on the
wire, recognised by the application id, and the instance is SIGKILLed while it waits for the
answer (``crash_at_commit``); it restarts a second later. What it had written since its first
commit is what the restart does again. (A kill on a count of processed inputs, as before, met
an empty producer buffer on a busy machine: nothing written, nothing repeated.)
"""

from harness.faults import App, Step, crash_at_commit
from harness.verdict.checks import ended
from harness.workloads.streams import streams_app

# Both sides: without it the fault did not happen as written.
KILLED_ONCE = ended(streams_app(1), (-9, 0), "the kill hit the instance once, and its restart finished the input")


KILL_AT_A_COMMIT = (Step(0.0, crash_at_commit(App(streams_app(1)), after=2), duration_s=120.0),)
