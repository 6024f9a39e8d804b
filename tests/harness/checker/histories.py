"""Histories for the checker's tests, written through the documented formats only.

The checker reads ledger CSV files (``harness.history.ledger``) and read-back Parquet files
(``harness.history.format``, with the ``partitions_read`` schema metadata); everything here
ends as exactly those files, so the tests prove what a real run's files would show, not what
a hand-built array would.

Two layers:

- **files**: ``Ledger`` (rows and raw garbage lines of one ledger file) and ``write_view`` (one
  read-back file), for hand-made regression histories;
- **a world** (``build``): apps of every workload kind run against a simulated log, restarting
  and resending as the harness's apps do, so that the history is clean by construction under
  the chosen consumer view; then anomalies are injected, each with the count the checker must
  report. ``Spec`` is a handful of plain values (kinds, view, seed, injections, ...), so a
  failing case is kept as one ``@example(Spec(...))``; ``specs()`` is its Hypothesis strategy.
"""

from __future__ import annotations

import csv
import io
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import strategies as st

from harness.checker.catalogue import ANOMALIES
from harness.history.format import ISOLATIONS, SCHEMA, partitions_read_metadata, view_path
from harness.history.ledger import COLUMNS, END_MARK
from harness.history.records import MARKER_ID, UNDECODABLE_ID, decode_id, make_id

BASE_US = 1_700_000_000_000_000

# --- files ----------------------------------------------------------------------------------


def row(event: str, time_us: int, **fields: object) -> dict[str, object]:
    """One ledger line; a field not given is empty."""
    unknown = set(fields) - set(COLUMNS)
    assert not unknown, unknown
    return {"event": event, "time_us": time_us, **fields}


@dataclass
class Ledger:
    """One ledger file: a header (unless ``header`` is false), then rows and raw lines in order."""

    name: str
    lines: list[dict[str, object] | bytes] = field(default_factory=list)
    header: bool = True

    def text(self) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")  # as LedgerWriter writes
        if self.header:
            writer.writerow(COLUMNS)
        chunks = []
        for line in self.lines:
            if isinstance(line, bytes):
                chunks.append(out.getvalue().encode() + line)
                out.seek(0)
                out.truncate()
            else:
                writer.writerow(["" if line.get(c) is None else line.get(c) for c in COLUMNS[:-1]] + [END_MARK])
        return b"".join(chunks) + out.getvalue().encode()

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.csv"
        path.write_bytes(self.text())
        return path


ReadRow = tuple[str, int, int, int]  # topic, partition, offset, id


def write_view(
    reads: Path,
    isolation: str,
    rows: Iterable[ReadRow],
    read: dict[str, list[int]] | None,
    topic_partitions: dict[str, int] | None = None,
) -> Path:
    """A read-back file as ``readback`` writes it: rows in the order given; as metadata the partitions read
    and (unless None, as in files from before it was written) how many partitions each topic has.
    ``read=None`` writes no metadata at all, like the oldest read-backs."""
    rows = list(rows)
    reads.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            "topic": pa.array([r[0] for r in rows], pa.string()),
            "partition": pa.array([r[1] for r in rows], pa.int32()),
            "offset": pa.array([r[2] for r in rows], pa.int64()),
            "id": pa.array([r[3] for r in rows], pa.int64()),
            "key": pa.nulls(len(rows), pa.string()),
        },
        schema=SCHEMA if read is None else SCHEMA.with_metadata(partitions_read_metadata(read, topic_partitions)),
    )
    path = view_path(reads, isolation)
    pq.write_table(table, path)
    return path


# --- a world: apps against a simulated log --------------------------------------------------

KINDS = ("plain", "idempotent", "transactional", "pipeline", "transactional pipeline", "zombie")
READING = ("all", "empty")  # every partition of every topic, or only the partitions that hold nothing
ROW_ORDERS = ("sorted", "consume", "shuffled")
# Lines the checker must ignore and report, one each, wherever they stand in a ledger.
GARBAGE = (
    b'this is, "not a ledger line\n',
    b"bogus,1,1,,,,,,,,,.\n",
    b"invoke,1,1,\n",
    (",".join(COLUMNS) + "\n").encode(),
    b"ok,abc,,1,,,0,0,,,,.\n",
    b"   \n",
    b"fail,5,,7,,,,,,,ERR,\n",
    b"\xff\xfe,\x00 not text\n",
)
TORN_TAIL = b"invoke,1700000000000000,1,42"  # the last line of a killed process, cut short
# Value heads that carry no harness id: a row with one is a phantom of its own.
NO_ID_HEADS = (b"-1", b"-2", b"+5", b" 7", b"1_0", b"007", b"99999999999999999999", b"", b"no id")
ISOLATIONS = ISOLATIONS
Position = tuple[str, int, int]


@dataclass(frozen=True)
class Spec:
    """A history in a few plain values: what runs, how it is read, what goes wrong."""

    kinds: tuple[str, ...]  # one app (a pipeline: two) each, from KINDS
    view: str = "read_committed"  # the consumer's view
    inject: tuple[tuple[str, int], ...] = ()  # (history anomaly, how many)
    seed: int = 0  # every smaller choice
    reading: str = "all"  # READING
    row_order: str = "sorted"  # ROW_ORDERS: how the read-back files hold their rows
    garbage: int = 0  # lines the checker must ignore, spread over the ledgers
    piece_bytes: int = 0  # ledger bytes the loader parses at a time; 0: its own


