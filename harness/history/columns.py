"""A run's history as columns: the ledgers (what clients did) and the read-back (what is stored),
as numpy arrays (``harness.history.loading`` fills them); ten million records cost a few
hundred megabytes, not Python objects. Nothing here judges; the checker does.

**Slots.** Record ids are ``session << 32 | seq`` with seq counting 0, 1, 2 … per session
(``harness.history.ledger``). Every (session, seq) up to a session's highest invoked seq gets one
slot, and everything known about a send (outcome, transaction, acknowledged position,
source) lives in flat arrays indexed by slot. Looking an id up is then arithmetic, not a
sort or a hash, which is what keeps the checker linear in the number of records.

**Attempts.** An id may be sent more than once: a restarted app resends what it does not know
to be written, in a new ledger file (and an app bug may send it twice). Its slot holds its
last invoke (topic, transaction, source); every earlier invoke is kept aside (``Sends.earlier_*``,
few in any run), and the outcome weighs all of them (``OK`` ... below).

**Positions.** One int64 per stored record: ``topic code << 52 | partition << 40 | offset``,
so a read-back is ascending in position order and two read-backs join by position.

Ledger lines that fail the format (a process killed mid-line, garbage, an unknown event)
are skipped and reported per file as ``LedgerProblem``: they never stop the check.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from harness.errors import HarnessError
from harness.history.format import MARKERS_VIEW
from harness.history.records import MARKER_ID, SEQ_BITS

# Outcome of a send over all its attempts: OK when any ``ok`` line says written; else INFO
# (unknown) when any ``info`` line, or an attempt without a definite failure (in flight at a
# crash, or when the app stopped), leaves it open; FAIL only when every attempt has its
# ``fail`` line (librdkafka reports each produce() once, so as many ``fail`` lines as invokes
# means every attempt failed); NO_OUTCOME when no line says anything.
NO_OUTCOME, INFO, FAIL, OK = 0, 1, 2, 3
# Transaction states, by strength.
TXN_OPEN, TXN_UNKNOWN, TXN_ABORTED, TXN_COMMITTED = 0, 1, 2, 3

OFFSET_BITS, PARTITION_BITS, TOPIC_BITS = 40, 12, 11
TP_SHIFT = OFFSET_BITS + PARTITION_BITS


@dataclass
class LedgerProblem:
    file: str
    ignored_lines: int
    reasons: list[str] = field(default_factory=list)  # the first few, with line numbers where known


@dataclass
class Sessions:
    id: np.ndarray  # int64, ascending: every session that invoked a send or announced itself
    file: list[str]  # ledger file stem of each session (the "producer" in reports)
    transactional_id: list[str]  # "" when not transactional or not announced
    started_us: np.ndarray  # int64 when the session was ready (fences older ones); -1 unknown
    base: np.ndarray  # int64 first slot of each session
    size: np.ndarray  # int64 slots of each session (highest seq + 1)


@dataclass
class Transactions:
    key: np.ndarray  # int64 session << 32 | txn, ascending
    state: np.ndarray  # int8 TXN_*
    begin_us: np.ndarray  # int64, -1 unknown
    commit_us: np.ndarray  # int64 when the commit was requested, -1 never


@dataclass
class Sends:
    """Per slot: what the ledgers say about the send with that id."""

    invoked: np.ndarray  # bool
    topic: np.ndarray  # int16 topic code, -1 unknown
    txn: np.ndarray  # int32 transaction number in its session, -1 outside transactions
    source: np.ndarray  # int64 input record id of a transform output, -1 otherwise
    outcome: np.ndarray  # int8 NO_OUTCOME / INFO / FAIL / OK, over all attempts
    ack_pos: np.ndarray  # int64 acknowledged position (of the last ``ok`` line), -1 none
    # One entry per invoke line that was not its id's last: the slot, and the transaction
    # that attempt was in (-1 outside transactions).
    earlier_slot: np.ndarray  # int64, ascending
    earlier_txn: np.ndarray  # int32


@dataclass
class View:
    """What one reader saw: rows in position order, each (position, id) once.

    A reader returns each offset once. A read-back that holds an offset twice or more is
    faulty there: the copies are one row when they agree (so one offset is never two
    copies of a record), and stay one row per distinct id when they do not (each id was
    read there); either way the position is listed in ``repeated``.
    """

    isolation: str
    pos: np.ndarray  # int64, ascending
    id: np.ndarray  # int64 record id, MARKER_ID or UNDECODABLE_ID; ascending within a position
    # int64 ascending ``topic code << PARTITION_BITS | partition`` of every partition the
    # reader read, including the ones where it found nothing
    partitions: np.ndarray
    repeated: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))  # int64 positions read twice or more
    # topic code -> how many partitions the topic has, where the read-back says (TOPIC_PARTITIONS_KEY)
    topic_partitions: dict[int, int] = field(default_factory=dict)

    def markers(self) -> np.ndarray:
        """bool per row: a transaction marker, not a record (``MARKERS_VIEW``)."""
        return (self.id == MARKER_ID) if self.isolation == MARKERS_VIEW else np.zeros(len(self.id), bool)

    def conflicts(self) -> np.ndarray:
        """Positions read with two different ids or more (some of ``repeated``), ascending."""
        if not len(self.repeated):
            return self.repeated
        rows = np.flatnonzero(np.isin(self.pos, self.repeated))
        return np.unique(self.pos[rows[1:][self.pos[rows[1:]] == self.pos[rows[:-1]]]])


@dataclass
class History:
    topics: list[str]  # topic code -> name
    sessions: Sessions
    sends: Sends
    txns: Transactions
    views: dict[str, View]
    problems: list[LedgerProblem]

    # -- ids and slots --
    @property
    def slot_dtype(self) -> type:
        """Slots (and row numbers) fit int32 below 2**31 sends: half the memory of int64."""
        return np.int32 if len(self.sends.invoked) < 1 << 31 else np.int64

    def slot_of(self, ids: np.ndarray) -> np.ndarray:
        """Slot of each id, -1 for ids no ledger invoked (or markers)."""
        s = self.sessions
        slots = np.full(len(ids), -1, self.slot_dtype)
        if not len(s.id):
            return slots
        index = SessionIndex(s)
        for part in chunks(len(ids)):  # a chunk at a time keeps the temporaries small
            k = index.of(ids[part] >> SEQ_BITS)
            seq = ids[part] & ((1 << SEQ_BITS) - 1)
            ok = (k >= 0) & (seq < s.size[k])
            slot = np.where(ok, s.base[k] + seq, -1)
            hit = slot >= 0
            slot[hit] = np.where(self.sends.invoked[slot[hit]], slot[hit], -1)
            slots[part] = slot
        return slots

    def id_of(self, slots: np.ndarray) -> np.ndarray:
        s = self.sessions
        k = np.searchsorted(s.base, slots, side="right") - 1
        return (s.id[k] << SEQ_BITS) | (slots - s.base[k])

    def session_index_of_slots(self) -> np.ndarray:
        """int32 index into ``sessions`` of each slot."""
        return np.repeat(np.arange(len(self.sessions.id), dtype=np.int32), self.sessions.size)

    # -- positions --
    def where(self, pos: int) -> str:
        topic, partition, offset = (
            pos >> TP_SHIFT,
            (pos >> OFFSET_BITS) & ((1 << PARTITION_BITS) - 1),
            pos & ((1 << OFFSET_BITS) - 1),
        )
        return f"{self.topics[topic]}-{partition}@{offset}"

    @staticmethod
    def topic_of(pos: np.ndarray) -> np.ndarray:
        return pos >> TP_SHIFT

    @staticmethod
    def partition_key_of(pos: np.ndarray) -> np.ndarray:
        return pos >> OFFSET_BITS


def position(topic: np.ndarray, partition: np.ndarray, offset: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Positions of (topic code, partition, offset), into ``out`` if given (one temporary, not four)."""
    out = np.left_shift(topic, TP_SHIFT, out=out, dtype=np.int64)
    out |= np.left_shift(partition, OFFSET_BITS, dtype=np.int64)
    out |= offset
    return out


