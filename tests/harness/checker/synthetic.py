"""Synthetic histories: clean ones of any size, and single-anomaly mutations of small ones.

A clean history is what a correct Kafka and correct clients would leave: ledgers with every
send acknowledged, transactions committed or aborted as planned, and read-backs that show
exactly the committed data, with a marker after each transaction in each partition it
touched. The mutation suite injects one kind of anomaly at a time and expects the checker
to name it; the checker benchmark feeds it millions of records. Generation is vectorised
(numpy into Arrow tables) so ten million records take seconds.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from harness.history.format import ISOLATIONS, partitions_read_metadata, view_path
from harness.history.ledger import COLUMNS, END_MARK, EVENTS, INT_COLUMNS
from harness.history.records import MARKER_ID, SEQ_BITS

INPUT_TOPIC = "input"
OUTPUT_TOPIC = "output"
BASE_US = 1_700_000_000_000_000

_EV = {name: i for i, name in enumerate(EVENTS)}
# Within one microsecond of one session, events are written in this order.
_SUB = {"session": 0, "txn-begin": 1, "invoke": 2, "ok": 3, "txn-commit": 4, "txn-committed": 5, "txn-aborted": 5}


@dataclass(frozen=True)
class Shape:
    records: int
    sessions: int = 4
    partitions: int = 4
    txn_size: int = 0  # 0: not transactional; n: n records per transaction
    abort_every: int = 0  # every n-th transaction of a session aborts (0: none)
    transform: bool = False  # a transactional app copies each committed input to OUTPUT_TOPIC


@dataclass
class Tables:
    """One history: ledger rows (all sessions, in each session's write order) and two views."""

    ledger: pa.Table  # COLUMNS, plus nothing else
    views: dict[str, pa.Table]  # isolation -> topic, partition, offset, id, key
    # What the readers say they read (the read-back's metadata); None: every partition with rows.
    partitions_read: dict[str, list[int]] | None = None

    def write(self, root: Path) -> tuple[list[Path], Path]:
        """Ledger files (one per session) under ``root/ledgers``, views under ``root/reads``."""
        ledgers, reads = root / "ledgers", root / "reads"
        ledgers.mkdir(parents=True, exist_ok=True)
        reads.mkdir(parents=True, exist_ok=True)
        paths = []
        files = self.ledger.column("file")
        for name in pc.unique(files).to_pylist():
            rows = self.ledger.filter(pc.equal(files, name)).drop_columns(["file"])
            path = ledgers / f"{name}.csv"
            pacsv.write_csv(
                rows.cast(pa.schema([pa.field(c, _LEDGER_TYPES[c]) for c in COLUMNS])),
                path,
                write_options=pacsv.WriteOptions(quoting_style="none"),
            )
            paths.append(path)
        for isolation, table in self.views.items():
            read = self.partitions_read
            if read is None:
                read = {}
                pairs = zip(table["topic"].to_pylist(), table["partition"].to_pylist(), strict=True)
                for t, part in sorted(set(pairs)):
                    read.setdefault(t, []).append(part)
            pq.write_table(table.replace_schema_metadata(partitions_read_metadata(read)), view_path(reads, isolation))
        return paths, reads


_LEDGER_TYPES = {c: pa.int64() if c in INT_COLUMNS else pa.string() for c in COLUMNS}  # as the writer writes them


@dataclass
class _Group:
    """Records of one producer group (the input producers, or the transform app)."""

    id: np.ndarray
    session: np.ndarray
    partition: np.ndarray
    txn: np.ndarray  # -1 outside transactions
    aborted: np.ndarray
    source: np.ndarray
    time: np.ndarray  # log order == time order
    offset: np.ndarray
    markers: tuple[np.ndarray, np.ndarray]  # (partition, offset)


def _group(
    n: int, first_session: int, sessions: int, partitions: int, txn_size: int, abort_every: int, start_us: int,
    partition: np.ndarray | None = None, source: np.ndarray | None = None,
) -> _Group:  # fmt: skip
    i = np.arange(n, dtype=np.int64)
    local, seq = i % sessions, i // sessions
    session = first_session + local
    ids = (session << SEQ_BITS) | seq
    part = partition if partition is not None else (seq // 3 + local) % partitions
    txn = seq // txn_size if txn_size else np.full(n, -1, np.int64)
    aborted = (txn % abort_every == abort_every - 1) if (txn_size and abort_every) else np.zeros(n, bool)
    # Log order: transaction by transaction (round-robin over sessions), else send order.
    order = np.lexsort((seq, local, txn)) if txn_size else i
    rank = np.empty(n, np.int64)
    rank[order] = i
    # Markers: one per (transaction, partition it touched), right after the transaction.
    if txn_size:
        block = txn * sessions + local
        pairs = np.unique(np.stack([block, part]), axis=1)
        last_rank = np.zeros(int(block.max()) + 1, np.int64)
        np.maximum.at(last_rank, block, rank)
        m_part, m_key = pairs[1], 2 * last_rank[pairs[0]] + 1
    else:
        m_part, m_key = np.empty(0, np.int64), np.empty(0, np.int64)
    # Offsets: rank within the partition of data rows and markers, ordered by log key.
    all_part = np.concatenate([part, m_part])
    all_key = np.concatenate([2 * rank, m_key])
    o = np.lexsort((all_key, all_part))
    sorted_part = all_part[o]
    first = np.searchsorted(sorted_part, sorted_part)
    offsets = np.empty(len(o), np.int64)
    offsets[o] = np.arange(len(o)) - first
    return _Group(
        id=ids, session=session, partition=part, txn=txn, aborted=aborted,
        source=source if source is not None else np.full(n, -1, np.int64),
        time=start_us + 10 * rank, offset=offsets[:n], markers=(m_part, offsets[n:]),
    )  # fmt: skip


def generate(shape: Shape) -> Tables:
    return _generate(shape, 1, BASE_US, {})


def _generate(shape: Shape, first_session: int, start_us: int, offsets: dict[tuple[str, int], int]) -> Tables:
    """A clean history of new sessions from ``first_session`` on, starting at ``start_us``, its records
    stored after ``offsets`` (per topic and partition: the next free offset, moved on past them)."""
    groups = [("producer", INPUT_TOPIC, shape.txn_size, _group(
        shape.records, first_session, shape.sessions, shape.partitions, shape.txn_size, shape.abort_every,
        start_us))]  # fmt: skip
    if shape.transform:
        inp = groups[0][3]
        done = ~inp.aborted
        out_txn = shape.txn_size or 10
        groups.append(("app", OUTPUT_TOPIC, out_txn, _group(
            int(done.sum()), first_session + shape.sessions, shape.sessions, shape.partitions, out_txn, 0,
            int(inp.time.max()) + 1000, partition=inp.partition[done], source=inp.id[done])))  # fmt: skip
    for topic, g in ((topic, g) for _, topic, _, g in groups):
        base = np.array([offsets.get((topic, p), 0) for p in range(shape.partitions)], np.int64)
        g.offset += base[g.partition]
        g.markers[1][:] += base[g.markers[0]]
        for p in range(shape.partitions):
            held = np.concatenate([g.offset[g.partition == p], g.markers[1][g.markers[0] == p]])
            offsets[(topic, p)] = int(held.max()) + 1 if len(held) else int(base[p])
    ledgers = [_ledger(kind, topic, txn_size, g) for kind, topic, txn_size, g in groups]
    views = _views([(topic, g) for _, topic, _, g in groups])
    return Tables(pa.concat_tables(ledgers), views)


def write_in_blocks(shape: Shape, blocks: int, root: Path) -> None:
    """A clean history of ``shape`` written as ``blocks`` histories of its size over ``blocks``, one
    after the other into the same topics (new sessions each, offsets going on): one that would
    not fit in memory at once. The read-backs keep each partition's rows in offset order within a
    block, block after block."""
    small = Shape(**{**shape.__dict__, "records": -(-shape.records // blocks)})
    (root / "reads").mkdir(parents=True, exist_ok=True)
    topics = [INPUT_TOPIC, OUTPUT_TOPIC] if shape.transform else [INPUT_TOPIC]
    read = {t: list(range(shape.partitions)) for t in topics}
    writers: dict[str, pq.ParquetWriter] = {}
    offsets: dict[tuple[str, int], int] = {}
    try:
        for b in range(blocks):
            span_us = 10 * 2 * small.records + 10_000  # a block's times, as _group spaces them, and a gap
            tables = _generate(small, 1 + b * 2 * shape.sessions, BASE_US + b * span_us, offsets)
            tables.views, views = {}, tables.views
            tables.write(root)  # the ledgers: new files, one per session
            for isolation, table in views.items():
                if isolation not in writers:
                    schema = table.schema.with_metadata(partitions_read_metadata(read))
                    writers[isolation] = pq.ParquetWriter(view_path(root / "reads", isolation), schema)
                writers[isolation].write_table(table.cast(writers[isolation].schema))
            del tables, views
    finally:
        for w in writers.values():
            w.close()


def _ledger(kind: str, topic: str, txn_size: int, g: _Group) -> pa.Table:
    sessions = np.unique(g.session)
    names = ("event", "time", "session", "id", "partition", "offset", "txn", "source", "sub")
    cols: dict[str, list[np.ndarray]] = {k: [] for k in names}

    def add(event: str, time: np.ndarray, session: np.ndarray, **rest: np.ndarray) -> None:
        m = len(time)
        cols["event"].append(np.full(m, _EV[event], np.int8))
        cols["sub"].append(np.full(m, _SUB[event], np.int8))
        cols["time"].append(time)
        cols["session"].append(session)
        for k in ("id", "partition", "offset", "txn", "source"):
            cols[k].append(rest.get(k, np.full(m, -1, np.int64)))

    add("session", np.full(len(sessions), BASE_US - 1, np.int64), sessions)
    add("invoke", g.time, g.session, id=g.id, partition=g.partition, txn=g.txn, source=g.source)
    add("ok", g.time, g.session, id=g.id, partition=g.partition, offset=g.offset)
    if txn_size:
        key = (g.session << SEQ_BITS) | g.txn
        keys, first = np.unique(key, return_index=True)
        last = np.zeros(len(keys), np.int64)
        np.maximum.at(last, np.searchsorted(keys, key), g.time)
        t_session, t_txn, t_aborted = g.session[first], g.txn[first], g.aborted[first]
        add("txn-begin", g.time[first], t_session, txn=t_txn)
        add("txn-commit", last[~t_aborted], t_session[~t_aborted], txn=t_txn[~t_aborted])
        add("txn-committed", last[~t_aborted], t_session[~t_aborted], txn=t_txn[~t_aborted])
        add("txn-aborted", last[t_aborted], t_session[t_aborted], txn=t_txn[t_aborted])
    c = {k: np.concatenate(v) for k, v in cols.items()}
    o = np.lexsort((c["sub"], c["time"], c["session"]))
    c = {k: v[o] for k, v in c.items()}
    ev = c["event"]
    is_session = ev == _EV["session"]
    uses_topic = ev == _EV["invoke"]
    uses_session = ~(ev == _EV["ok"])

    def ints(name: str, keep: np.ndarray) -> pa.Array:
        return pa.array(c[name], mask=~keep | (c[name] < 0))

    session_names = {int(s): f"{kind}-{int(s)}" for s in sessions}
    detail = pa.DictionaryArray.from_arrays(
        pa.array(np.searchsorted(sessions, c["session"]).astype(np.int32), mask=~is_session | (txn_size == 0)),
        pa.array([session_names[int(s)] for s in sessions]),
    )
    file = pa.DictionaryArray.from_arrays(
        pa.array(np.searchsorted(sessions, c["session"]).astype(np.int32)),
        pa.array([f"{kind}-{int(s)}" for s in sessions]),
    )
    m = len(ev)
    return pa.table(
        {
            "event": pa.DictionaryArray.from_arrays(pa.array(ev.astype(np.int32)), pa.array(EVENTS)),
            "time_us": pa.array(c["time"]),
            "session": ints("session", uses_session),
            "id": ints("id", np.ones(m, bool)),
            "key": pa.nulls(m, pa.string()),
            "topic": pa.DictionaryArray.from_arrays(
                pa.array(np.zeros(m, np.int32), mask=~uses_topic), pa.array([topic])
            ),
            "partition": ints("partition", uses_topic | (ev == _EV["ok"])),
            "offset": ints("offset", ev == _EV["ok"]),
            "txn": ints("txn", np.ones(m, bool)),
            "source": ints("source", np.ones(m, bool)),
            "detail": detail,
            "end": pa.DictionaryArray.from_arrays(pa.array(np.zeros(m, np.int32)), pa.array([END_MARK])),
            "file": file,
        }
    )


def _views(groups: list[tuple[str, _Group]]) -> dict[str, pa.Table]:
    parts: dict[str, list[pa.Table]] = {iso: [] for iso in ISOLATIONS}
    for topic, g in groups:
        m_part, m_off = g.markers
        part = np.concatenate([g.partition, m_part])
        off = np.concatenate([g.offset, m_off])
        ids = np.concatenate([g.id, np.full(len(m_part), MARKER_ID, np.int64)])
        committed = np.concatenate([~g.aborted, np.zeros(len(m_part), bool)])
        o = np.lexsort((off, part))
        for isolation, keep in (("read_uncommitted", np.ones(len(o), bool)), ("read_committed", committed[o])):
            rows = o[keep]
            parts[isolation].append(_view_table(topic, part[rows], off[rows], ids[rows]))
    return {iso: pa.concat_tables(t) for iso, t in parts.items()}


def _view_table(topic: str, partition: np.ndarray, offset: np.ndarray, ids: np.ndarray) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            "topic": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([topic])),
            "partition": pa.array(partition.astype(np.int32)),
            "offset": pa.array(offset.astype(np.int64)),
            "id": pa.array(ids.astype(np.int64)),
            "key": pa.nulls(n, pa.string()),
        }
    )


# --- mutations: one kind of anomaly injected into a clean history ------------------------

PLAIN = Shape(records=400, sessions=3, partitions=4)
TXN = Shape(records=396, sessions=3, partitions=2, txn_size=4, abort_every=5)  # 33 whole transactions per session
TRANSFORM = Shape(records=200, sessions=2, partitions=2, txn_size=4, abort_every=5, transform=True)
K = 3  # instances injected per mutation
# TXN's committed records in partition 0 (counted from the shape: 162 of the 324 committed).
PARTITION_0_COMMITTED = 162


@dataclass
class _Rows:
    """A small history as Python rows, for surgery."""

    ledger: list[dict[str, object]]
    views: dict[str, list[dict[str, object]]]
    schema: pa.Schema
    view_schema: pa.Schema

    @classmethod
    def of(cls, t: Tables) -> _Rows:
        ledger = t.ledger.cast(
            pa.schema([pa.field(c, _LEDGER_TYPES.get(c, pa.string())) for c in t.ledger.column_names])
        )
        views = {k: v.cast(v.schema) for k, v in t.views.items()}
        return cls(
            ledger.to_pylist(),
            {k: v.to_pylist() for k, v in views.items()},
            ledger.schema,
            next(iter(views.values())).schema,
        )

    def tables(self) -> Tables:
        view_schema = pa.schema(
            [pa.field(f.name, pa.string() if f.name == "topic" else f.type) for f in self.view_schema]
        )
        views = {k: pa.Table.from_pylist(sorted(rows, key=_view_order), view_schema) for k, rows in self.views.items()}
        return Tables(pa.Table.from_pylist(self.ledger, self.schema), views)

    def visible(self, isolation: str = "read_committed") -> list[dict[str, object]]:
        return [r for r in self.views[isolation] if r["id"] >= 0]  # type: ignore[operator]

    def end_of(self, topic: object, partition: object) -> int:
        rows = self.views["read_uncommitted"]
        return 1 + max(int(r["offset"]) for r in rows if (r["topic"], r["partition"]) == (topic, partition))  # type: ignore[arg-type]

    def append(self, row: dict[str, object]) -> None:
        for rows in self.views.values():
            rows.append(dict(row))

    def drop(self, record_id: object) -> None:
        for k, rows in self.views.items():
            self.views[k] = [r for r in rows if r["id"] != record_id]

    def lines(self, event: str, **match: object) -> list[dict[str, object]]:
        return [r for r in self.ledger if r["event"] == event and all(r[k] == v for k, v in match.items())]


def _view_order(r: dict[str, object]) -> tuple[object, ...]:
    return (r["topic"], r["partition"], r["offset"])


def _committed_txns(rows: _Rows) -> list[dict[str, object]]:
    return rows.lines("txn-committed")


def _members(rows: _Rows, txn_line: dict[str, object]) -> list[dict[str, object]]:
    return rows.lines("invoke", session=txn_line["session"], txn=txn_line["txn"])


def _m_duplicate(r: _Rows) -> None:
    for v in r.visible()[10 : 10 + K]:
        r.append({**v, "offset": r.end_of(v["topic"], v["partition"])})


def _m_lost(r: _Rows) -> None:
    for v in r.visible()[10 : 10 + K]:
        r.drop(v["id"])


def _m_failed_send_read(r: _Rows) -> None:
    for line in r.lines("ok")[10 : 10 + K]:
        line.update(event="fail", partition=None, offset=None, detail="MSG_SIZE_TOO_LARGE")


def _m_aborted_txn_read(r: _Rows) -> None:
    for line in _committed_txns(r)[:K]:
        line["event"] = "txn-aborted"


def _m_phantom(r: _Rows) -> None:
    for i, v in enumerate(r.visible()[:K]):
        r.append({**v, "id": (999 << SEQ_BITS) | i, "offset": r.end_of(v["topic"], v["partition"])})


def _m_order(r: _Rows) -> None:
    """Swap neighbouring records of one session in one partition, and their acks with them."""
    done: set[object] = set()
    rows = r.visible()
    for a, b in itertools.pairwise(rows):
        if len(done) == K:
            break
        same = (a["partition"], a["id"] >> SEQ_BITS) == (b["partition"], b["id"] >> SEQ_BITS)  # type: ignore[operator]
        if same and a["partition"] not in done:
            done.add(a["partition"])
            swap = {a["id"]: b["id"], b["id"]: a["id"]}
            ack_a, ack_b = r.lines("ok", id=a["id"])[0], r.lines("ok", id=b["id"])[0]
            ack_a["offset"], ack_b["offset"] = ack_b["offset"], ack_a["offset"]
            for view in r.views.values():
                for row in view:
                    row["id"] = swap.get(row["id"], row["id"])


def _m_torn(r: _Rows) -> None:
    for line in _committed_txns(r)[:K]:
        r.drop(_members(r, line)[0]["id"])


def _m_partition_0_empty(r: _Rows) -> None:
    for k, rows in r.views.items():
        r.views[k] = [x for x in rows if (x["topic"], x["partition"]) != (INPUT_TOPIC, 0)]


def _m_readers_disagree(r: _Rows) -> None:
    ru = [x for x in r.views["read_uncommitted"] if x["id"] >= 0]  # type: ignore[operator]
    for row in ru[20 : 20 + K]:
        row["id"] = ru[0]["id"]


def _m_ack_elsewhere(r: _Rows) -> None:
    for line in r.lines("ok")[20 : 20 + K]:
        line["offset"] = int(line["offset"]) + 1  # type: ignore[arg-type]


def _m_eos_missing(r: _Rows) -> None:
    outputs = [x for x in r.lines("invoke") if x["source"] is not None]
    gone = {x["id"] for x in outputs[5 : 5 + K]}
    r.ledger = [x for x in r.ledger if x["id"] not in gone]
    for record_id in gone:
        r.drop(record_id)


def _m_eos_repeated(r: _Rows) -> None:
    outputs = [x for x in r.lines("invoke") if x["source"] is not None]
    visible = {v["id"] for v in r.visible()}
    for i, out in enumerate([x for x in outputs if x["id"] in visible][:K]):
        new_id = int(out["id"]) + (1 << 20) + i  # type: ignore[arg-type]  # same session, an unused seq
        offset = r.end_of(out["topic"], out["partition"])
        at = r.ledger.index(out)
        r.ledger[at + 1 : at + 1] = [
            {**out, "id": new_id},
            {**r.lines("ok", id=out["id"])[0], "id": new_id, "offset": offset},
        ]
        r.append({"topic": out["topic"], "partition": out["partition"], "offset": offset, "id": new_id, "key": None})


def _m_zombie(r: _Rows) -> None:
    """A newer session of the same transactional.id became ready just before the last commit."""
    victim = _committed_txns(r)[-1]
    announce = r.lines("session", session=victim["session"])[0]
    commit = r.lines("txn-commit", session=victim["session"], txn=victim["txn"])[0]
    newer = {**announce, "session": 900, "time_us": int(commit["time_us"]) - 1, "file": "producer-900"}  # type: ignore[arg-type]
    r.ledger.append(newer)


def _m_indeterminate(r: _Rows) -> None:
    gone = {id(x) for x in r.lines("ok")[30 : 30 + K]}
    r.ledger = [x for x in r.ledger if id(x) not in gone]


def _cut_last_line(paths: list[Path]) -> None:
    data = paths[0].read_bytes()
    paths[0].write_bytes(data[: len(data) - 7])


def _garbage_line(paths: list[Path]) -> None:
    lines = paths[0].read_bytes().splitlines(keepends=True)
    lines.insert(len(lines) // 2, b'this is, "not a ledger line\n')
    paths[0].write_bytes(b"".join(lines))


@dataclass(frozen=True)
class Mutation:
    name: str
    shape: Shape
    expect: dict[str, int]  # anomaly -> count the checker must report; every other one is 0
    rows: object = None  # _Rows -> None, surgery on the history
    files: object = None  # list[Path] -> None, surgery on the written ledger files
    problems: int = 0  # ledger lines the checker must report as ignored
    stats: tuple[tuple[str, int], ...] = ()
    eos: bool = False
    partitions_read: dict[str, list[int]] | None = None  # what the readers declare (default: what has rows)

    def build(self, root: Path) -> tuple[list[Path], Path]:
        tables = generate(self.shape)
        if self.rows is not None:
            rows = _Rows.of(tables)
            self.rows(rows)  # type: ignore[operator]
            tables = rows.tables()
        tables.partitions_read = self.partitions_read
        paths, reads = tables.write(root)
        if self.files is not None:
            self.files(paths)  # type: ignore[operator]
        return paths, reads


MUTATIONS = (
    Mutation("clean plain", PLAIN, {}),
    Mutation("clean transactional", TXN, {}),
    Mutation("clean transform", TRANSFORM, {}, eos=True),
    Mutation("duplicate", PLAIN, {"duplicate": K}, _m_duplicate),
    Mutation("lost", PLAIN, {"lost": K}, _m_lost),
    Mutation("failed send read", PLAIN, {"aborted_read": K}, _m_failed_send_read),
    Mutation("aborted transaction read", TXN, {"aborted_read": K * TXN.txn_size}, _m_aborted_txn_read),
    Mutation("phantom", PLAIN, {"phantom": K}, _m_phantom),
    Mutation("order", PLAIN, {"order": K}, _m_order),
    Mutation("torn transaction", TXN, {"torn_transaction": K, "lost": K}, _m_torn),
    # Every TXN transaction spans both partitions; 27 of each session's 33 commit.
    Mutation(
        "one of two partitions read", TXN, {"partly_read": 81}, _m_partition_0_empty, partitions_read={INPUT_TOPIC: [1]}
    ),
    # Read, and found empty: its committed records are lost and every transaction is torn.
    Mutation(
        "a partition read and found empty",
        TXN,
        {"lost": PARTITION_0_COMMITTED, "torn_transaction": 81},
        _m_partition_0_empty,
        partitions_read={INPUT_TOPIC: [0, 1]},
    ),
    # The readers disagree at the offset, and so does the acknowledgement of the id that was there.
    Mutation("readers disagree", PLAIN, {"inconsistent_offset": 2 * K}, _m_readers_disagree),
    Mutation("ack names another offset", PLAIN, {"inconsistent_offset": K}, _m_ack_elsewhere),
    Mutation("eos missing", TRANSFORM, {"eos_missing": K}, _m_eos_missing, eos=True),
    Mutation("eos repeated", TRANSFORM, {"eos_repeated": K}, _m_eos_repeated, eos=True),
    Mutation("zombie", TXN, {"zombie_write": TXN.txn_size}, _m_zombie, stats=(("sessions_fenced", 1),)),
    Mutation("indeterminate", PLAIN, {}, _m_indeterminate, stats=(("indeterminate", K),)),
    Mutation("truncated ledger", PLAIN, {}, files=_cut_last_line, problems=1, stats=(("indeterminate", 1),)),
    Mutation("garbage line", PLAIN, {}, files=_garbage_line, problems=1),
)
