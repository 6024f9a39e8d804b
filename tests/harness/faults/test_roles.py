"""Roles resolved without a cluster: the Java hash that picks a coordinator, and the key hash
that picks a keyed record's partition, against values Kafka's own tests state."""

from __future__ import annotations

import pytest

from harness.faults.roles import java_hash, key_partition


@pytest.mark.parametrize(
    ("key", "murmur2"),
    [
        ("21", -973932308),
        ("foobar", -790332482),
        ("a-little-bit-long-string", -985981536),
        ("a-little-bit-longer-string", -1486304829),
        ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        ("abc", 479470107),
    ],
)
def test_a_keyed_record_goes_where_the_java_producer_sends_it(key: str, murmur2: int) -> None:
    for partitions in (1, 2, 3, 7):
        assert key_partition(key, partitions) == (murmur2 & 0x7FFFFFFF) % partitions


def test_the_coordinator_hash_is_javas_string_hash_made_positive() -> None:
    assert java_hash("") == 0
    assert java_hash("a") == 97
    # Its String.hashCode is Integer.MIN_VALUE, which Kafka's Utils.abs turns into 0.
    assert java_hash("polygenelubricants") == 0