@dataclass
class Case:
    """A built history: its files' contents, and what the checker must say about them."""

    ledgers: list[Ledger]
    rows: dict[str, list[ReadRow]]
    read: dict[str, list[int]]
    topic_partitions: dict[str, int]
    view: str
    eos_pairs: tuple[tuple[str, str], ...]
    expect: dict[str, int]  # every history anomaly of the catalogue -> count
    problems: int  # ledger lines the checker must report as ignored
    piece_bytes: int

    def write(self, root: Path) -> tuple[list[Path], Path]:
        paths = [ledger.write(root / "ledgers") for ledger in self.ledgers]
        for isolation, rows in self.rows.items():
            write_view(root / "reads", isolation, rows, self.read, self.topic_partitions)
        return paths, root / "reads"


@dataclass(eq=False)
class _Txn:
    app: _App
    number: int
    incarnation: int
    begin_us: int
    commit_us: int = -1
    said: str = "open"  # what the ledger says: committed, aborted, unknown or open
    ends: str = ""  # what the log did: committed or aborted
    end_line: dict[str, object] | None = None
    touched: set[tuple[str, int]] = field(default_factory=set)  # partitions it wrote to

    @property
    def acted_us(self) -> int:
        return self.commit_us if self.commit_us >= 0 else self.begin_us


@dataclass(eq=False)
class _Entry:
    """One offset of a partition: a record (the id its value decodes to) or a marker (MARKER_ID)."""

    id: int
    txn: _Txn | None

    def shown_to(self, isolation: str) -> bool:
        if isolation == "read_uncommitted":
            return True
        return self.id != MARKER_ID and (self.txn is None or self.txn.ends == "committed")


@dataclass(eq=False)
class _Send:
    """One id: each attempt's transaction, and every ledger line naming it."""

    id: int
    topic: str
    app: _App
    source: int | None
    attempts: list[_Txn | None] = field(default_factory=list)
    lines: list[dict[str, object]] = field(default_factory=list)

    @property
    def txn(self) -> _Txn | None:
        return self.attempts[-1]

    @property
    def ok(self) -> dict[str, object] | None:
        oks = [line for line in self.lines if line["event"] == "ok"]
        return oks[-1] if oks else None


class _App:
    """One app: its session, its ledger files (one per incarnation), its sequence and transaction numbers."""

    def __init__(self, w: _World, kind: str, txid: str = "", output: bool = False) -> None:
        self.w, self.session, self.txid, self.output = w, w.new_session(), txid, output
        self.name = f"{kind}-{self.session}"
        self.files: list[Ledger] = []
        self.next_seq = self.next_txn = 0
        self.txns: list[_Txn] = []
        w.apps.append(self)

    def start(self, announce: bool = True) -> None:
        """A new incarnation: a new ledger file and the session line (now and then twice: the last one counts)."""
        n = len(self.files) + 1
        self.files.append(Ledger(self.name if n == 1 else f"{self.name}.{n}"))
        self.w.ledgers.append(self.files[-1])
        for _ in range(announce * (1 + (self.w.rnd.random() < 0.15))):
            self.line("session", session=self.session, detail=self.txid or None)

    def stillborn(self) -> None:
        """An incarnation killed before its first line: an empty file, or only the header."""
        self.start(announce=False)
        self.files[-1].header = self.w.rnd.random() < 0.5

    def line(self, event: str, time_us: int | None = None, **fields: object) -> dict[str, object]:
        r = row(event, self.w.tick() if time_us is None else time_us, **fields)
        self.files[-1].lines.append(r)
        return r

    def begin(self) -> _Txn:
        txn = _Txn(self, self.next_txn, len(self.files), begin_us=self.w.clock)
        self.next_txn += 1
        self.txns.append(txn)
        txn.begin_us = int(self.line("txn-begin", session=self.session, txn=txn.number)["time_us"])  # type: ignore[call-overload]
        return txn

    def end(self, txn: _Txn, *events: str, ends: str, detail: str | None = None) -> None:
        """The ledger's lines for the end of ``txn`` (``commit``, ``committed`` ...) and what the log did."""
        for event in events:
            line = self.line(f"txn-{event}", session=self.session, txn=txn.number, detail=detail)
            if event == "commit":
                txn.commit_us = int(line["time_us"])  # type: ignore[call-overload]
            else:
                txn.said, txn.end_line = event, line
        self.w.end(txn, ends)

    def send(self, seq: int, topic: str, txn: _Txn | None, source: int | None = None, keyed: bool = False) -> _Send:
        record_id = make_id(self.session, seq)
        self.next_seq = max(self.next_seq, seq + 1)
        sent = self.w.sends.setdefault(record_id, _Send(record_id, topic, self, source))
        sent.attempts.append(txn)
        sent.lines.append(
            self.line(
                "invoke",
                session=self.session,
                id=record_id,
                key=f"k{seq % 3}" if keyed else None,
                topic=topic,
                txn=None if txn is None else txn.number,
                source=source,
            )
        )
        return sent

    def outcome(self, sent: _Send, event: str, at: tuple[int, int] | None = None) -> None:
        partition, offset = at or (None, None)
        detail = None if event == "ok" else "ERR"
        sent.lines.append(self.line(event, id=sent.id, partition=partition, offset=offset, detail=detail))


