"""``index.html`` over a runs directory: a row per pair's run folder, and per repeated run
its stability table and the spread of the control's counts.

``kafka-harness run … --repeat N`` records which folders were one repeated run in
``RUNS_DIR/repeat-<YYYYmmdd-HHMMSS>-<id>.json`` (``REPEAT_SCHEMA``), rewritten after every
pair so an interrupted repeat still lists what it ran::

    schema     "kafka-eos-harness/repeat/1"
    started    YYYYmmdd-HHMMSS
    scenarios  the scenario ids, as given
    times      N
    runs       the pair folders' names (in RUNS_DIR), in the order they ran

Building the index also writes ``report.html`` where a folder lacks one (a run that was
killed before it could), or everywhere with ``rebuild``.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.report import figures, page
from harness.report.run_folder import APP_SIDE, FOLDER_NAME, INCOMPLETE, SIDES
from harness.verdict.document import ONE_OF, REQUIRED, PairVerdict, VariantVerdict, side_outcome
from harness.verdict.outcome import Outcome
from harness.verdict.summary import stability_table

INDEX = "index.html"
REPEAT_SCHEMA = "kafka-eos-harness/repeat/1"
_REPEAT_GLOB = "repeat-*.json"


class Repeat:
    """The record of one ``run --repeat``: which pair folders it made."""

    def __init__(self, runs_dir: Path, scenarios: list[str], times: int) -> None:
        started = time.strftime("%Y%m%d-%H%M%S")
        self.path = runs_dir / f"repeat-{started}-{uuid.uuid4().hex[:4]}.json"
        self.doc: dict[str, Any] = {
            "schema": REPEAT_SCHEMA,
            "started": started,
            "scenarios": scenarios,
            "times": times,
            "runs": [],
        }

    def add(self, folder: Path) -> None:
        self.doc["runs"].append(folder.name)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps(self.doc, indent=2))


@dataclass
class Run:
    folder: Path
    scenario: str
    title: str
    started: str
    outcome: Outcome | str  # or INCOMPLETE
    kafka: list[str]
    client: str
    counts: dict[str, dict[str, int]]  # side -> anomaly -> count, non-zero only
    verdict: PairVerdict | None = None


@dataclass
class Group:
    """One ``run --repeat``."""

    name: str
    doc: dict[str, Any]
    runs: list[Run]
    absent: list[str] = field(default_factory=list)  # listed folders that are gone
    table: str = ""
    figure: Any = None


def _read_run(folder: Path) -> Run:
    name = FOLDER_NAME.fullmatch(folder.name)
    started = time.strftime("%Y-%m-%d %H:%M:%S", time.strptime(name["stamp"], "%Y%m%d-%H%M%S")) if name else ""
    try:
        pair = PairVerdict.from_json(json.loads((folder / "verdict.json").read_text()))
    except (OSError, ValueError, KeyError):  # an unfinished run: what its sides say, if anything
        pair = None
    sides = []
    for side in (*SIDES, APP_SIDE):
        try:
            sides.append(json.loads((folder / side / "verdict.json").read_text()))
        except (OSError, ValueError):
            continue
    counts = {s["variant"]: {a: n for a, n in s.get("counts", {}).items() if n} for s in sides}
    verdicts = [VariantVerdict.from_json(s) for s in sides]
    alone = verdicts if (folder / APP_SIDE).is_dir() else []
    outcome = pair.outcome if pair else side_outcome(alone[0]) if alone else INCOMPLETE
    return Run(
        folder,
        pair.scenario if pair else (name["scenario"] if name else folder.name),
        pair.title if pair else next((v.record.title for v in verdicts if v.record.title), ""),
        started,
        outcome,
        sorted({v.record.kafka_version or "?" for v in verdicts}),
        next((v.record.client for v in verdicts if v.record.client), page.DEFAULT_CLIENT),
        counts,
        pair,
    )


def _is_run(folder: Path) -> bool:
    return folder.is_dir() and bool(
        FOLDER_NAME.fullmatch(folder.name) or any((folder / s).is_dir() for s in (*SIDES, APP_SIDE))
    )


def _spread(pairs: list[PairVerdict]) -> dict[str, list[int]]:
    """The control's counts of each anomaly it must show, per scenario: what stability_table summarises."""
    counts: dict[str, list[int]] = {}
    for p in pairs:
        for a, rule in p.control.expect.items():
            if rule in (REQUIRED, ONE_OF):
                counts.setdefault(f"{p.scenario} {a}", []).append(p.control.count(a))
    return counts


def _groups(runs_dir: Path, runs: dict[str, Run]) -> list[Group]:
    groups = []
    for path in sorted(runs_dir.glob(_REPEAT_GLOB), reverse=True):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        members = [runs[n] for n in doc.get("runs", []) if n in runs]
        group = Group(path.stem, doc, members, [n for n in doc.get("runs", []) if n not in runs])
        pairs = [r.verdict for r in members if r.verdict]
        if pairs:
            group.table = stability_table(pairs)
            group.figure = figures.fragment(figures.spread(_spread(pairs)), f"{path.stem}-spread")
        groups.append(group)
    return groups


def build(runs_dir: Path, rebuild: bool = False) -> Path:
    """Write ``runs_dir/index.html`` (and any missing run report); its path."""
    folders = sorted((f for f in runs_dir.iterdir() if _is_run(f)), key=lambda f: f.name, reverse=True)
    for folder in folders:
        if rebuild or not (folder / page.REPORT).exists():
            page.write(folder)
    runs = {f.name: _read_run(f) for f in folders}
    groups = _groups(runs_dir, runs)
    html = page.render(
        "index.html.j2",
        runs_dir=runs_dir.resolve(),
        runs=list(runs.values()),
        groups=groups,
        report=page.REPORT,
        made=time.strftime("%Y-%m-%d %H:%M:%S"),
        plotly_js=figures.plotly_js() if any(g.figure for g in groups) else "",
    )
    path = runs_dir / INDEX
    path.write_text(html, encoding="utf-8")
    return path
