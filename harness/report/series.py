"""The numbers a side's plots are drawn from, in seconds since the side started.

- **rates**: per app, acknowledgements (``ok`` lines) and errors (``fail`` and ``info``
  lines) per whole second;
- **unavailability**: stretches of ``MIN_GAP_S`` or more in which an app had sends
  outstanding and got no acknowledgement (it was sending, nothing came back);
- **incarnations**: each app process's life, with how it ended;
- **faults**: each injected fault's interval, labelled with its kind, what it hit
  (brokers or app), listener and direction; a protocol fault's **hits**, each request it
  acted on from its time to when it (or its answer) went on, or its connection was closed;
- **marks**: each anomalous record's send time (its first ``invoke``) and, where it was
  acknowledged, its store time (its ``ok``);
- **stalls** (the LSO probe's ``read_committed`` stalls) and Spark **micro-batches**;
- **partitions**: offsets over time from the acknowledgements, with the read-back's
  transaction markers and the duplicates' copies placed at the time of the nearest
  acknowledged offset at or below them (a stored record that was never acknowledged has
  no time of its own).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from harness.faults import kinds
from harness.history.ledger import EVENTS
from harness.history.records import MARKER_ID
from harness.report.run_folder import Ledgers, SideFolder

MIN_GAP_S = 1.0
_OK, _INVOKE = EVENTS.index("ok"), EVENTS.index("invoke")
_ERRORS = (EVENTS.index("fail"), EVENTS.index("info"))
MAX_DUPLICATE_PAIRS = 200  # copies drawn per side in the partition view; more would hide the acks


@dataclass(frozen=True)
class Span:
    """Something that lasted (or happened at an instant: ``end == start``) on the time axis."""

    start: float
    end: float
    label: str
    detail: str = ""

    @property
    def seconds(self) -> float:
        return self.end - self.start


@dataclass
class Rate:
    seconds: np.ndarray  # start of each whole second
    acks: np.ndarray
    errors: np.ndarray


@dataclass
class Life:
    app: str
    incarnation: int
    start: float
    end: float | None  # None: still running when the side was checked
    exit: int | None  # exit status, -n for signal n, None unknown
    approximate: bool = False  # from file times, not the app's report


@dataclass
class Marks:
    ids: np.ndarray
    sent: np.ndarray  # float64, NaN where no invoke was found
    stored: np.ndarray  # float64, NaN where never acknowledged


@dataclass
class PartitionSeries:
    topic: str
    partition: int
    ack_time: np.ndarray
    ack_offset: np.ndarray
    marker_time: np.ndarray
    marker_offset: np.ndarray


@dataclass
class Copies:
    """Duplicates' copies: per record, its offsets in one partition and their placed times."""

    topic: str
    partition: int
    id: int
    offsets: list[int]
    times: list[float]


@dataclass
class Timeline:
    t0: float  # wall clock of second 0
    end: float
    rates: dict[str, Rate] = field(default_factory=dict)
    unavailable: dict[str, list[Span]] = field(default_factory=dict)
    lives: list[Life] = field(default_factory=list)
    faults: list[Span] = field(default_factory=list)
    hits: list[Span] = field(default_factory=list)  # requests a protocol fault acted on, labelled by their fault
    marks: dict[str, Marks] = field(default_factory=dict)
    stalls: list[Span] = field(default_factory=list)
    batches: list[Span] = field(default_factory=list)
    partitions: list[PartitionSeries] = field(default_factory=list)
    copies: list[Copies] = field(default_factory=list)
    transactional: bool = False
    notes: list[str] = field(default_factory=list)  # what could not be drawn, and why


# --- building blocks ---------------------------------------------------------------------


