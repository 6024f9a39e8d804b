"""The exploration loop: run n of N, each under its own drawn schedule, on clusters reused
across runs; progress with failures so far and an ETA; ``explore.json`` and the page rewritten
after every run.

An exploration's folder, ``RUNS_DIR/explore-<seed>`` (``-2``, ``-3`` … when taken)::

    explore.json       EXPLORE_SCHEMA: subject, seed, runs, first_run, families, workers, and
                       every finished run's row (outcome, reasons, counts, timings, schedule)
    index.html         the page (harness.explore.page)
    run-001/           schedule.json, run.json, guarantee/verdict.json; a failing run all of
                       its side's folder and report.html (harness.explore.trial)

``--workers N`` runs N clusters side by side, each taking the next run when it is free.
``--first-run K`` starts at run K: a run's schedule depends only on the seed and its number, so
machines given disjoint run ranges of one seed explore it together.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.cluster.kafka import KafkaCluster
from harness.explore import clusters, draw, page, targets, trial, words, workers
from harness.explore.subject import Subject
from harness.progress import say
from harness.settings import Settings

EXPLORE_SCHEMA = "kafka-eos-harness/explore/1"
EXPLORE = "explore.json"


@dataclass(frozen=True)
class Exploration:
    subject: Subject
    seed: int
    runs: int
    families: tuple[str, ...] = draw.FAMILIES
    workers: int = 1
    stop_on_failure: bool = False
    first_run: int = 1

    @property
    def numbers(self) -> range:
        """The runs' numbers, in order."""
        return range(self.first_run, self.first_run + self.runs)

    def schedules(self) -> dict[int, dict[str, Any]]:
        """Every run's schedule document by its number: from the seed alone."""
        reach = targets.reach(self.subject.scenario())
        return {n: draw.schedule(self.seed, n, reach, self.families) for n in self.numbers}


def folder_for(runs_dir: Path, seed: int) -> Path:
    folder = runs_dir / f"explore-{seed}"
    n = 1
    while folder.exists():
        n += 1
        folder = runs_dir / f"explore-{seed}-{n}"
    return folder


def label(exploration: Exploration, n: int, doc: dict[str, Any]) -> dict[str, Any]:
    """What a run's ``run.json`` says of where it came from, beside its outcome."""
    return {
        "subject": exploration.subject.to_json(),
        "seed": exploration.seed,
        "run": n,
        "steps": words.step_lines(doc),
        "families": words.families(doc),
        "triggers": words.triggers(doc),
    }


class _Progress:
    """Runs handed out to workers in order, results collected, a line after each."""

    def __init__(self, exploration: Exploration, folder: Path) -> None:
        self.exploration, self.folder = exploration, folder
        self.next_run = exploration.first_run
        self.trials: dict[int, trial.Trial] = {}
        self.restarts = 0
        self.started = time.monotonic()
        self.stopped = False
        self._lock = threading.Lock()

    def take(self) -> int | None:
        with self._lock:
            if self.stopped or self.next_run not in self.exploration.numbers:
                return None
            self.next_run += 1
            return self.next_run - 1

    def done(self, n: int, result: trial.Trial) -> None:
        with self._lock:
            self.trials[n] = result
            failures = sum(t.failed for t in self.trials.values())
            finished = len(self.trials)
            left = self.exploration.runs - finished
            per_run = (time.monotonic() - self.started) / finished
            eta = per_run * left / self.exploration.workers
            self.stopped |= self.exploration.stop_on_failure and result.failed
            why = f": {result.reasons[0]}" if result.reasons else ""
            say(
                f"explore: run {n} of {self.exploration.numbers[-1]} {result.outcome}{why} ({result.wall_s:.0f} s, "
                f"overhead {result.overhead_s:.1f} s) · {failures} failure{'s' if failures != 1 else ''} so far · "
                f"ETA {eta / 60:.1f} min"
            )
            write_index(self.folder, self.exploration, self.trials, self.restarts)


def explore(
    exploration: Exploration, settings: Settings, runs_dir: Path, cluster: KafkaCluster | None = None
) -> tuple[Path, list[trial.Trial]]:
    """Run the exploration into a new folder under ``runs_dir``; its folder and its runs in order.
    ``cluster``: one already up to run on (one worker), instead of clusters of its own."""
    scenario = exploration.subject.scenario()
    variant = exploration.subject.guarantee()
    docs = exploration.schedules()
    cluster_settings = exploration.subject.settings(settings)
    folder = folder_for(runs_dir, exploration.seed)
    folder.mkdir(parents=True)
    progress = _Progress(exploration, folder)
    write_index(folder, exploration, {}, 0)
    first, last = exploration.numbers[0], exploration.numbers[-1]
    say(f"explore: {exploration.subject}, seed {exploration.seed}, runs {first}-{last} -> {folder}")
    if left_out := exploration.subject.left_out():
        say(f"explore: left out, as checks of the pair's own fault: {'; '.join(left_out)}")

    def worker() -> None:
        with clusters.Session(cluster_settings, exploration.subject.broker_settings(), cluster) as session:
            while (n := progress.take()) is not None:
                doc = docs[n]
                name = folder / f"run-{n:03d}"
                result = trial.run(session.cluster, scenario, variant, doc, name, label(exploration, n, doc))
                if session.check():
                    progress.restarts += 1
                progress.done(n, result)

    def stop() -> None:
        progress.stopped = True

    workers.side_by_side(1 if cluster is not None else exploration.workers, worker, stop)
    write_index(folder, exploration, progress.trials, progress.restarts)
    return folder, [progress.trials[n] for n in sorted(progress.trials)]


def write_index(folder: Path, exploration: Exploration, trials: dict[int, trial.Trial], restarts: int) -> None:
    doc = {
        "schema": EXPLORE_SCHEMA,
        "subject": exploration.subject.to_json(),
        "seed": exploration.seed,
        "runs": exploration.runs,
        "first_run": exploration.first_run,
        "families": list(exploration.families),
        "workers": exploration.workers,
        "cluster_restarts": restarts,
        "trials": [{"folder": trials[n].folder.name, **trials[n].to_json()} for n in sorted(trials)],
    }
    (folder / EXPLORE).write_text(json.dumps(doc, indent=2) + "\n")
    page.write(folder, doc)