class _World:
    """The log every app writes to, the apps' ledgers, and the read-back's deviations from the log."""

    def __init__(self, spec: Spec) -> None:
        self.rnd = random.Random(spec.seed)
        self.view = spec.view
        self.clock = BASE_US
        self.partitions: dict[str, int] = {}
        self.log: dict[tuple[str, int], list[_Entry]] = {}
        self.ledgers: list[Ledger] = []
        self.apps: list[_App] = []
        self.sends: dict[int, _Send] = {}
        self.eos_pairs: list[tuple[str, str]] = []
        self.sessions = 0
        self.read: set[tuple[str, int]] = set()
        # What the read-back files say beside the log, per reader: positions left out, ids
        # stored in place of the log's, rows read a second time.
        self.hidden: dict[str, set[Position]] = {i: set() for i in ISOLATIONS}
        self.replaced: dict[str, dict[Position, int]] = {i: {} for i in ISOLATIONS}
        self.again: dict[str, list[ReadRow]] = {i: [] for i in ISOLATIONS}
        self.touched: set[int] = set()  # ids an injection used: the next one leaves them alone

    def tick(self) -> int:
        self.clock += 1 + self.rnd.randrange(3)
        return self.clock

    def new_session(self) -> int:
        self.sessions += 1
        return self.sessions

    def topic(self, prefix: str, partitions: int | None = None) -> str:
        name = f"{prefix}-{len(self.partitions)}"
        self.partitions[name] = partitions or 1 + self.rnd.randrange(3)
        for p in range(self.partitions[name]):
            self.log[(name, p)] = []
        return name

    def partition(self, topic: str) -> int:
        """Where a record goes: a topic of three partitions keeps its last one empty."""
        n = self.partitions[topic]
        return self.rnd.randrange(n - (n == 3))

    def land(self, topic: str, partition: int, record_id: int, txn: _Txn | None) -> tuple[int, int]:
        entries = self.log[(topic, partition)]
        entries.append(_Entry(record_id, txn))
        if txn is not None:
            txn.touched.add((topic, partition))
        return partition, len(entries) - 1

    def end(self, txn: _Txn, ends: str) -> None:
        txn.ends = ends
        for tp in sorted(txn.touched):  # a marker in each partition the transaction wrote to
            self.log[tp].append(_Entry(MARKER_ID, txn))

    # -- what the readers return --
    def rows(self, isolation: str) -> list[ReadRow]:
        rows = []
        for (topic, p), entries in self.log.items():
            if (topic, p) in self.read:
                for offset, e in enumerate(entries):
                    at = (topic, p, offset)
                    if e.shown_to(isolation) and at not in self.hidden[isolation]:
                        rows.append((topic, p, offset, self.replaced[isolation].get(at, e.id)))
        return rows + self.again[isolation]

    def visible(self) -> Counter[int]:
        """How often the consumer's view holds each id."""
        return Counter(r[3] for r in self.rows(self.view) if r[3] >= 0)

    def copies(self, record_id: int) -> list[Position]:
        return [(t, p, o) for (t, p), es in self.log.items() for o, e in enumerate(es) if e.id == record_id]

    def hide(self, record_id: int) -> None:
        for isolation in ISOLATIONS:
            self.hidden[isolation].update(self.copies(record_id))

    def members(self, txn: _Txn) -> list[_Send]:
        return [s for s in self.sends.values() if s.txn is txn]

    def txns(self) -> list[_Txn]:
        return [t for a in self.apps for t in a.txns]

    def to_read(self, s: _Send) -> bool:
        """Whether ``s`` went to a partition that was read for sure: its ack's, else every one of its topic."""
        ok = s.ok
        if ok is not None:
            return (s.topic, ok["partition"]) in self.read
        return all((s.topic, p) in self.read for p in range(self.partitions[s.topic]))

    def untouched(self, *ids: int | None) -> bool:
        return not any(i in self.touched for i in ids if i is not None)

    def pick(self, candidates: list, k: int) -> list:  # type: ignore[type-arg]
        return self.rnd.sample(candidates, min(k, len(candidates)))


# --- the apps -----------------------------------------------------------------------------
# Each is clean under the world's view: a record lands at most once where the consumer can see
# it, a transaction's records are seen all or none, every input seen has one output seen.


def _split(w: _World, items: list) -> tuple[list, list]:  # type: ignore[type-arg]
    """The next one to three of ``items`` (a transaction, a batch), and the rest."""
    size = 1 + w.rnd.randrange(3)
    return items[:size], items[size:]