class TopicCodes:
    def __init__(self) -> None:
        self.names: list[str] = []
        self._code: dict[str, int] = {}

    def __contains__(self, name: str) -> bool:
        return name in self._code

    def code(self, name: str) -> int:
        if name not in self._code:
            if len(self.names) >= 1 << TOPIC_BITS:
                raise HarnessError(f"more than {1 << TOPIC_BITS} topics in one history; check fewer at a time")
            self._code[name] = len(self.names)
            self.names.append(name)
        return self._code[name]

    def encode(self, column: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Dictionary-encoded (or plain string) topic column -> int16 codes; null -> -1."""
        if isinstance(column, pa.ChunkedArray):
            column = column.combine_chunks()
        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        mapping = np.array([self.code(str(t)) for t in column.dictionary.to_pylist()] + [-1], dtype=np.int16)
        return mapping[column.indices.fill_null(len(mapping) - 1).to_numpy(zero_copy_only=False)]


def distinct(values: np.ndarray) -> np.ndarray:
    """Distinct values; counting beats sorting or hashing for small non-negative ints (sessions)."""
    if len(values) and values.min() >= 0 and values.max() < 1 << 24:
        return np.flatnonzero(np.bincount(values)).astype(values.dtype)
    return np.unique(values)


class SessionIndex:
    """Index into ``sessions`` of session numbers, -1 if unknown. A lookup table when session
    numbers are small (they are: the runner hands them out), a binary search otherwise."""

    def __init__(self, s: Sessions) -> None:
        self.s = s
        self.top = int(s.id[-1])
        self.table = None
        if self.top < 1 << 22:
            self.table = np.full(self.top + 2, -1, np.int64)
            self.table[s.id] = np.arange(len(s.id))

    def of(self, session: np.ndarray) -> np.ndarray:
        if self.table is not None:
            return self.table[np.clip(session, -1, self.top + 1)]
        k, found = lookup(self.s.id, session)
        return np.where(found, k, -1)


CHUNK = 1 << 18  # elements per step where a whole-array expression would need big temporaries


def chunks(n: int, size: int = CHUNK) -> Iterator[slice]:
    """``0:n`` in steps of ``size``."""
    return (slice(a, min(a + size, n)) for a in range(0, n, size))


def lookup(sorted_keys: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index of each needle in ``sorted_keys`` (clipped) and whether it is there."""
    if not len(sorted_keys):
        return np.zeros(len(needles), np.int64), np.zeros(len(needles), bool)
    idx = np.minimum(np.searchsorted(sorted_keys, needles), len(sorted_keys) - 1)
    return idx, sorted_keys[idx] == needles
