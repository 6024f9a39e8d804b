"""A run's ledgers read into columns: per slot what each send did (``Sends``), the sessions,
the transactions, and the lines that failed the format (``LedgerProblem``).

The ledgers are parsed in pieces of whole lines, side by side on worker threads (pyarrow's CSV
reader), and taken in file and line order.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from harness.errors import HarnessError
from harness.history import ledger
from harness.history.columns import (
    FAIL,
    INFO,
    NO_OUTCOME,
    OK,
    PARTITION_BITS,
    TXN_ABORTED,
    TXN_COMMITTED,
    TXN_OPEN,
    TXN_UNKNOWN,
    LedgerProblem,
    Sends,
    Sessions,
    TopicCodes,
    Transactions,
    distinct,
    position,
)
from harness.history.ledger import COLUMNS, EVENTS
from harness.history.records import SEQ_BITS

_SAW = {INFO: 1, FAIL: 2, OK: 4}  # while loading: which kinds of outcome line an id has, as bits
_TXN_END = {"txn-unknown": TXN_UNKNOWN, "txn-aborted": TXN_ABORTED, "txn-committed": TXN_COMMITTED}
_TXN_STATE_OF_EVENT = np.array([_TXN_END.get(e, TXN_OPEN) for e in EVENTS], np.int8)
_EVENT = {name: i for i, name in enumerate(EVENTS)}


def read(paths: list[Path], topics: TopicCodes) -> tuple[Sessions, Sends, Transactions, list[LedgerProblem]]:
    """The ledgers' columns, each topic coded in ``topics`` as it first comes."""
    reader = _LedgerReader(topics)
    reader.read(paths)
    sessions, sends = reader.slots.build(reader.session_rows)
    return sessions, sends, _transactions(reader.txns), reader.problems


class _Chunks:
    """Per-column chunks, concatenated once (and released) at the end."""

    def __init__(self) -> None:
        self.parts: dict[str, list[np.ndarray]] = {}

    def add(self, **cols: np.ndarray) -> None:
        for name, col in cols.items():
            self.parts.setdefault(name, []).append(col)

    def take(self, name: str, dtype: type) -> np.ndarray:
        parts = self.parts.pop(name, [])
        return np.concatenate(parts).astype(dtype, copy=False) if parts else np.empty(0, dtype)


_LEDGER_COLUMNS = tuple(c for c in COLUMNS if c != "key")
# Pieces parsed at once, a core each (pyarrow and numpy release the GIL); beyond four, more
# pieces in memory would buy little.
_WORKERS = min(4, os.cpu_count() or 2)


@dataclass
class _Lines:
    """What one piece of a ledger says, by kind of line: the columns each kind needs, in line order."""

    invalid: list[str]  # lines refused (wrong number of fields; or all the slow path's reasons)
    dropped: int  # lines without the end mark or with an unknown event
    invoke: dict[str, Any]  # id, topic (dictionary-encoded strings), txn, source
    outcomes: list[tuple[int, np.ndarray]]  # (INFO / FAIL / OK, ids), ascending strength
    ack: dict[str, np.ndarray]  # id, partition, offset of the ``ok`` lines
    txn: dict[str, np.ndarray]  # key, state, begin, commit: the txn-* lines, one row per transaction
    session: list[tuple[int, str, int]]  # (session, detail, time_us) of the ``session`` lines


def _parse(path: Path, start: int, end: int) -> _Lines:
    """Bytes ``start:end`` of a ledger (whole lines after the header), by the ledger's rules; runs in a worker."""
    return _sort_lines(ledger.read_piece(path, start, end, _LEDGER_COLUMNS))