def _plain(w: _World, keyed: bool = False) -> str:
    """A producer outside transactions: outcomes ok, fail or info (written or not), restarts that
    resend what was not acknowledged, crashes with sends in flight."""
    app = _App(w, "producer")
    topic = w.topic("plain")
    landed: set[int] = set()  # seqs with a copy in the log: never a second one
    pending: list[int] = []  # seqs not acknowledged: the next incarnation resends them
    waiting: list[tuple[_Send, int, str]] = []  # sent, no outcome line yet: (send, seq, what will happen)

    def write(sent: _Send, seq: int) -> tuple[int, int]:
        landed.add(seq)
        return w.land(topic, w.partition(topic), sent.id, None)

    def deliver() -> None:
        for sent, seq, plan in waiting:
            if plan == "ok":
                app.outcome(sent, "ok", write(sent, seq))
                continue
            if plan == "written":  # an info line, and yet written
                write(sent, seq)
            app.outcome(sent, "fail" if plan == "fail" else "info")
            pending.append(seq)
        waiting.clear()

    incarnations = 1 + w.rnd.randrange(3)
    for n in range(incarnations):
        if n and w.rnd.random() < 0.2:
            app.stillborn()
        app.start()
        seqs = sorted(pending) + list(range(app.next_seq, app.next_seq + w.rnd.randrange(n == 0, 8)))
        pending.clear()
        for seq in seqs:
            sent = app.send(seq, topic, None, keyed=keyed)
            plans = ["fail", "lost"] if seq in landed else ["ok", "ok", "ok", "fail", "written", "lost"]
            waiting.append((sent, seq, w.rnd.choice(plans)))
            if w.rnd.random() < 0.7:
                deliver()
        if n < incarnations - 1 or w.rnd.random() < 0.3:  # killed with these in flight: no outcome line
            for sent, seq, plan in waiting:
                if plan in ("ok", "written"):
                    write(sent, seq)
                pending.append(seq)
            waiting.clear()
        deliver()
    return topic


def _transactional(w: _World) -> str:
    """A transactional producer: transactions committed, aborted on purpose, of unknown outcome, cut by a
    crash; restarts resend every record outside a committed transaction (asking the log about a commit
    left unanswered), as the harness's producer does."""
    app = _App(w, "producer", txid=f"tx-{w.sessions + 1}")
    topic = w.topic("txn")
    uncommitted = w.view == "read_uncommitted"
    pending: list[int] = []
    incarnations = 1 + w.rnd.randrange(3)
    for n in range(incarnations):
        last = n == incarnations - 1
        if n and w.rnd.random() < 0.2:
            app.stillborn()
        app.start()
        seqs = sorted(pending) + list(range(app.next_seq, app.next_seq + w.rnd.randrange(n == 0, 8)))
        pending = []
        while seqs:
            chunk, seqs = _split(w, seqs)
            ends = ["committed", "committed"] + ["aborted"] * (not uncommitted)
            if not seqs:  # the incarnation's last transaction may end it (a reader seeing uncommitted
                # data would see a resent record twice, so there only what is never resent)
                ends += ["crash", "unanswered"] + ["unknown"] * (last or not uncommitted)
            end = w.rnd.choice(ends)
            txn = app.begin()
            sent = [app.send(seq, topic, txn) for seq in chunk]
            if end == "crash":  # mid-transaction: some acknowledged, the rest in flight (never written,
                # where the consumer reads uncommitted: it would see the part that was)
                acked = 0 if uncommitted else w.rnd.randrange(len(sent) + 1)
                for i, s in enumerate(sent):
                    if i < acked or (not uncommitted and w.rnd.random() < 0.5):
                        at = w.land(topic, w.partition(topic), s.id, txn)
                        if i < acked:
                            app.outcome(s, "ok", at)
                app.end(txn, ends="aborted")  # by the broker, later
                pending += chunk
                break
            for s in sent:
                if end == "aborted" and w.rnd.random() < 0.3:  # a send error: the reason to abort
                    written = w.rnd.random() < 0.5
                    if written:
                        w.land(topic, w.partition(topic), s.id, txn)
                    app.outcome(s, w.rnd.choice(["info", "fail"]) if not written else "info")
                else:
                    app.outcome(s, "ok", w.land(topic, w.partition(topic), s.id, txn))
            if end == "committed":
                app.end(txn, "commit", "committed", ends="committed")
            elif end == "aborted":
                app.end(txn, "aborted", ends="aborted", detail="on purpose")
                pending += chunk
            elif end == "unanswered":  # commit asked, then a crash: the next incarnation asks the log
                ends_in_log = "committed" if uncommitted and not last else w.rnd.choice(["committed", "aborted"])
                app.end(txn, "commit", ends=ends_in_log)
                pending += chunk if ends_in_log == "aborted" else []
                break
            else:  # unknown: resent whatever happened, so it must not have committed unless nothing follows
                app.end(txn, "commit", "unknown", ends=w.rnd.choice(["committed", "aborted"]) if last else "aborted")
                pending += chunk
                break
    return topic


