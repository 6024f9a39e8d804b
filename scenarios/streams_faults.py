"""The fault D1 and D3 share: a Streams instance SIGKILLed with work it has not committed.

Instance 1 is killed once it has processed 150 inputs since its last commit (its own
status file says so: harness.workloads.streams.StreamsUncommitted) and restarted a second
later; what it had written since that commit is what the restart does again.
"""

from harness.faults import App, Step, kill
from harness.verdict.checks import ended
from harness.workloads.streams import StreamsUncommitted, streams_app

# Both sides: without it the fault did not happen as written.
KILLED_ONCE = ended(streams_app(1), (-9, 0), "the kill hit the instance once, and its restart finished the input")


def kill_with_uncommitted_work(topic: str) -> list[Step]:
    return [
        Step(
            at_s=0.0,
            fault=kill(App(streams_app(1))),
            duration_s=1.0,
            when=StreamsUncommitted(streams_app(1), 150),
            when_timeout_s=120.0,
        )
    ]