def _sort_lines(lines: ledger.Lines) -> _Lines:
    table, ev = lines.table, lines.event
    ids = _ints(table["id"])
    with_id = ids >= 0  # no id, no slot (and no 2**32-slot session -1)

    def rows(event: str) -> np.ndarray:
        return np.flatnonzero((ev == _EVENT[event]) & with_id)

    invoke, ok = rows("invoke"), rows("ok")
    txn = np.flatnonzero((ev >= _EVENT["txn-begin"]) & (ev <= _EVENT["txn-unknown"]))
    session = np.flatnonzero(ev == _EVENT["session"])
    return _Lines(
        invalid=lines.invalid,
        dropped=lines.dropped,
        invoke={
            "id": ids[invoke],
            "topic": table["topic"].take(invoke).combine_chunks().dictionary_encode(),
            "txn": _ints(table["txn"], invoke).astype(np.int32),
            "source": _ints(table["source"], invoke),
        },
        outcomes=[(code, ids[r]) for code, r in ((INFO, rows("info")), (FAIL, rows("fail")), (OK, ok)) if len(r)],
        ack={"id": ids[ok], "partition": _ints(table["partition"], ok), "offset": _ints(table["offset"], ok)},
        txn=_txn_lines(ev[txn], _ints(table["session"], txn), _ints(table["txn"], txn), _ints(table["time_us"], txn)),
        session=list(
            zip(
                _ints(table["session"], session).tolist(),
                table["detail"].take(session).to_pylist(),
                _ints(table["time_us"], session).tolist(),
                strict=True,
            )
        ),
    )


def _txn_lines(event: np.ndarray, session: np.ndarray, txn: np.ndarray, time_us: np.ndarray) -> dict[str, np.ndarray]:
    """txn-* lines reduced to one row per transaction: its key, strongest state, begin and commit times."""
    key, strongest = _strongest(
        (session << SEQ_BITS) | txn,
        state=_TXN_STATE_OF_EVENT[event],
        begin=np.where(event == _EVENT["txn-begin"], time_us, -1),
        commit=np.where(event == _EVENT["txn-commit"], time_us, -1),
    )
    return {"key": key, **strongest}


def _ints(column: pa.ChunkedArray, rows: np.ndarray | None = None) -> np.ndarray:
    """An integer column (or its ``rows``) as int64, -1 where the ledger left it empty."""
    return pc.fill_null(column if rows is None else column.take(rows), -1).to_numpy()


@dataclass
class _Ledger:
    """What a ledger's ignored lines were, as its pieces are taken."""

    name: str
    invalid: list[str] = field(default_factory=list)
    dropped: int = 0

    def problem(self) -> LedgerProblem | None:
        ignored = len(self.invalid) + self.dropped
        why = ledger.reasons(self.name, self.invalid, self.dropped)
        return LedgerProblem(self.name, ignored, why[:5]) if ignored else None


class _LedgerReader:
    """Reads ledger files into slots, transaction rows and session rows, in file and line order."""

    def __init__(self, topics: TopicCodes) -> None:
        self.topics = topics
        self.slots = _SlotBuilder()
        self.txns = _Chunks()
        self.session_rows: list[tuple[int, str, str, int]] = []
        self.problems: list[LedgerProblem] = []

    def read(self, paths: list[Path]) -> None:
        ledgers = []
        with ThreadPoolExecutor(_WORKERS) as pool:
            # Workers parse ahead, across file ends too; what they found is taken in order here.
            pending: deque[tuple[_Ledger, Future[_Lines]]] = deque()
            for path in paths:
                ledgers.append(one := _Ledger(path.stem))
                if (reason := ledger.not_a_ledger(path)) is not None:
                    one.invalid.append(f"{one.name}:1: {reason}")
                    continue
                for start, end in ledger.pieces(path):
                    pending.append((one, pool.submit(_parse, path, start, end)))
                    if len(pending) > _WORKERS:
                        self._take(*pending.popleft())
            while pending:
                self._take(*pending.popleft())
        self.problems = [p for ledger in ledgers if (p := ledger.problem())]

    def _take(self, ledger: _Ledger, parsing: Future[_Lines]) -> None:
        lines = parsing.result()
        ledger.invalid += lines.invalid
        ledger.dropped += lines.dropped
        invoke = lines.invoke
        if len(invoke["id"]):
            topic = self.topics.encode(invoke["topic"])
            self.slots.invoke(invoke["id"], topic=topic, txn=invoke["txn"], source=invoke["source"])
        for code, ids in lines.outcomes:
            self.slots.outcome(ids, code)
        ack = lines.ack
        if len(ack["id"]):
            if ack["partition"].max() >= 1 << PARTITION_BITS:
                raise HarnessError(
                    f"{ledger.name}: partition numbers of {1 << PARTITION_BITS} or more are not supported"
                )
            self.slots.ack(ack["id"], ack["partition"], ack["offset"])
        self.txns.add(**lines.txn)
        self.session_rows += [(s, ledger.name, detail, t) for s, detail, t in lines.session]


