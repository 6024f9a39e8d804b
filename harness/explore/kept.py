"""A run folder explore (or replay, or shrink) left, read back: what replay, shrink, bisect and
a scenario file start from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import HarnessError
from harness.explore import trial
from harness.explore.subject import Subject
from harness.faults.serial import ScheduleError


@dataclass(frozen=True)
class Kept:
    """A run folder explore (or replay, or shrink) left: its subject, schedule and outcome."""

    folder: Path
    subject: Subject
    doc: dict[str, Any]
    info: dict[str, Any]  # its run.json

    @classmethod
    def read(cls, folder: Path) -> Kept:
        try:
            info = json.loads((folder / trial.RUN).read_text())
            doc = trial.schedule_of(folder)
        except (OSError, ValueError, ScheduleError) as exc:
            raise HarnessError(
                f"{folder} is not a run folder of explore ({trial.RUN} and {trial.SCHEDULE} readable): "
                f"{exc}; give one of runs/explore-<seed>/run-NNN"
            ) from exc
        return cls(folder, Subject.from_json(info["subject"]), doc, info)

    def label(self, **extra: Any) -> dict[str, Any]:
        keep = ("subject", "seed", "run")
        return {**{k: self.info[k] for k in keep if k in self.info}, **extra}