def _pipeline(w: _World, transactional: bool) -> None:
    """An input producer, then a consume-transform-produce app: one output per input the consumer sees,
    naming it as its source; transactional, a batch aborted (or cut by a crash) is done again."""
    in_topic = (_transactional if w.rnd.random() < 0.5 else _plain)(w)
    out_topic = w.topic("out", w.partitions[in_topic])
    w.eos_pairs.append((in_topic, out_topic))
    inputs = [
        (p, e.id)
        for p in range(w.partitions[in_topic])
        for e in w.log[(in_topic, p)]
        if e.id >= 0 and e.shown_to(w.view)
    ]
    app = _App(w, "transform", txid=f"tx-transform-{w.sessions + 1}" if transactional else "", output=True)
    redo = not transactional or w.view == "read_committed"  # an aborted batch's outputs: invisible only there
    app.start()
    while inputs:
        batch, inputs = _split(w, inputs)
        if w.rnd.random() < 0.2:  # restarted between batches
            app.start()
        while True:
            txn = app.begin() if transactional else None
            end = (
                w.rnd.choice(["committed", "committed", "aborted", "crash"]) if transactional and redo else "committed"
            )
            for p, source in batch:
                s = app.send(app.next_seq, out_topic, txn, source=source)
                at = w.land(out_topic, p, s.id, txn)
                app.outcome(s, "ok" if transactional or w.rnd.random() < 0.8 else "info", at)
            if txn is None:
                break
            if end == "committed":
                app.end(txn, "commit", "committed", ends="committed")
                break
            if end == "aborted":
                app.end(txn, "aborted", ends="aborted", detail="abortable")
            else:
                app.end(txn, ends="aborted")  # the broker aborts what the crash left open
                app.start()


def _zombie(w: _World) -> None:
    """Two sessions of one transactional.id: the older one's open transaction is fenced and aborted
    when the newer one finishes init_transactions, and it learns so without asking to commit."""
    topic = w.topic("zombie")
    old = _App(w, "producer", txid=f"tx-zombie-{w.sessions + 1}")
    old.start()
    for _ in range(w.rnd.randrange(3)):
        txn = old.begin()
        for _ in range(1 + w.rnd.randrange(2)):
            s = old.send(old.next_seq, topic, txn)
            old.outcome(s, "ok", w.land(topic, w.partition(topic), s.id, txn))
        old.end(txn, "commit", "committed", ends="committed")
    txn = old.begin()
    cut = [old.send(old.next_seq, topic, txn) for _ in range(1 + w.rnd.randrange(2))]
    new = _App(w, "producer", txid=old.txid)
    for s in cut:
        if w.view == "read_uncommitted" or w.rnd.random() < 0.5:  # uncommitted readers see all of it or none
            at = w.land(topic, w.partition(topic), s.id, txn)
            if w.rnd.random() < 0.5:
                old.outcome(s, "ok", at)
    new.start()
    old.line("fenced", session=old.session, detail="PRODUCER_FENCED")
    w.end(txn, "aborted")
    for _ in range(1 + w.rnd.randrange(2)):
        txn = new.begin()
        s = new.send(new.next_seq, topic, txn)
        new.outcome(s, "ok", w.land(topic, w.partition(topic), s.id, txn))
        new.end(txn, "commit", "committed", ends="committed")


_BUILDERS: dict[str, Callable[[_World], object]] = {
    "plain": _plain,
    "idempotent": lambda w: _plain(w, keyed=True),
    "transactional": _transactional,
    "pipeline": lambda w: _pipeline(w, transactional=False),
    "transactional pipeline": lambda w: _pipeline(w, transactional=True),
    "zombie": _zombie,
}


# --- injections: each returns the counts the checker must report for what it did ------------


def _partly_read(w: _World, k: int) -> dict[str, int]:
    """Leave ``k`` partitions with records unread (not of an output topic: its inputs would miss their
    outputs). Transactions across read and unread partitions are counted at the end (``_partly``)."""
    outputs = {out for _, out in w.eos_pairs}
    for tp in w.pick(sorted(tp for tp in w.read if w.log[tp] and tp[0] not in outputs), k):
        w.read.discard(tp)
    return {}


def _lost(w: _World, k: int) -> dict[str, int]:
    """Acknowledged records outside transactions, no longer read by either reader."""
    seen = w.visible()
    candidates = [
        s.id
        for s in w.sends.values()
        if s.ok and not any(s.attempts) and seen[s.id] and not s.app.output and w.untouched(s.id)
    ]
    gone = w.pick(candidates, k)
    for record_id in gone:
        w.hide(record_id)
        w.touched.add(record_id)
    return {"lost": len(gone)}


def _torn(w: _World, k: int) -> dict[str, int]:
    """Committed transactions the ledger says ended unknown, one record of each no longer read: torn,
    and nothing lost (an unknown outcome need not be seen)."""
    seen = w.visible()
    candidates = []
    for t in w.txns():
        members = w.members(t)
        shown = [s for s in members if seen[s.id] and w.to_read(s)]
        if t.said == "committed" and not t.app.output and len(shown) >= 2 and w.untouched(*(s.id for s in members)):
            candidates.append((t, shown))
    chosen = w.pick(candidates, k)
    for t, shown in chosen:
        t.end_line["event"], t.said = "txn-unknown", "unknown"  # type: ignore[index]
        w.hide(w.rnd.choice(shown).id)
        w.touched.update(s.id for s in w.members(t))
    return {"torn_transaction": len(chosen)}