class _SlotBuilder:
    """Per-session columns indexed by seq, grown as ledger lines arrive; joined into slots at the end.

    Filling by seq as lines are read keeps memory at one copy of the columns (no staging
    of raw lines). An invoke of a seq invoked before moves the earlier attempt aside
    (``earlier``), and the ids of ``fail`` lines are kept (``failed``): both are few, and they
    are the only lines kept as lines.
    """

    _COLUMNS: ClassVar[dict[str, tuple[type, int | bool]]] = {
        "invoked": (bool, False),
        "topic": (np.int16, -1),
        "txn": (np.int32, -1),
        "source": (np.int64, -1),
        "saw": (np.int8, 0),  # _SAW bits of the outcome lines
        "ack_pos": (np.int64, -1),
    }

    def __init__(self) -> None:
        self.cols: dict[int, dict[str, np.ndarray]] = {}
        self.size: dict[int, int] = {}
        self.earlier: list[tuple[np.ndarray, np.ndarray]] = []  # (ids, txn) of attempts sent again since
        self.failed: list[np.ndarray] = []  # ids of the ``fail`` lines

    def _per_session(self, ids: np.ndarray) -> Iterator[tuple[dict[str, np.ndarray], np.ndarray, np.ndarray | slice]]:
        """(columns of the session, seqs, selector into the batch) for each session in ``ids``."""
        sessions = ids >> SEQ_BITS
        seqs = ids & ((1 << SEQ_BITS) - 1)
        present = distinct(sessions)
        for session in present:
            pick = slice(None) if len(present) == 1 else sessions == session
            seq = seqs[pick]
            need = int(seq.max()) + 1
            cols = self.cols.get(int(session))
            if cols is None or len(cols["invoked"]) < need:
                # Doubling: a session's columns are copied about once in all, not three times.
                cap = max(need, 1024, 2 * len(cols["invoked"]) if cols else 0)
                grown = {}
                for n, (dtype, fill) in self._COLUMNS.items():
                    old = cols[n] if cols else np.empty(0, dtype)
                    grown[n] = np.empty(cap, dtype)
                    grown[n][: len(old)] = old
                    grown[n][len(old) :] = fill
                cols = self.cols[int(session)] = grown
            self.size[int(session)] = max(self.size.get(int(session), 0), need)
            yield cols, seq, pick

    def invoke(self, ids: np.ndarray, topic: np.ndarray, txn: np.ndarray, source: np.ndarray) -> None:
        for cols, seq, pick in self._per_session(ids):
            session_ids, txn_of = ids[pick], txn[pick]
            last: np.ndarray | slice = slice(None)
            if len(seq) > 1 and not np.all(seq[1:] > seq[:-1]):  # a seq twice in this piece: rare
                order = np.argsort(seq, kind="stable")
                again = seq[order[1:]] == seq[order[:-1]]  # in line order: all but each seq's last are earlier
                before = order[:-1][again]
                self.earlier.append((session_ids[before], txn_of[before]))
                last = np.sort(order[np.r_[~again, True]])
            seq = seq[last]
            resent = np.flatnonzero(cols["invoked"][seq])  # invoked in an earlier piece or file
            if len(resent):
                self.earlier.append((session_ids[last][resent], cols["txn"][seq[resent]]))
            cols["invoked"][seq] = True
            cols["topic"][seq] = topic[pick][last]
            cols["txn"][seq] = txn_of[last]
            cols["source"][seq] = source[pick][last]

    def outcome(self, ids: np.ndarray, code: int) -> None:
        for cols, seq, _ in self._per_session(ids):
            cols["saw"][seq] |= _SAW[code]
        if code == FAIL:
            self.failed.append(ids)

    def ack(self, ids: np.ndarray, partition: np.ndarray, offset: np.ndarray) -> None:
        for cols, seq, pick in self._per_session(ids):
            sent = cols["invoked"][seq]  # acknowledged in the topic it was sent to
            pos = position(cols["topic"][seq], partition[pick], offset[pick])
            cols["ack_pos"][seq[sent]] = pos[sent]

    def build(self, rows: list[tuple[int, str, str, int]]) -> tuple[Sessions, Sends]:
        announced = {r[0]: r for r in rows}
        ids = sorted(set(self.size) | set(announced))
        size = np.array([self.size.get(s, 0) for s in ids], np.int64)
        columns = {}
        for name in self._COLUMNS:  # one column at a time, releasing the per-session parts
            columns[name] = np.concatenate(
                [self.cols[s].pop(name)[: self.size[s]] for s in ids if s in self.cols]
                or [np.empty(0, self._COLUMNS[name][0])]
            )
        info = [announced.get(s) for s in ids]
        sessions = Sessions(
            id=np.array(ids, np.int64),
            file=[r[1] if r else "?" for r in info],
            transactional_id=[r[2] if r else "" for r in info],
            started_us=np.array([r[3] if r else -1 for r in info], np.int64),
            base=np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64),
            size=size,
        )

        def slots(ids: np.ndarray) -> np.ndarray:  # of ids of sessions that are there
            k = np.searchsorted(sessions.id, ids >> SEQ_BITS)
            return sessions.base[k] + (ids & ((1 << SEQ_BITS) - 1))

        earlier_ids = np.concatenate([e[0] for e in self.earlier] or [np.empty(0, np.int64)])
        order = np.argsort(earlier_ids, kind="stable")
        earlier_slot = slots(earlier_ids[order])
        earlier_txn = np.concatenate([e[1] for e in self.earlier] or [np.empty(0, np.int32)])[order]
        failed = slots(np.concatenate(self.failed or [np.empty(0, np.int64)]))
        outcome = _outcome(columns.pop("saw"), failed, earlier_slot)
        return sessions, Sends(
            **columns,
            outcome=outcome,
            earlier_slot=earlier_slot,
            earlier_txn=earlier_txn.astype(np.int32),
        )


