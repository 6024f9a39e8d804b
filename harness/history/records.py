"""Record ids and the record value format: the one place every writer and reader takes them from.

A record's **id** is ``session << SEQ_BITS | seq``: the producer session that sent it and
its sequence number in that session (0, 1, 2, ...), so ids are unique across a run and
never negative. A record's **value** is ``<id>|<padding>``: the decimal id, a ``|``, then
filler up to the record size. Consume-transform-produce outputs and Spark job outputs use
the same head, with the id of the record they came from after the ``|`` or in the ledger.

Negative numbers are never ids; two of them are reserved for what a read-back stores
where no id is: ``MARKER_ID`` for an offset that held no data record (a transaction
marker), ``UNDECODABLE_ID`` for a data record whose value carries no harness id.
"""

from __future__ import annotations

SEQ_BITS = 32
VALUE_SEPARATOR = b"|"
MARKER_ID = -1  # an offset inside the log that held no data record: a transaction marker
UNDECODABLE_ID = -2  # a data record whose value carries no harness id


def make_id(session: int, seq: int) -> int:
    return (session << SEQ_BITS) | seq


def encode_value(record_id: int, value_bytes: int) -> bytes:
    """``<id>|<padding>``: the decimal id is everything before the first ``|``."""
    return (b"%d|" % record_id).ljust(value_bytes, b"x")  # one allocation: it runs once per record sent


def decode_id(value: bytes | None) -> int:
    value = value or b""
    bar = value.find(VALUE_SEPARATOR)  # not split(): that would copy the padding too
    try:
        return int(value if bar < 0 else value[:bar])
    except ValueError:
        return UNDECODABLE_ID
