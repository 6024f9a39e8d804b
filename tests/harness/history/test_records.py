"""Record values: the id is everything before the first ``|``, whatever follows."""

from __future__ import annotations

import pytest

from harness.history.records import UNDECODABLE_ID, decode_id, encode_value, make_id, own_id


@pytest.mark.parametrize("size", [0, 5, 100, 1000])
def test_a_value_carries_its_id_at_any_size(size: int) -> None:
    record_id = make_id(3, 41)
    value = encode_value(record_id, size)
    assert decode_id(value) == record_id
    assert own_id(value) == record_id  # an app's callback reads its own values so
    assert len(value) == max(size, len(b"%d|" % record_id))


@pytest.mark.parametrize(
    ("value", "decoded"),
    [(b"12|34|x", 12), (b"123", 123), (b"no id here", UNDECODABLE_ID), (b"", UNDECODABLE_ID), (None, UNDECODABLE_ID)],
)
def test_values_without_a_harness_id_decode_as_undecodable(value: bytes | None, decoded: int) -> None:
    assert decode_id(value) == decoded
