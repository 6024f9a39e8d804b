"""The fault schedule every C scenario shares: driver kills mid-batch over faulty links.

Two SIGKILLs of the Spark driver, each once an incarnation has written a micro-batch of its
own and not yet committed it (harness.workloads.spark.BatchInFlight), the driver restarted a
second later on the same checkpoint folder. Meanwhile the driver's own Kafka links (the
OWN_LINKS listener, which only it uses) get 50 ms of latency for the first 20 s and
swallow every byte for 2 s at 12 s (while the first driver starts or runs its first batch).
"""

from collections.abc import Callable

from harness.faults import MAIN, OWN_LINKS, App, Brokers, Step, blackhole, kill, latency
from harness.faults.conditions import Condition
from harness.verdict.checks import killed_by_the_schedule
from harness.workloads.spark import SPARK_DRIVER, BatchInFlight

KILLS = 2
# Both sides of every C pair: without it the fault did not happen as written.
DRIVER_KILLED_MID_BATCH = killed_by_the_schedule(
    SPARK_DRIVER, KILLS, "each kill lands while a batch is written, and the last driver finishes the input"
)
# A driver start is a JVM start and a first batch that compiles everything: tens of
# seconds on a busy machine. Past this a kill is skipped and the variant does not pass.
_KILL_WAIT_S = 240.0


def driver_kills(after_commits: int = 0, in_flight: Callable[..., Condition] = BatchInFlight) -> tuple[Step, ...]:
    """The kills, each in a batch of the incarnation's own (after ``after_commits`` of its own
    committed ones; ``in_flight`` says when a batch is in flight), and the link faults."""
    kills = [
        Step(
            at_s=0.0,
            fault=kill(App(SPARK_DRIVER)),
            duration_s=1.0,
            when=in_flight(MAIN, incarnation=n, after_commits=after_commits),
            when_timeout_s=_KILL_WAIT_S,
        )
        for n in range(1, KILLS + 1)
    ]
    links = [
        Step(at_s=0.0, fault=latency(Brokers(), ms=50, listener=OWN_LINKS), duration_s=20.0),
        Step(at_s=12.0, fault=blackhole(Brokers(), listener=OWN_LINKS), duration_s=2.0),
    ]
    return (*kills, *links)