def _outputs_by_input(w: _World) -> dict[int, list[_Send]]:
    seen = w.visible()
    outputs: dict[int, list[_Send]] = {}
    for s in w.sends.values():
        if s.app.output and seen[s.id] and s.source is not None:
            outputs.setdefault(s.source, []).append(s)
    return {i: outs for i, outs in outputs.items() if seen[i] and w.untouched(i, *(o.id for o in outs))}


def _eos_missing(w: _World, k: int) -> dict[str, int]:
    """Outputs gone from the ledgers and the log's read-back: their inputs have none."""
    singles = [outs[0] for outs in _outputs_by_input(w).values() if len(outs) == 1]
    chosen = w.pick(singles, k)
    for out in chosen:
        lines = {id(line) for line in out.lines}
        for ledger in w.ledgers:
            ledger.lines = [line for line in ledger.lines if id(line) not in lines]
        w.hide(out.id)
        del w.sends[out.id]
        w.touched.update((out.id, out.source))  # type: ignore[arg-type]
    return {"eos_missing": len(chosen)}


def _eos_repeated(w: _World, k: int) -> dict[str, int]:
    """A second output for an input: a new id of the transform's session, stored and acknowledged."""
    singles = [outs[0] for outs in _outputs_by_input(w).values() if len(outs) == 1]
    chosen = w.pick(singles, k)
    for out in chosen:
        app = out.app
        partition = w.copies(out.id)[0][1]
        again = app.send(app.next_seq, out.topic, None, source=out.source)
        app.outcome(again, "ok", w.land(out.topic, partition, again.id, None))
        w.touched.update((out.id, out.source, again.id))  # type: ignore[arg-type]
    return {"eos_repeated": len(chosen)}


def _aborted_read(w: _World, k: int) -> dict[str, int]:
    """Read although failed: an acknowledged send's ``ok`` line made a ``fail``, or a committed
    transaction's end line made ``txn-aborted`` (its members count when every attempt's aborted)."""
    seen = w.visible()
    count = 0
    for _ in range(k):
        sends = [s for s in w.sends.values() if s.ok and s.attempts == [None] and seen[s.id] and w.untouched(s.id)]
        txns = [
            t for t in w.txns() if t.said == "committed" and w.untouched(*(s.id for s in w.members(t))) and w.members(t)
        ]
        if txns and (not sends or w.rnd.random() < 0.5):
            t = w.rnd.choice(txns)
            t.end_line["event"], t.said = "txn-aborted", "aborted"  # type: ignore[index]
            members = w.members(t)
            count += sum(
                1 for s in members if seen[s.id] and all(a is not None and a.said == "aborted" for a in s.attempts)
            )
            w.touched.update(s.id for s in members)
        elif sends:
            s = w.rnd.choice(sends)
            s.ok.update(event="fail", partition=None, offset=None, detail="ERR")  # type: ignore[union-attr]
            count += 1
            w.touched.add(s.id)
    return {"aborted_read": count}


def _order(w: _World, k: int) -> dict[str, int]:
    """Two neighbours of one session in one partition swapped, with their acknowledgements: one late
    record per (session, partition). Only ids sent once are in order's scope."""
    seen = w.visible()
    groups: dict[tuple[int, str, int], list[tuple[int, int]]] = {}
    for topic, p, offset, record_id in sorted(w.rows(w.view)):  # every row order judges, touched or not
        s = w.sends.get(record_id)
        if s is not None and len(s.attempts) == 1 and seen[record_id] == 1:
            groups.setdefault((s.app.session, topic, p), []).append((offset, record_id))
    pairs = {g: [(x, y) for x, y in itertools.pairwise(rows) if w.untouched(x[1], y[1])] for g, rows in groups.items()}
    chosen = w.pick([g for g in sorted(pairs) if pairs[g]], k)
    for group in chosen:
        (oa, a), (ob, b) = w.rnd.choice(pairs[group])
        entries = w.log[(w.sends[a].topic, w.copies(a)[0][1])]
        entries[oa].id, entries[ob].id = b, a
        for record_id, offset in ((a, ob), (b, oa)):
            ok = w.sends[record_id].ok
            if ok is not None:
                ok["offset"] = offset
        w.touched.update((a, b))
    return {"order": len(chosen)}


def _duplicate(w: _World, k: int) -> dict[str, int]:
    """A second copy of a record the consumer sees, at the end of its partition, in its transaction."""
    seen = w.visible()
    candidates = sorted(i for i, n in seen.items() if n == 1 and i in w.sends and w.untouched(i))
    chosen = w.pick(candidates, k)
    for record_id in chosen:
        topic, p, offset = next(c for c in w.copies(record_id) if w.log[c[:2]][c[2]].shown_to(w.view))
        w.land(topic, p, record_id, w.log[(topic, p)][offset].txn)
        w.touched.add(record_id)
    return {"duplicate": len(chosen)}


