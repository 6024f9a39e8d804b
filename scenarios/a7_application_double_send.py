"""A7 — the application sends the same record twice: a limit idempotence does not cover.

Idempotence deduplicates the producer's own retries of one ``produce()`` call. When the
application itself calls ``produce()`` twice for the same record (a retry loop around a
call that had in fact succeeded, or two instances sending the same event), the broker
gets two different batches with two different sequence numbers, and stores both. This
is the documented limit: duplicates are expected even with idempotence on, and the
harness reports them. The other side runs the same idempotent producer without the
application bug, to show the duplicates come from the application and not from Kafka.

Fault: none.
Control (idempotence on, the app double-sends every 25th record): duplicates (the limit).
Guarantee (idempotence on, each record sent once): none.
"""

from dataclasses import replace

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import ProducerWorkload

PRODUCER = ProducerWorkload(
    count=1000, rate_per_s=500, config={"acks": "all", "enable.idempotence": True, "linger.ms": 5}
)

SCENARIO = Scenario(
    id="A7",
    title="limit: the application's own double send is duplicated even with idempotence",
    story=__doc__ or "",
    workload=PRODUCER,
    schedule=(),
    control=Variant("control", {}, expect={"duplicate": REQUIRED}, workload=replace(PRODUCER, duplicate_every=25)),
    guarantee=Variant("guarantee", {}, expect={"duplicate": FORBIDDEN, "lost": FORBIDDEN}),
    sides_together=True,  # no fault: the sides cannot disturb each other
)
