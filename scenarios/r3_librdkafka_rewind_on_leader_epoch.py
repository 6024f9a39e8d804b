"""R3 — librdkafka 2.1.0 delivers fetched messages twice when it learns a partition's leader epoch (librdkafka #4261).

Bug: https://github.com/confluentinc/librdkafka/pull/4261 ("Fix duplicate message on validate
offset"; issue https://github.com/confluentinc/librdkafka/issues/4249); librdkafka v2.1.1's
changelog: "Avoid duplicate messages when a fetch response is received in the middle of an
offset validation request". librdkafka 2.1.0 added KIP-320 offset validation: whenever a
metadata response shows a partition it fetches with a leader epoch higher than it knew (a
leader change, or simply the first metadata refresh after it started fetching, since it
begins with no epoch), it validates its position with the leader. 2.1.0 first set the next
fetch position back to the *application's* position, the offset after the last message the
app took, while the messages it had already fetched past it stayed in its local queue: the
app gets those, and then the same messages again, fetched anew. 2.1.1 validates the current
fetch position instead. In a consume-transform-produce app the repeats become outputs, and
the transaction commits them: exactly-once does not see them, as they are new input to it.

Workload: the transactional transformer on librdkafka, one instance, 6000 inputs in 3
partitions filled before it starts, processed in batches of 50 with 150 ms before each
commit: the consumer has fetched every partition long before the app has read it. The
consumer refreshes its metadata every 15 s (librdkafka's default is 5 min: a real app
meets the rewind then, or at any leader change); the first refresh after it has started
fetching is the one that teaches it the epochs. A refresh before the group has given the
app its partitions teaches them harmlessly: at 2 s a loaded machine's slow join let one
side in two pass clean (`make test`, once), and at 8 s twice more when the suite ran at load
35-45 (verify-config's R3 row); at 15 s the join is done and the app, at least 25 s of
batches, still has many of them fetched and unread. Any other Metadata
response between the assignment and the first message teaches them harmlessly too: the
app's idle check asked for the topic's partitions when its first poll came back empty, and
under load the control came out clean (verify-config's R3 row, twice in CI); the apps now
take the partition count from their spec and ask the brokers for no metadata.
Fault: none; the trigger is the client's own metadata refresh.
Control: confluent-kafka 2.1.0 (librdkafka 2.1.0): inputs with two outputs, committed.
Guarantee: confluent-kafka 2.1.1: every input has exactly one output.
"""

from harness.scenario import Scenario, Variant
from harness.verdict.document import FORBIDDEN, REQUIRED
from harness.workloads.pipeline import PipelineWorkload

PIPELINE = PipelineWorkload(
    inputs=6000,
    partitions=3,
    batch_size=50,
    pause_before_commit_ms=150,
    consumer_config={"topic.metadata.refresh.interval.ms": 15_000},
)

SCENARIO = Scenario(
    id="R3",
    title="librdkafka #4261: learning a partition's leader epoch makes librdkafka 2.1.0 deliver fetched messages twice",
    story=__doc__ or "",
    workload=PIPELINE,
    schedule=(),
    sides_together=True,  # no fault: nothing one side does reaches the other
    control=Variant("control", {}, client="librdkafka==2.1.0", expect={"eos_repeated": REQUIRED}),
    guarantee=Variant(
        "guarantee",
        {},
        client="librdkafka==2.1.1",
        expect={a: FORBIDDEN for a in ("eos_repeated", "eos_missing", "duplicate", "aborted_read", "lost")},
    ),
)
