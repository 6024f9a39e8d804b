"""A8 — an idempotent producer with settings idempotence cannot honour.

Idempotence needs every write acknowledged by the in-sync replicas (``acks=all``) and at
most five requests in flight per connection (the broker remembers the last five batches
per producer). Asking for idempotence with ``acks=1`` is a contradiction the client
refuses at construction, before it sends anything; so is an in-flight limit above five.
The harness surfaces the refusal as a ``config_error`` finding with the client's own
message, rather than letting a silently weaker producer run.

Fault: none.
Control (idempotence with acks=1): the client refuses its configuration.
Guarantee (idempotence with acks=all and in-flight 5): it starts, and delivers cleanly.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.producer import ProducerWorkload

SCENARIO = Scenario(
    id="A8",
    title="invalid idempotence config (acks=1 or in-flight > 5) is refused by the client",
    story=__doc__ or "",
    workload=ProducerWorkload(count=200, rate_per_s=500, config={"enable.idempotence": True}),
    schedule=(),
    control=Variant("control", {"acks": 1}, expect={"config_error": REQUIRED}),
    guarantee=Variant(
        "guarantee",
        {"acks": "all", "max.in.flight.requests.per.connection": 5},
        expect={"config_error": FORBIDDEN, "duplicate": FORBIDDEN, "lost": FORBIDDEN},
    ),
    sides_together=True,  # no fault: the sides cannot disturb each other
)
