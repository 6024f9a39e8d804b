"""B4 — an open transaction holds every read_committed reader at the last stable offset.

A ``read_committed`` consumer may not read past the first record of a transaction that
is still open, because it cannot know yet whether that transaction will commit. When the
producer hangs mid-transaction (here: SIGSTOP), the log may grow, but those readers get
nothing new until the transaction ends; only the coordinator can end it, by aborting it
once ``transaction.timeout.ms`` has passed (it looks for expired transactions every
10 s by default). So the stall should last about the timeout, plus up to the scan
interval. A hung producer that does not use transactions holds nobody back.

Fault: SIGSTOP the producer for 25 s mid-stream (then SIGCONT).
Control (transactional, transaction.timeout.ms = 10 s): read_committed readers stall,
measured, about 10-20 s.
Guarantee (the same producer without transactions): no stall.
"""

from harness.faults import App, Step, pause
from harness.scenario import Scenario, Variant
from harness.verdict.checks import stall_between
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import PRODUCER, ProducerWorkload

TRANSACTION_TIMEOUT_MS = 10_000
ABORT_SCAN_S = 10  # how often the coordinator looks for expired transactions (Kafka's default)

SCENARIO = Scenario(
    id="B4",
    title="an open transaction stalls read_committed readers until the coordinator aborts it",
    story=__doc__ or "",
    # 100 records per transaction at 100/s: the pause lands inside one.
    workload=ProducerWorkload(count=1500, rate_per_s=100, txn_size=100, config={"acks": "all"}),
    schedule=(Step(at_s=3.5, fault=pause(App(PRODUCER)), duration_s=25.0),),
    sides_together=True,  # faults hit each side's own app only
    control=Variant(
        "control",
        {"transactional.id": "b4-app", "transaction.timeout.ms": TRANSACTION_TIMEOUT_MS},
        expect={"read_committed_stall": REQUIRED, "duplicate": FORBIDDEN},
        checks=(
            stall_between(
                0.8 * TRANSACTION_TIMEOUT_MS / 1000,
                TRANSACTION_TIMEOUT_MS / 1000 + ABORT_SCAN_S + 5,
                "the coordinator aborts the open transaction after its timeout, at its next scan",
            ),
        ),
    ),
    guarantee=Variant(
        "guarantee",
        {"enable.idempotence": True},
        expect={"read_committed_stall": FORBIDDEN, "duplicate": FORBIDDEN, "lost": FORBIDDEN},
    ),
)
