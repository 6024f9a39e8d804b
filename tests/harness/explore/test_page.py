"""The exploration page: failing runs first, outcomes counted by family and trigger, links to
what each run kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.explore import page


def _trial(run: int, outcome: str, families: list[str], triggers: list[str]) -> dict[str, Any]:
    return {
        "folder": f"run-{run:03d}",
        "run": run,
        "steps": [f"at {run} s: kill app transformer-1 for 1 s"] * len(families),
        "families": families,
        "triggers": triggers,
        "outcome": outcome,
        "reasons": ["found 50 eos_missing anomalies, none allowed"] if outcome == "failed" else [],
        "counts": {"eos_missing": 50} if outcome == "failed" else {},
        "wall_s": 40.0,
        "workload_s": 37.5,
        "overhead_s": 2.5,
    }


DOC = {
    "schema": "kafka-eos-harness/explore/1",
    "subject": {"like": "B1", "client": "", "kafka_version": "", "planted_bug": 2},
    "seed": 7,
    "runs": 4,
    "families": ["link", "process", "protocol", "operation"],
    "workers": 1,
    "cluster_restarts": 0,
    "trials": [
        _trial(1, "passed", ["link", "link"], ["time", "AppSent"]),
        _trial(2, "inconclusive", ["protocol"], ["Committed"]),
        {
            **_trial(3, "failed", ["process", "link"], ["BatchUncommitted", "time"]),
            "fired": ["kill of app transformer-1 at 20.0 s, healed at 21.0 s"],
        },
    ],
}


def test_failing_runs_come_first() -> None:
    assert [t["run"] for t in page.rows(DOC)] == [3, 1, 2]


def test_outcomes_by_family_and_trigger_count_runs_not_steps() -> None:
    by_family = page.outcomes_by(DOC, "families")
    assert by_family["link"] == {"passed": 1, "failed": 1}
    assert by_family["process"] == {"failed": 1}
    assert page.outcomes_by(DOC, "triggers")["time"] == {"passed": 1, "failed": 1}


def test_the_page_lists_every_run_with_its_links(tmp_path: Path) -> None:
    (tmp_path / "run-003").mkdir()
    (tmp_path / "run-003" / "report.html").write_text("")
    html = page.write(tmp_path, DOC).read_text()
    assert html.index("run-003") < html.index("run-001")
    assert 'href="run-003/report.html"' in html and 'href="run-001/report.html"' not in html
    assert "explore-outcomes" in html and "planted bug every 2" in html
    assert html.count('class="badge failed"') == 1
    assert "fired: kill of app transformer-1" in html


def test_an_exploration_without_runs_yet_has_a_page(tmp_path: Path) -> None:
    html = page.write(tmp_path, {**DOC, "trials": []}).read_text()
    assert "0 of 4 runs done" in html