def _inconsistent(w: _World, k: int) -> dict[str, int]:
    """Read-back faults: the readers disagreeing about an offset (the one that is not the consumer's
    view holds an undecodable record there), an ack naming another offset, an offset read twice."""
    kinds = [w.rnd.choice(["disagree", "elsewhere", "again"]) for _ in range(k)]
    seen = w.visible()
    count = 0
    other = "read_uncommitted" if w.view == "read_committed" else "read_committed"
    both = [r for r in w.rows("read_committed") if r[3] >= 0 and r in set(w.rows("read_uncommitted"))]
    both = [r for r in both if w.untouched(r[3]) and r[3] in w.sends]
    for topic, p, offset, record_id in w.pick(both, kinds.count("disagree")):
        w.replaced[other][(topic, p, offset)] = UNDECODABLE_ID
        ok = w.sends[record_id].ok
        acked_here = ok is not None and (ok["partition"], ok["offset"]) == (p, offset)
        count += 1 + (other == "read_uncommitted" and acked_here)
        w.touched.add(record_id)
    held = {(t, p): sorted(r[2] for r in w.rows("read_uncommitted") if r[:2] == (t, p)) for t, p in w.read}
    acked = [
        s
        for s in w.sends.values()
        if s.ok
        and len(s.attempts) == 1
        and seen[s.id]
        and w.untouched(s.id)
        and len(held.get((s.topic, s.ok["partition"]), [])) > 1  # type: ignore[arg-type]
    ]
    for s in w.pick(acked, kinds.count("elsewhere")):
        ok = s.ok
        ok["offset"] = w.rnd.choice([o for o in held[(s.topic, ok["partition"])] if o != ok["offset"]])  # type: ignore[index]
        count += 1
        w.touched.add(s.id)
    repeats = [(isolation, r) for isolation in ISOLATIONS for r in sorted(set(w.rows(isolation)))]
    for isolation, r in w.pick(repeats, kinds.count("again")):
        if r[:3] not in {a[:3] for a in w.again[isolation]}:
            w.again[isolation].append(r)
            count += 1
    return {"inconsistent_offset": count}


def _zombie_write(w: _World, k: int) -> dict[str, int]:
    """A newer session of a transactional app's id, ready just as one of its committed transactions
    asked to commit: that one and every later one of the app are zombie writes where seen."""
    seen = w.visible()
    txids = Counter(a.txid for a in w.apps)
    apps = [a for a in w.apps if a.txid and txids[a.txid] == 1]
    apps = [a for a in apps if any(t.said == "committed" and t.incarnation == len(a.files) for t in a.txns)]
    count = 0
    for a in w.pick(apps, k):
        fence = w.rnd.choice([t for t in a.txns if t.said == "committed" and t.incarnation == len(a.files)]).commit_us
        newer = _App(w, "zombie-of", txid=a.txid)
        newer.start(announce=False)
        newer.line("session", time_us=fence, session=newer.session, detail=a.txid)
        count += sum(1 for s in w.sends.values() if s.txn in a.txns and s.txn.acted_us >= fence and seen[s.id])  # type: ignore[union-attr]
    return {"zombie_write": count}


def _phantom(w: _World, k: int) -> dict[str, int]:
    """Records nobody sent, each once: an id no ledger invoked, or a value with no harness id; in a
    partition that was read, or in a topic no ledger names."""
    for u in range(k):
        if not w.read or w.rnd.random() < 0.2:
            w.partitions.setdefault("stray", 1)
            w.log.setdefault(("stray", 0), [])
            w.read.add(("stray", 0))
        topic, p = w.rnd.choice(sorted(w.read))
        head = w.rnd.choice(NO_ID_HEADS) if w.rnd.random() < 0.5 else b"%d" % make_id(10_000 + u, u)
        w.land(topic, p, decode_id(head + b"|x"), None)
    return {"phantom": k}


def _misplaced(w: _World, k: int) -> dict[str, int]:
    """Records sent outside transactions whose fate was unknown (no ``ok`` or ``fail`` line) and that
    were not written, now written to a partition of another topic that is read: misplaced, and
    nothing else (they may be read; an exactly-once pair's records are left alone)."""
    seen = w.visible()
    paired = {t for pair in w.eos_pairs for t in pair}
    candidates = [
        s
        for s in w.sends.values()
        if s.attempts == [None]
        and not seen[s.id]
        and not w.copies(s.id)
        and not any(line["event"] in ("ok", "fail") for line in s.lines)
        and s.topic not in paired
        and w.untouched(s.id)
    ]
    chosen = sorted(w.pick(candidates, k), key=lambda s: s.id)  # in send order: none is stored late
    for s in chosen:
        elsewhere = sorted(tp for tp in w.read if tp[0] != s.topic)
        if elsewhere:
            w.land(*w.rnd.choice(elsewhere), s.id, None)
        w.touched.add(s.id)
    return {"misplaced": sum(1 for s in chosen if w.copies(s.id))}


# The order injections are made in: each leaves the ids it used alone for the ones after it.
INJECTIONS: dict[str, Callable[[_World, int], dict[str, int]]] = {
    "partly_read": _partly_read,
    "lost": _lost,
    "torn_transaction": _torn,
    "eos_missing": _eos_missing,
    "eos_repeated": _eos_repeated,
    "aborted_read": _aborted_read,
    "order": _order,
    "duplicate": _duplicate,
    "inconsistent_offset": _inconsistent,
    "zombie_write": _zombie_write,
    "misplaced": _misplaced,
    "phantom": _phantom,
}


def _partly(w: _World) -> int:
    """Committed transactions with records sent to partitions read and to partitions not read."""
    count = 0
    for t in w.txns():
        reads = [w.to_read(s) for s in w.members(t)]
        count += t.said == "committed" and any(reads) and not all(reads)
    return count