def _outcome(saw: np.ndarray, failed: np.ndarray, earlier_slot: np.ndarray) -> np.ndarray:
    """Per slot, the outcome over all attempts (see ``OK``) from the outcome lines seen (``failed``:
    the slot of each ``fail`` line) and the attempts: the last invoke, and one per ``earlier_slot``."""
    outcome = np.full(len(saw), NO_OUTCOME, np.int8)
    outcome[(saw & _SAW[FAIL]) > 0] = FAIL
    outcome[(saw & _SAW[INFO]) > 0] = INFO
    outcome[(saw & _SAW[OK]) > 0] = OK
    if len(earlier_slot):  # an attempt without its own ``fail`` line leaves the id open
        resent, attempts = np.unique(earlier_slot, return_counts=True)
        attempts += 1
        failed = np.sort(failed)
        fails = np.searchsorted(failed, resent, side="right") - np.searchsorted(failed, resent)
        outcome[resent[(outcome[resent] == FAIL) & (fails < attempts)]] = INFO
    return outcome


def _transactions(events: _Chunks) -> Transactions:
    keys, strongest = _strongest(
        events.take("key", np.int64),
        state=events.take("state", np.int8),
        begin=events.take("begin", np.int64),
        commit=events.take("commit", np.int64),
    )
    # A time only counts when some line gave one: -1 ("unknown") is the floor.
    return Transactions(
        keys, strongest["state"], np.maximum(strongest["begin"], -1), np.maximum(strongest["commit"], -1)
    )


def _strongest(key: np.ndarray, **values: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The distinct keys, ascending, and each value's largest per key: what the lines about one
    transaction add up to, a piece at a time (most of a transaction's lines are in one piece)
    and then over all pieces."""
    order = np.argsort(key)
    key = key[order]
    first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]]) if len(key) else np.empty(0, np.intp)
    return key[first], {name: np.maximum.reduceat(v[order], first) for name, v in values.items()}
