"""What a pair's run folder holds, read for the report: verdicts, ledger lines, read-backs,
anomalous records, the files to link, and what is missing.

Everything is optional: a run that failed or was interrupted leaves some of it (ledgers
cut short, no read-back, no ``verdict.json``), and the report shows what exists and says
what does not. Ledger lines that fail the format (``harness.history.ledger``) are skipped and
counted, never trusted, as the checker does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from harness.history import ledger
from harness.history.format import ISOLATIONS, view_path
from harness.history.ledger import EVENTS
from harness.verdict.document import PairVerdict, VariantVerdict, side_outcome
from harness.verdict.outcome import Outcome
from harness.verdict.record import SideRecord

SIDES = ("control", "guarantee")
# The one side of a user's app checked alone (kafka-harness check-app, the pytest plugin):
# a folder with this side and no pair verdict.
APP_SIDE = "app"
# Beside it, when check-app ran one: the harness's at-least-once reference app under the same
# schedule (harness.userapps.reference), the control a user's app lacks.
REFERENCE_SIDE = "reference"
INCOMPLETE = "incomplete"  # what a folder without a verdict comes to: what the run left, no outcome
ANOMALIES_FILE = "anomalies.parquet"  # <side>/anomalies.parquet: columns anomaly (string), id (int64)
FOLDER_NAME = re.compile(r"(?P<stamp>\d{8}-\d{6})-(?P<scenario>.+)-(?P<id>[0-9a-f]{4})")
# Example fields that name a record: the checker's ``id``, an exactly-once or sink finding's
# ``input``, an offset's ``acknowledged`` record, a torn transaction's ``missing`` ones.
_EXAMPLE_IDS = ("id", "input", "acknowledged")


@dataclass
class Ledgers:
    """Every well-formed ledger line of a side, as columns in time order."""

    apps: list[str]  # app index -> name (the ledger file's stem without the incarnation)
    app: np.ndarray  # int16 app index
    incarnation: np.ndarray  # int32, from 1
    event: np.ndarray  # int8 index into harness.history.ledger.EVENTS
    time_s: np.ndarray  # float64 wall-clock seconds
    id: np.ndarray  # int64, -1 where the line has none (also session, partition, offset, txn)
    session: np.ndarray
    partition: np.ndarray
    offset: np.ndarray
    txn: np.ndarray
    topics: list[str]  # topic code -> name
    topic: np.ndarray  # int16 topic code of the record (ok lines: their invoke's), -1 unknown
    detail: np.ndarray  # object: error name, transactional.id, ...
    ignored: dict[str, int] = field(default_factory=dict)  # file name -> lines skipped

    def rows(self, event: str, app: int | None = None) -> np.ndarray:
        mask = self.event == EVENTS.index(event)
        return np.flatnonzero(mask if app is None else mask & (self.app == app))


@dataclass
class SideFolder:
    name: str
    folder: Path
    verdict: VariantVerdict | None
    ledgers: Ledgers
    reads: dict[str, pa.Table]  # isolation -> (topic, partition, offset, id)
    anomalies: dict[str, np.ndarray]  # anomaly -> record ids
    anomalies_from: str  # where the ids came from, for the page
    missing: list[str]
    files: list[Path]  # relative to the pair's folder

    @property
    def record(self) -> SideRecord:
        """What the side recorded; nothing for a side without a verdict."""
        return self.verdict.record if self.verdict else SideRecord()


@dataclass
class Pair:
    folder: Path
    scenario: str
    stamp: str  # YYYYmmdd-HHMMSS from the folder's name, "" if it has another name
    verdict: PairVerdict | None
    sides: list[SideFolder]
    missing: list[str]
    files: list[Path]  # the pair's own files (its verdict.json)

    @property
    def alone(self) -> bool:
        """A user's app checked alone, not a pair."""
        return bool(self.sides) and self.sides[0].name == APP_SIDE

    @property
    def outcome(self) -> Outcome | str:
        """The pair's (or a user's app's) ``Outcome``, or ``INCOMPLETE``."""
        if self.verdict:
            return self.verdict.outcome
        side = self.sides[0].verdict if self.alone else None
        return side_outcome(side) if side else INCOMPLETE


