"""Running a kept run's schedule again, on one reused cluster: as it is, a number of times
(``replay``: its reproduction rate), or as ``harness.explore.shrink``'s candidates within a
budget (``shrink_run``), ending in a scenario file (``harness.explore.scenario_file``).

Each run goes into the run folder: ``replay-<time>/1`` … or ``shrink-<time>/try-01`` …, kept
whole when it failed, as explore keeps its runs.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.explore import clusters, scenario_file, shrink, trial, words
from harness.explore.kept import Kept
from harness.progress import say
from harness.settings import Settings
from harness.verdict.outcome import Outcome


def _stamped(folder: Path, what: str) -> Path:
    return folder / f"{what}-{time.strftime('%Y%m%d-%H%M%S')}"


def replay(
    kept: Kept, times: int, settings: Settings, cluster: KafkaCluster | None = None, folder: Path | None = None
) -> tuple[Path, list[trial.Trial]]:
    """The kept schedule ``times`` times; the folder they went to (``folder``, else a stamped one
    in the run's) and their trials (on ``cluster`` if given, else on one of its own)."""
    if times < 1:
        raise HarnessError(f"--times must be 1 or more, not {times}")
    scenario, variant = kept.subject.scenario(), kept.subject.guarantee()
    folder = folder or _stamped(kept.folder, "replay")
    trials = []
    with clusters.Session(kept.subject.settings(settings), kept.subject.broker_settings(), cluster) as session:
        for n in range(1, times + 1):
            doc = kept.doc
            t = trial.run(session.cluster, scenario, variant, doc, folder / str(n), kept.label(replay=n, **_words(doc)))
            session.check()
            trials.append(t)
            failed = sum(x.failed for x in trials)
            say(
                f"replay: {n} of {times} {t.outcome}"
                + (f": {t.reasons[0]}" if t.reasons else "")
                + f" · {failed} failed so far"
            )
    return folder, trials


def _words(doc: dict[str, Any]) -> dict[str, Any]:
    return {"steps": words.step_lines(doc), "families": words.families(doc), "triggers": words.triggers(doc)}


@dataclass
class Shrunk:
    folder: Path  # where the tries went
    doc: dict[str, Any]
    attempts: list[shrink.Attempt]
    proof: Path  # a folder whose run failed under exactly ``doc`` (the kept run if nothing shrank)
    scenario: Path  # the scenario file


def shrink_run(
    kept: Kept, budget: int, settings: Settings, out: Path | None = None, cluster: KafkaCluster | None = None
) -> Shrunk:
    if budget < 1:
        raise HarnessError(f"--budget must be 1 or more, not {budget}")
    if kept.info.get("outcome") != Outcome.FAILED:
        raise HarnessError(f"{kept.folder} did not fail (its outcome: {kept.info.get('outcome')}): nothing to shrink")
    scenario, variant = kept.subject.scenario(), kept.subject.guarantee()
    folder = _stamped(kept.folder, "shrink")
    tried: list[tuple[str, Path, bool]] = []  # (the candidate, its folder, whether it failed)
    with clusters.Session(kept.subject.settings(settings), kept.subject.broker_settings(), cluster) as session:

        def fails(candidate: dict[str, Any], change: str) -> bool:
            n = len(tried) + 1
            name = folder / f"try-{n:02d}"
            t = trial.run(
                session.cluster, scenario, variant, candidate, name, kept.label(change=change, **_words(candidate))
            )
            session.check()
            say(f"shrink: try {n} of {budget}, {change} ({len(candidate['steps'])} steps): {t.outcome}")
            tried.append((json.dumps(candidate, sort_keys=True), name, t.failed))
            return t.failed

        doc, attempts = shrink.shrink(kept.doc, fails, budget)
    key = json.dumps(doc, sort_keys=True)
    proof = next((f for k, f, failed in reversed(tried) if k == key and failed), kept.folder)
    path = scenario_file.write(out or folder / scenario_file.name_for(kept), kept, doc, trial.Trial.read(proof))
    return Shrunk(folder, doc, attempts, proof, path)
