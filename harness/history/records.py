"""Record ids and the record value format: the one place every writer and reader takes them from.

A record's **id** is ``session << SEQ_BITS | seq``: the producer session that sent it and
its sequence number in that session (0, 1, 2, ...), so ids are unique across a run and
never negative. A record's **value** is ``<id>|<padding>``: the decimal id, a ``|``, then
filler up to the record size. Consume-transform-produce outputs and Spark job outputs use
the same head, with the id of the record they came from after the ``|`` or in the ledger.

A record may also carry its id in the header ``SOURCE_HEADER`` (the decimal id, as the value's
head): the input written for a user's own app does (harness.userapps.contract), so an app that
copies its input's headers onto its output names the input it came from.

Negative numbers are never ids; two of them are reserved for what a read-back stores
where no id is: ``MARKER_ID`` for an offset that held no data record (a transaction
marker), ``UNDECODABLE_ID`` for a data record whose value carries no harness id. Only the
read_uncommitted read-back writes marker rows (``harness.history.format.MARKERS_VIEW``):
a negative id anywhere else is a stored record without a harness id, a phantom.

**Decoding** (``decode_id``) accepts exactly what ``encode_value`` writes: the head (all
before the first ``|``, or the whole value without one) must be the canonical decimal of a
non-negative int64, that is ASCII digits only, no sign, blank, underscore or leading zero,
at most 2**63 - 1. Anything else is ``UNDECODABLE_ID``. So no stored value can decode to a
reserved id (``-1|...`` is no marker), two different heads never decode to one id, and a
head too long for int64 never stops a read-back. ``DECODABLE_HEAD`` is the same rule as a
regular expression (to match a whole head), for readers that are not Python (the Spark engine).
"""

from __future__ import annotations

import re

SEQ_BITS = 32
VALUE_SEPARATOR = b"|"
MARKER_ID = -1  # an offset inside the log that held no data record: a transaction marker
UNDECODABLE_ID = -2  # a data record whose value carries no harness id
SOURCE_HEADER = "keh-source"  # on an input: its own id; on an output: the id of the input it came from


def make_id(session: int, seq: int) -> int:
    return (session << SEQ_BITS) | seq


def encode_value(record_id: int, value_bytes: int) -> bytes:
    """``<id>|<padding>``: the decimal id is everything before the first ``|``."""
    return (b"%d|" % record_id).ljust(value_bytes, b"x")  # one allocation: it runs once per record sent


def own_id(value: bytes) -> int:
    """The id in a value ``encode_value`` made (an app's own record, read back in its delivery
    callback): no checks, as it runs once per record acknowledged; any other value: ``decode_id``."""
    return int(value[: value.find(VALUE_SEPARATOR)])


# To match the whole head; and the value must be at most 2**63 - 1 (19 digits can exceed it).
DECODABLE_HEAD = "0|[1-9][0-9]{0,18}"
_DECODABLE = re.compile(DECODABLE_HEAD.encode())
_MAX_ID = (1 << 63) - 1


def encode_source(record_id: int) -> bytes:
    """The ``SOURCE_HEADER`` value naming ``record_id``: its decimal, decoded by ``decode_id``."""
    return b"%d" % record_id


def decode_id(value: bytes | None) -> int:
    value = value or b""
    bar = value.find(VALUE_SEPARATOR)  # not split(): that would copy the padding too
    head = value if bar < 0 else value[:bar]
    if _DECODABLE.fullmatch(head) is None:
        return UNDECODABLE_ID
    record_id = int(head)
    return record_id if record_id <= _MAX_ID else UNDECODABLE_ID
