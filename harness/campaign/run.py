"""Running a campaign's share of runs unattended, for a budget, resumably.

A campaign's folder::

    campaign.json      CAMPAIGN_SCHEMA: the matrix, its digest, the shard, every finished run's row
    findings.html      the findings page (harness.campaign.findings), rewritten as runs finish
    findings.json      its rows: one per failure signature, triaged
    <cell>/run-NNN/    each run as explore keeps it (harness.explore.trial): replay, shrink and
                       bisect take it as they take an exploration's

Running into a folder that holds the same campaign (and shard) continues it: a run with its
``run.json`` is done; a run folder without one was cut short (a kill) and runs again. A folder of
another campaign or shard is refused. ``--hours`` is this invocation's budget: no run starts after it.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.campaign import findings
from harness.campaign.plan import Campaign, Cell, Planned, Shard, cluster_key
from harness.errors import HarnessError
from harness.explore import clusters, trial, workers
from harness.explore import run as explore_run
from harness.progress import say
from harness.scenario import Scenario, Variant
from harness.settings import Settings

CAMPAIGN_SCHEMA = "kafka-eos-harness/campaign/1"
CAMPAIGN = "campaign.json"


@dataclass(frozen=True)
class Prepared:
    """A cell made ready: its side as explored, and its cluster's settings (images and client built)."""

    scenario: Scenario
    variant: Variant
    settings: Settings
    broker_settings: dict[str, str]


def open_folder(folder: Path, campaign: Campaign, shard: Shard) -> None:
    """``folder`` holding ``campaign``'s ``shard``: made, or checked to be that one."""
    state = folder / CAMPAIGN
    if state.exists():
        doc = read_state(folder)
        if doc["digest"] != campaign.digest:
            raise HarnessError(
                f"{folder} holds another campaign ({doc['digest']}, not {campaign.digest}): "
                "give a new folder, or the same matrix"
            )
        if doc["shard"] != [shard.index, shard.count]:
            raise HarnessError(
                f"{folder} holds shard {doc['shard'][0]}/{doc['shard'][1]} of this campaign, not {shard}"
            )
    elif folder.exists() and any(folder.iterdir()):
        raise HarnessError(f"{folder} is not empty and holds no {CAMPAIGN}: give a new folder or a campaign's")


def read_state(folder: Path) -> dict[str, Any]:
    try:
        doc = json.loads((folder / CAMPAIGN).read_text())
        if doc.get("schema") != CAMPAIGN_SCHEMA:
            raise ValueError(f"schema {doc.get('schema')!r}, not {CAMPAIGN_SCHEMA}")
        return doc
    except (OSError, ValueError) as exc:
        raise HarnessError(f"{folder} is not a campaign's folder ({CAMPAIGN} readable): {exc}") from exc


def finished(folder: Path, share: list[Planned], tidy: bool = True) -> dict[Planned, trial.Trial]:
    """The runs of ``share`` done, as their folders say; with ``tidy`` a run's folder left
    half-made by a kill is removed (not while a campaign may be running in it)."""
    done = {}
    for planned in share:
        place = folder / planned.folder
        if (place / trial.RUN).exists():
            done[planned] = trial.Trial.read(place)
        elif tidy and place.exists():
            shutil.rmtree(place)
    return done