def _garbage(w: _World, n: int) -> int:
    """``n`` lines the checker must ignore, in ledgers that have a header; how many it must report."""
    ledgers = [ledger for ledger in w.ledgers if ledger.header]
    reported = 0

    def torn(ledger: Ledger) -> bool:  # ends with a line cut short: nothing can follow it
        return bool(ledger.lines) and ledger.lines[-1] == TORN_TAIL

    for _ in range(n if ledgers else 0):
        ledger = w.rnd.choice(ledgers)
        at = w.rnd.randrange(len(ledger.lines) + 1 - torn(ledger))
        kind = w.rnd.randrange(len(GARBAGE) + 3)
        if kind == len(GARBAGE):  # an empty line: skipped, not reported
            ledger.lines.insert(at, b"\n")
        elif kind == len(GARBAGE) + 1:  # a file that is no ledger: all of it ignored, one line reported
            junk = [b"not,a,ledger\n", b"ok,1,,1,,,0,0,,,,.\n"]
            w.ledgers.append(Ledger(f"junk-{len(w.ledgers)}", junk, header=False))  # type: ignore[arg-type]
            reported += 1
        elif kind == len(GARBAGE) + 2:  # killed while writing its last line
            if not torn(ledger):
                ledger.lines.append(TORN_TAIL)
                reported += 1
        else:
            ledger.lines.insert(at, GARBAGE[kind])
            reported += 1
    return reported


def _ordered(w: _World, rows: list[ReadRow], how: str) -> list[ReadRow]:
    """A read-back's rows as a reader would write them: by position; as consumed (partitions
    interleaved, each in offset order, the marker rows last); or in no order at all."""
    if how == "sorted":
        return sorted(rows)
    if how == "shuffled":
        w.rnd.shuffle(rows)
        return rows
    by_partition: dict[tuple[str, int], list[ReadRow]] = {}
    for r in sorted(rows):
        if r[3] != MARKER_ID:
            by_partition.setdefault(r[:2], []).append(r)
    consumed = []
    while by_partition:
        tp = w.rnd.choice(sorted(by_partition))
        take = 1 + w.rnd.randrange(3)
        consumed += by_partition[tp][:take]
        by_partition[tp] = by_partition[tp][take:]
        if not by_partition[tp]:
            del by_partition[tp]
    return consumed + sorted(r for r in rows if r[3] == MARKER_ID)


def build(spec: Spec) -> Case:
    w = _World(spec)
    for kind in spec.kinds:
        _BUILDERS[kind](w)
    w.read = {tp for tp, entries in w.log.items() if spec.reading == "all" or not entries}
    expect = dict.fromkeys(ANOMALIES, 0)
    wanted = dict(spec.inject)
    for name, inject in INJECTIONS.items():
        if wanted.get(name):
            for anomaly, n in inject(w, wanted[name]).items():
                expect[anomaly] += n
    expect["partly_read"] = _partly(w)
    problems = _garbage(w, spec.garbage)
    read: dict[str, list[int]] = {}
    for t, p in sorted(w.read):
        read.setdefault(t, []).append(p)
    return Case(
        ledgers=w.ledgers,
        rows={isolation: _ordered(w, w.rows(isolation), spec.row_order) for isolation in ISOLATIONS},
        read=read,
        topic_partitions={t: w.partitions[t] for t in read},
        view=spec.view,
        eos_pairs=tuple(w.eos_pairs),
        expect=expect,
        problems=problems,
        piece_bytes=spec.piece_bytes,
    )


def every_anomaly() -> Spec:
    """A history that shows every anomaly of the catalogue at least once: every injection, two of each,
    into five apps of every kind, with the first seed whose injections all found candidates."""
    kinds = ("plain", "plain", "transactional", "transactional pipeline", "zombie")
    for seed in range(100):
        spec = Spec(kinds, inject=tuple((name, 2) for name in INJECTIONS), seed=seed)
        if all(build(spec).expect.values()):
            return spec
    raise AssertionError("no seed below 100 shows every anomaly: an injection finds no candidates in these apps")


def specs(injected: int = 3, max_apps: int = 3) -> st.SearchStrategy[Spec]:
    """Histories of one to ``max_apps`` apps of any kind, with one to ``injected`` kinds of anomaly
    injected, up to three of each (none: clean histories)."""
    injections = st.lists(
        st.tuples(st.sampled_from(tuple(INJECTIONS)), st.integers(1, 3)),
        min_size=min(1, injected),
        max_size=injected,
        unique_by=lambda i: i[0],
    )
    kinds = st.lists(st.sampled_from(KINDS), min_size=1, max_size=max_apps)
    return st.builds(
        Spec,
        kinds=kinds.map(tuple),
        view=st.sampled_from(ISOLATIONS),
        inject=injections.map(tuple),
        seed=st.integers(0, 2**32 - 1),
        reading=st.sampled_from(("all", "all", "all", "all", "all", "empty")),
        row_order=st.sampled_from(ROW_ORDERS),
        garbage=st.integers(0, 4),
        piece_bytes=st.sampled_from((0, 0, 80, 300)),
    )