def per_second(times: np.ndarray, end: float) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``times`` (seconds since the start) in each whole second from 0 to ``end``."""
    edges = np.arange(0, max(1, int(np.ceil(end))) + 1, dtype=np.float64)
    counts, _ = np.histogram(times, edges)
    return edges[:-1], counts


def rate(ledgers: Ledgers, app: int, t0: float, end: float) -> Rate:
    t = ledgers.time_s - t0
    mine = ledgers.app == app
    seconds, acks = per_second(t[mine & (ledgers.event == _OK)], end)
    _, errors = per_second(t[mine & np.isin(ledgers.event, _ERRORS)], end)
    return Rate(seconds, acks, errors)


def unavailable(times: np.ndarray, kinds: np.ndarray, end: float, min_s: float = MIN_GAP_S) -> list[Span]:
    """Stretches of ``min_s`` or more without an acknowledgement while sends were outstanding.

    ``times`` ascending; ``kinds`` +1 a send, 0 its acknowledgement, -1 its failure or unknown
    outcome. A wait starts at the send that finds nothing outstanding, or at the last
    acknowledgement while more is outstanding; it ends at the next acknowledgement, when the
    last outstanding send fails, or at ``end`` (the process ended with sends in flight).
    """
    spans = []
    pending, since = 0, None

    def close(at: float, why: str) -> None:
        if since is not None and at - since >= min_s:
            spans.append(Span(since, at, f"no ack for {at - since:.1f}s", why))

    for t, kind in zip(times.tolist(), kinds.tolist(), strict=True):
        if kind > 0:
            if pending == 0:
                since = t
            pending += 1
            continue
        pending = max(0, pending - 1)
        if kind == 0:
            close(t, "ended by an acknowledgement")
            since = t if pending else None
        elif pending == 0:
            close(t, "ended when the last outstanding send failed")
            since = None
    if pending:
        close(end, "still waiting when the process ended")
    return spans


def app_unavailable(ledgers: Ledgers, app: int, t0: float, ends: dict[int, float]) -> list[Span]:
    """``unavailable`` per incarnation of an app: sends in flight die with their process."""
    spans = []
    for n in np.unique(ledgers.incarnation[ledgers.app == app]).tolist():
        rows = np.flatnonzero((ledgers.app == app) & (ledgers.incarnation == n))
        ev = ledgers.event[rows]
        kinds = np.select([ev == _INVOKE, ev == _OK, np.isin(ev, _ERRORS)], [1, 0, -1], 2)
        keep = kinds < 2
        times = ledgers.time_s[rows][keep] - t0
        last = times[-1] if len(times) else 0.0
        spans += unavailable(times, kinds[keep], ends.get(n, last))
    return spans


def marks(ledgers: Ledgers, ids: np.ndarray, t0: float) -> Marks:
    """Send time (first ``invoke``) and store time (first ``ok``) of each id."""
    return Marks(ids, _first_time(ledgers, "invoke", ids, t0), _first_time(ledgers, "ok", ids, t0))


def _first_time(ledgers: Ledgers, event: str, ids: np.ndarray, t0: float) -> np.ndarray:
    rows = ledgers.rows(event)  # in time order, so the first of an id is its earliest
    known, first = np.unique(ledgers.id[rows], return_index=True)
    at = np.minimum(np.searchsorted(known, ids), max(len(known) - 1, 0))
    times = np.full(len(ids), np.nan)
    if len(known):
        found = known[at] == ids
        times[found] = ledgers.time_s[rows[first[at[found]]]] - t0
    return times


def fault_spans(records: list[dict[str, Any]], t0: float, end: float) -> list[Span]:
    """Each fault from its injection to its healing (the side's end if never healed);
    operations (a leader election, an app launch) are instants."""
    spans = []
    for r in records:
        start = r["injected_at"] - t0
        healed = r.get("healed_at")
        instant = _kind_flag(r, "instant")
        stop = start if instant else (healed - t0 if healed is not None else end)
        spans.append(Span(start, stop, fault_label(r), "" if healed is not None or instant else "never healed"))
    return spans


def protocol_hits(records: list[dict[str, Any]], t0: float) -> list[Span]:
    """Each request a protocol fault acted on: from when its head passed to when it, or its
    answer, went on (a hold, a delay) or its connection was closed (a cut); in its fault's lane."""
    hits = []
    for r in records:
        for h in r.get("hits") or []:
            end = h.get("delivered_at") or h.get("closed_at") or h["at"]
            what = [f"{h['action']} {h['api']} v{h['version']} #{h['correlation_id']} from {h['client_id']}"]
            what.append(f"connection {h['connection']} to broker {h.get('broker', '?')}")
            if h.get("transactional_id"):
                what.append(f"transactional.id {h['transactional_id']}")
            if h.get("committed") is not None:
                what.append("commit" if h["committed"] else "abort")
            if h.get("broker_error_code") is not None:
                what.append(f"broker answered error code {h['broker_error_code']}")
            if h.get("client_closed"):
                what.append("the client had closed the connection when it went on")
            hits.append(Span(h["at"] - t0, end - t0, fault_label(r), "<br>".join(what)))
    return hits


def fault_label(r: dict[str, Any]) -> str:
    """``blackhole leader of t-0 → broker 3, client (from_broker)``: kind (a protocol fault's
    with its action and API), target resolved, and for a link fault its listeners and direction."""
    params = r.get("params") or {}
    kind = " ".join([r["fault"], *(str(params[k]) for k in ("action", "api") if k in params)])
    target = r["target"]
    brokers = r.get("brokers") or []
    if brokers:
        target += f" → broker{'s' if len(brokers) > 1 else ''} {', '.join(map(str, brokers))}"
    link = _kind_flag(r, "on_links")
    where = f", {'+'.join(r.get('listeners', []))} ({r.get('direction', 'both')})" if link else ""
    return f"{kind} {target}{where}"


def _kind_flag(record: dict[str, Any], flag: str) -> bool:
    """A fault record's ``instant`` or ``on_links``; records written before they were kept
    there ask the kind, and a kind since gone counts as neither."""
    if flag in record:
        return bool(record[flag])
    try:
        return bool(getattr(kinds.get(record["fault"]), flag))
    except ValueError:
        return False


def place(ack_offset: np.ndarray, ack_time: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """A time for each offset of one partition: that of the acknowledgement of the greatest
    acknowledged offset at or below it (NaN below the first)."""
    order = np.argsort(ack_offset, kind="stable")
    at = np.searchsorted(ack_offset[order], offsets, side="right") - 1
    times = np.full(len(offsets), np.nan)
    ok = at >= 0
    times[ok] = ack_time[order][at[ok]]
    return times


# --- one side ----------------------------------------------------------------------------


def timeline(side: SideFolder) -> Timeline:
    record, ledgers = side.record, side.ledgers
    t0 = record.started_at or _earliest(side)
    lives = _lives(side, t0)
    ends = [record.ended_at - t0] if record.ended_at else []
    ends += [float(ledgers.time_s.max() - t0)] if len(ledgers.time_s) else []
    ends += [life.end for life in lives if life.end is not None]
    end = max(ends, default=0.0)
    records = record.faults
    tl = Timeline(t0, end, lives=lives, faults=fault_spans(records, t0, end), hits=protocol_hits(records, t0))
    for i, app in enumerate(ledgers.apps):
        tl.rates[app] = rate(ledgers, i, t0, end)
        app_ends = {life.incarnation: life.end for life in lives if life.app == app and life.end is not None}
        tl.unavailable[app] = app_unavailable(ledgers, i, t0, app_ends)
    tl.marks = {a: marks(ledgers, ids, t0) for a, ids in side.anomalies.items()}
    tl.stalls = [
        Span(s["started_at"] - t0, s["started_at"] - t0 + s["seconds"], f"{s['partition']} at LSO {s['lso']}")
        for s in record.read_committed_stalls
    ]
    tl.batches = _batches(record.workload, t0, tl.notes)
    config = record.producer_config
    tl.transactional = "transactional.id" in config or config.get("mode") == "transactional"
    tl.partitions = _partitions(ledgers, side.reads.get("read_uncommitted"), t0)
    view = side.reads.get(record.consumer_view)
    if view is not None and "duplicate" in side.anomalies:
        tl.copies = _copies(view, side.anomalies["duplicate"], tl.partitions)
    if not len(ledgers.time_s):
        tl.notes.append("no ledger lines: no rates, unavailability or offsets to draw")
    return tl


def _earliest(side: SideFolder) -> float:
    """Second 0 of a side whose verdict did not record its start: its first trace."""
    known = [float(side.ledgers.time_s.min())] if len(side.ledgers.time_s) else []
    known += [f["injected_at"] for f in side.record.faults]
    known += [p.stat().st_mtime for p in side.folder.glob("*.spec.json")]
    return min(known, default=0.0)


def _lives(side: SideFolder, t0: float) -> list[Life]:
    """Incarnations, one per spec file, timed by the app's report; an app without one (a
    pipeline's input writer, a run cut short, a run from before these times were recorded)
    by its files: the spec is written as it starts, the output last written as it ends."""
    reports = {(r["app"], r["incarnation"]): r for r in side.record.workload}
    lives = []
    for spec in sorted(side.folder.glob("*.*.spec.json")):
        app, n = spec.name.removesuffix(".spec.json").rsplit(".", 1)
        if not n.isdigit():
            continue
        r = reports.get((app, int(n)), {})
        if "started_at" in r:
            end = r["ended_at"] - t0 if r.get("ended_at") else None
            lives.append(Life(app, int(n), r["started_at"] - t0, end, r.get("exit")))
        else:
            out = spec.with_name(f"{app}.{n}.out")
            end = out.stat().st_mtime - t0 if out.exists() else None
            lives.append(Life(app, int(n), spec.stat().st_mtime - t0, end, r.get("exit"), approximate=True))
    return sorted(lives, key=lambda life: (life.app, life.incarnation))


def _batches(workload: list[dict[str, Any]], t0: float, notes: list[str]) -> list[Span]:
    spans = []
    for r in workload:
        for batch in r.get("micro_batches", []):
            if len(batch) < 4:
                notes.append(f"{r['app']}#{r['incarnation']}: micro-batch start times were not recorded")
                break
            batch_id, rows, ms, started = batch[:4]
            label = f"batch {batch_id}: {rows} rows in {ms} ms ({r['app']}#{r['incarnation']})"
            spans.append(Span(started - t0, started - t0 + ms / 1000, label))
    return spans


def _partitions(ledgers: Ledgers, uncommitted: pa.Table | None, t0: float) -> list[PartitionSeries]:
    ok = ledgers.rows("ok")
    ok = ok[ledgers.topic[ok] >= 0]
    found = []
    keys = np.unique(np.stack([ledgers.topic[ok].astype(np.int64), ledgers.partition[ok]], axis=1), axis=0)
    markers = _markers(uncommitted)
    for code, partition in keys.tolist():
        rows = ok[(ledgers.topic[ok] == code) & (ledgers.partition[ok] == partition)]
        topic = ledgers.topics[code]
        ack_time, ack_offset = ledgers.time_s[rows] - t0, ledgers.offset[rows]
        at = markers.get((topic, partition), np.empty(0, np.int64))
        found.append(PartitionSeries(topic, partition, ack_time, ack_offset, place(ack_offset, ack_time, at), at))
    return found


def _markers(uncommitted: pa.Table | None) -> dict[tuple[str, int], np.ndarray]:
    """Offsets of the read_uncommitted read-back's marker rows, per partition."""
    if uncommitted is None:
        return {}
    rows = uncommitted.filter(pc.equal(uncommitted["id"], MARKER_ID))
    topic = np.array(rows["topic"].to_pylist(), object)
    partition = rows["partition"].to_numpy()
    offset = rows["offset"].to_numpy()
    return {
        (t, int(p)): offset[(topic == t) & (partition == p)]
        for t, p in {(t, int(p)) for t, p in zip(topic, partition, strict=True)}
    }


def _copies(view: pa.Table, duplicates: np.ndarray, partitions: list[PartitionSeries]) -> list[Copies]:
    """Where each duplicate (the first ``MAX_DUPLICATE_PAIRS``) is stored, with placed times."""
    ids = view["id"].to_numpy()
    rows = np.flatnonzero(np.isin(ids, duplicates[:MAX_DUPLICATE_PAIRS]))
    topic = np.array(view["topic"].take(pa.array(rows)).to_pylist(), object)
    partition = view["partition"].to_numpy()[rows]
    offset = view["offset"].to_numpy()[rows]
    series = {(p.topic, p.partition): p for p in partitions}
    copies = []
    for record in np.unique(ids[rows]).tolist():
        mine = ids[rows] == record
        for t, p in sorted({(t, int(p)) for t, p in zip(topic[mine], partition[mine], strict=True)}):
            at = offset[mine & (topic == t) & (partition == p)]
            s = series.get((t, p))
            times = place(s.ack_offset, s.ack_time, at) if s else np.full(len(at), np.nan)
            copies.append(Copies(t, p, record, at.tolist(), times.tolist()))
    return copies