def folder_of(pair: PairVerdict) -> Path:
    """The run folder a pair's verdict came from (its sides' folders are in it)."""
    return Path(pair.control.record.run_dir).parent


def read_pair(folder: Path) -> Pair:
    name = FOLDER_NAME.fullmatch(folder.name)
    pair_doc = _json(folder / "verdict.json")
    alone = (folder / APP_SIDE).is_dir()
    named = (APP_SIDE, *([REFERENCE_SIDE] if (folder / REFERENCE_SIDE).is_dir() else [])) if alone else SIDES
    sides = [read_side(folder, s) for s in named]
    scenario = (
        pair_doc["scenario"]
        if pair_doc
        else next((s.verdict.scenario for s in sides if s.verdict), name["scenario"] if name else folder.name)
    )
    missing = [] if pair_doc or alone else ["verdict.json of the pair (the run did not finish)"]
    verdict = PairVerdict.from_json(pair_doc) if pair_doc else None
    files = [Path("verdict.json")] if pair_doc else []
    return Pair(folder, scenario, name["stamp"] if name else "", verdict, sides, missing, files)


def read_side(pair_folder: Path, name: str) -> SideFolder:
    folder = pair_folder / name
    doc = _json(folder / "verdict.json")
    verdict = VariantVerdict.from_json(doc) if doc else None
    ledger_files = ledger.in_order(list((folder / "ledgers").glob("*.csv")))
    ledgers = read_ledgers(ledger_files)
    reads = {}
    for isolation in ISOLATIONS:
        path = view_path(folder / "reads", isolation)
        if path.exists():
            reads[isolation] = pq.read_table(path, columns=["topic", "partition", "offset", "id"])
    anomalies, source = _anomalies(folder, verdict, ledgers)
    missing = []
    if not folder.is_dir():
        missing.append(f"the {name} side's folder (it never started)")
    else:
        if not ledger_files:
            missing.append("ledgers (no app wrote any)")
        missing += [f"reads/{i}.parquet (no read-back)" for i in ISOLATIONS if i not in reads]
        if verdict is None:
            missing.append("verdict.json (not checked)")
    files = sorted(p.relative_to(pair_folder) for p in _files(folder))
    return SideFolder(name, folder, verdict, ledgers, reads, anomalies, source, missing, files)


def _json(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):  # absent, or cut short by an interrupted run
        return None
    return doc if isinstance(doc, dict) else None


def _files(folder: Path) -> list[Path]:
    """Files worth a link: everything but the insides of Spark's checkpoints (linked as folders)."""
    if not folder.is_dir():
        return []
    found = []
    for p in folder.rglob("*"):
        inside = p.relative_to(folder).parts
        if inside[0].startswith("checkpoint"):
            if len(inside) == 1:
                found.append(p)
        elif p.is_file():
            found.append(p)
    return found


# --- ledgers -----------------------------------------------------------------------------
_READ = ("event", "time_us", "session", "id", "topic", "partition", "offset", "txn", "detail")


def read_ledgers(paths: list[Path]) -> Ledgers:
    apps: list[str] = []
    parts: list[pa.Table] = []
    events: list[np.ndarray] = []
    ignored: dict[str, int] = {}
    for path in paths:
        if ledger.not_a_ledger(path):
            ignored[path.name] = 1  # its header: no app's ledger
            continue
        lines = ledger.read(path, _READ)  # by the ledger's own rules, as the checker reads it
        if lines.ignored:
            ignored[path.name] = lines.ignored
        table, event = lines.used()
        app, n = ledger.incarnation(path)
        if app not in apps:
            apps.append(app)
        parts.append(
            table.append_column("app", pa.array(np.full(table.num_rows, apps.index(app), np.int16))).append_column(
                "incarnation", pa.array(np.full(table.num_rows, n, np.int32))
            )
        )
        events.append(event)
    if not parts:
        return _no_lines(apps, ignored)
    table = pa.concat_tables(parts)

    def ints(name: str) -> np.ndarray:
        return pc.fill_null(table[name], -1).to_numpy()

    time_us = ints("time_us")
    order = np.argsort(time_us, kind="stable")
    encoded = table["topic"].combine_chunks().dictionary_encode()
    topics = encoded.dictionary.to_pylist()
    topic = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int16)
    if "" in topics:
        topic[topic == topics.index("")] = -1
    ledgers = Ledgers(
        apps=apps,
        app=table["app"].to_numpy()[order],
        incarnation=table["incarnation"].to_numpy()[order],
        event=np.concatenate(events)[order],
        time_s=time_us[order] / 1e6,
        id=ints("id")[order],
        session=ints("session")[order],
        partition=ints("partition")[order],
        offset=ints("offset")[order],
        txn=ints("txn")[order],
        topics=topics,
        topic=topic[order],
        detail=np.array(table["detail"].to_pylist(), object)[order],
        ignored=ignored,
    )
    _topics_of_acks(ledgers)
    return ledgers


