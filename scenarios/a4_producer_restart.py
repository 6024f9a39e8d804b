"""A4 — the producer process dies and the application resends what it was unsure of.

An idempotent producer deduplicates its own retries only: the broker knows it by a
producer id that lives as long as the process. The process is killed (SIGKILL) with
records written but not yet acknowledged. The application restarts and, knowing only
what was acknowledged, sends the rest again under a new producer id: the broker cannot
tell the resends from new data, and the records written before the kill are stored twice.
With a ``transactional.id`` the restarted producer's ``init_transactions`` bumps the
epoch and aborts the dead process's unfinished transaction; the application resends
everything outside a committed transaction, and a ``read_committed`` consumer sees each
record once.

Fault: acknowledgements are slowed on the leader's client link (so more records are
written-but-unacknowledged at any moment) until the producer process is killed
mid-stream, once it has sent 800 records; it is restarted a second later.
Control (idempotent, no transactional.id): duplicates.
Guarantee (transactional, same transactional.id across restarts, read_committed): none.
"""

from harness.faults import MAIN, OWN_LINKS, App, AppSent, Leader, Step, kill, latency
from harness.scenario import Scenario, Variant
from harness.verdict.checks import ended, resent
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import PRODUCER, ProducerWorkload

# Keyed to the app's sends as well as the clock: a Java app starting slowly under load was once
# killed before its first write reached the broker, leaving nothing to duplicate.
SENDING = AppSent(PRODUCER, 800)
KILLED_MID_STREAM = ended(PRODUCER, (-9, 0), "the kill lands mid-stream and the restarted app finishes")

SCENARIO = Scenario(
    id="A4",
    title="producer process restarts and resends: a new producer id duplicates unless transactional",
    story=__doc__ or "",
    workload=ProducerWorkload(
        own_links=True,  # the fault on its links reaches this side's producer alone
        count=2000,
        rate_per_s=250,
        txn_size=50,
        config={"acks": "all", "enable.idempotence": True, "linger.ms": 5},
    ),
    schedule=(
        Step(
            at_s=0.5,
            fault=latency(Leader(MAIN), listener=OWN_LINKS, ms=300, direction="from_broker"),
            duration_s=4.0,
            when=AppSent(PRODUCER, 1),
        ),
        Step(at_s=4.0, fault=kill(App(PRODUCER)), duration_s=1.0, when=SENDING),
    ),
    sides_together=True,  # each side's faults hit its own links and its own app
    control=Variant(
        "control",
        {},
        expect={"duplicate": REQUIRED},
        checks=(KILLED_MID_STREAM, resent(PRODUCER, 2, "the duplicates are what the restarted app sent again")),
    ),
    guarantee=Variant(
        "guarantee",
        {"transactional.id": "a4-app"},
        expect={"duplicate": FORBIDDEN, "lost": FORBIDDEN, "aborted_read": FORBIDDEN, "phantom": FORBIDDEN},
        # It may rightly resend nothing: killed after its last commit was sent, it finds
        # that commit in the log.
        checks=(KILLED_MID_STREAM,),
    ),
)