class _Progress:
    """Runs handed out round by round, a worker keeping its cluster's cells while the round lasts."""

    def __init__(self, folder: Path, campaign: Campaign, shard: Shard, share: list[Planned], hours: float) -> None:
        self.folder, self.campaign, self.shard = folder, campaign, shard
        self.trials = finished(folder, share)
        self.pending = [p for p in share if p not in self.trials]
        self.total = len(share)
        self.deadline = time.monotonic() + hours * 3600
        self.started = time.monotonic()
        self.ran = 0
        self.stopped = False
        self._lock = threading.Lock()

    def take(self, key: tuple[str, str] | None) -> Planned | None:
        """The next run: of ``key``'s cluster if one is due in this round or the next, else the next one."""
        with self._lock:
            if self.stopped or not self.pending or time.monotonic() > self.deadline:
                return None
            due = self.pending[0].run + 1
            chosen = next((p for p in self.pending if p.run <= due and cluster_key(p.cell) == key), self.pending[0])
            self.pending.remove(chosen)
            return chosen

    def done(self, planned: Planned, result: trial.Trial, workers_count: int) -> None:
        with self._lock:
            self.trials[planned] = result
            self.ran += 1
            per_run = (time.monotonic() - self.started) / self.ran
            eta = min(per_run * len(self.pending) / workers_count, max(0.0, self.deadline - time.monotonic()))
            failures = sum(t.failed for t in self.trials.values())
            why = f": {result.reasons[0][:120]}" if result.reasons else ""
            say(
                f"campaign: {len(self.trials)} of {self.total} · {planned.folder} {result.outcome}{why} "
                f"({result.wall_s:.0f} s) · {failures} failed · ETA {eta / 60:.1f} min"
            )
            write_state(self.folder, self.campaign, self.shard, self.trials)


def run(
    campaign: Campaign, folder: Path, settings: Settings, shard: Shard, workers_count: int, hours: float
) -> dict[Planned, trial.Trial]:
    """Run ``shard``'s share of ``campaign`` into ``folder`` for at most ``hours``; every run done so far."""
    open_folder(folder, campaign, shard)
    share = campaign.share(shard)
    folder.mkdir(parents=True, exist_ok=True)
    progress = _Progress(folder, campaign, shard, share, hours)
    write_state(folder, campaign, shard, progress.trials)
    say(
        f"campaign {campaign.digest}, shard {shard}: {len(share)} runs in {len(campaign.cells())} cells, "
        f"{len(progress.trials)} done before, budget {hours:g} h -> {folder}"
    )
    prepared = _prepare({p.cell for p in progress.pending}, settings)

    def worker() -> None:
        session: clusters.Session | None = None
        key: tuple[str, str] | None = None
        try:
            while (planned := progress.take(key)) is not None:
                cell = prepared[planned.cell]
                if cluster_key(planned.cell) != key:
                    if session is not None:
                        session.__exit__()
                    session, key = clusters.Session(cell.settings, cell.broker_settings), cluster_key(planned.cell)
                doc = campaign.schedule(planned)
                exploration = explore_run.Exploration(
                    planned.cell.subject(), planned.cell.seed, campaign.runs, (planned.cell.family,)
                )
                label = {**explore_run.label(exploration, planned.run, doc), "cell": planned.cell.name}
                result = trial.run(session.cluster, cell.scenario, cell.variant, doc, folder / planned.folder, label)
                session.check()
                progress.done(planned, result, workers_count)
        finally:
            if session is not None:
                session.__exit__()

    def stop() -> None:
        progress.stopped = True

    try:
        workers.side_by_side(workers_count, worker, stop)
    finally:
        write_state(folder, campaign, shard, progress.trials)
    return progress.trials


def _prepare(cells: set[Cell], settings: Settings) -> dict[Cell, Prepared]:
    """Every cell's side and cluster settings, images and clients built first (a release no
    registry has is said here, before any cluster starts)."""
    prepared = {}
    for cell in sorted(cells, key=lambda c: c.name):
        subject = cell.subject()
        prepared[cell] = Prepared(
            subject.scenario(), subject.guarantee(), subject.settings(settings), subject.broker_settings()
        )
    return prepared


def write_state(folder: Path, campaign: Campaign, shard: Shard, trials: dict[Planned, trial.Trial]) -> None:
    rows = [{"folder": p.folder, **trials[p].to_json()} for p in campaign.order() if p in trials]
    doc = {
        "schema": CAMPAIGN_SCHEMA,
        "digest": campaign.digest,
        "campaign": campaign.to_json(),
        "shard": [shard.index, shard.count],
        "planned": len(campaign.share(shard)),
        "runs": rows,
    }
    (folder / CAMPAIGN).write_text(json.dumps(doc, indent=2) + "\n")
    try:
        findings.write(folder, doc)
    except HarnessError as exc:  # the runs are what counts: `campaign findings` draws the page again
        say(f"campaign: findings page not drawn: {exc}")