def _no_lines(apps: list[str], ignored: dict[str, int]) -> Ledgers:
    empty = np.empty(0, np.int64)
    return Ledgers(
        apps,
        np.empty(0, np.int16),
        np.empty(0, np.int32),
        np.empty(0, np.int8),
        np.empty(0, np.float64),
        empty,
        empty,
        empty,
        empty,
        empty,
        [],
        np.empty(0, np.int16),
        np.empty(0, object),
        ignored,
    )


def _topics_of_acks(ledgers: Ledgers) -> None:
    """An ``ok`` line names no topic: its record's ``invoke`` does."""
    invoke, ok = ledgers.rows("invoke"), ledgers.rows("ok")
    if not len(invoke) or not len(ok):
        return
    ids = ledgers.id[invoke]
    order = np.argsort(ids, kind="stable")
    at = np.minimum(np.searchsorted(ids[order], ledgers.id[ok]), len(ids) - 1)
    found = ids[order][at] == ledgers.id[ok]
    ledgers.topic[ok[found]] = ledgers.topic[invoke[order][at[found]]]


# --- anomalous records -------------------------------------------------------------------


def _anomalies(folder: Path, verdict: VariantVerdict | None, ledgers: Ledgers) -> tuple[dict[str, np.ndarray], str]:
    """anomaly -> ids: every one from ``anomalies.parquet`` when the checker wrote it, else the
    verdict's examples; the sink's findings (outside the checker) always from the verdict."""
    found: dict[str, np.ndarray] = {}
    source = ""
    path = folder / ANOMALIES_FILE
    if path.exists():
        table = pq.read_table(path, columns=["anomaly", "id"])
        names = np.array(table["anomaly"].to_pylist(), object)
        ids = table["id"].to_numpy()
        found = {str(a): np.unique(ids[names == a]) for a in dict.fromkeys(names)}
        source = ANOMALIES_FILE
    elif verdict is not None:
        found = {a: ids for a, f in verdict.result.anomalies.items() if len(ids := example_ids(f.examples, ledgers))}
        source = "the verdict's examples (up to 5 per anomaly)"
    if verdict is not None:
        for a, f in verdict.record.sink.items():
            if isinstance(f, dict) and len(ids := example_ids(f.get("examples", []), ledgers)):
                found[a] = ids
    return found, source


def example_ids(examples: list[dict[str, Any]], ledgers: Ledgers) -> np.ndarray:
    """The record ids an anomaly's examples name; a transaction's example (torn, partly read)
    stands for every record the ledgers sent in it."""
    ids: list[int] = []
    for e in examples:
        ids += [e[k] for k in _EXAMPLE_IDS if isinstance(e.get(k), int)]
        ids += [i for i in e.get("missing", []) if isinstance(i, int)]
        if "id" not in e and isinstance(e.get("txn"), int) and isinstance(e.get("session"), int):
            invoke = ledgers.rows("invoke")
            sent = invoke[(ledgers.session[invoke] == e["session"]) & (ledgers.txn[invoke] == e["txn"])]
            ids += ledgers.id[sent].tolist()
    return np.unique(np.array(ids, np.int64))
