"""report.html without a cluster: a pair folder made from synthetic histories run through the
real checker and verdict, and a folder an interrupted run left with ledgers only."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scenarios
from harness.errors import HarnessError
from harness.report import index, page
from harness.report.run_folder import ANOMALIES_FILE, APP_SIDE, read_pair
from harness.report.series import timeline
from harness.scenario import Scenario
from harness.verdict.document import FORBIDDEN
from tests.harness.checker.synthetic import MUTATIONS
from tests.harness.report.conftest import _side

DUPLICATE = next(m for m in MUTATIONS if m.name == "duplicate")


@pytest.fixture
def pair_folder(make_pair) -> Path:  # type: ignore[no-untyped-def]
    return make_pair()


def _self_contained(html: str) -> None:
    assert not re.search(r"<script[^>]*\bsrc=", html), "a script loaded from elsewhere"
    assert not re.search(r"<link\b", html), "a stylesheet or other resource loaded from elsewhere"


def test_a_pair_page_has_story_outcome_tables_timeline_and_links(pair_folder: Path) -> None:
    html = page.build(pair_folder).read_text()
    _self_contained(html)
    assert 'id="outcome">passed<' in html
    assert "A1 — the ack is lost" in html  # the scenario's story, from the registry
    table = html[html.index('id="control-verdict"') :]
    table = table[: table.index("</table>")]
    k = DUPLICATE.expect["duplicate"]
    assert re.search(
        rf"<td>duplicate</td>\s*<td>required</td>\s*<td class=\"num\">{k}</td>\s*<td><span class=\"badge ok\">", table
    )
    assert 'id="control-timeline"' in html and 'id="guarantee-timeline"' in html
    assert 'id="control-partitions"' in html
    assert 'href="control/verdict.json"' in html and 'href="control/ledgers/' in html
    assert 'href="control/reads/read_committed.parquet"' in html
    apps = html[html.index('<table class="apps">') :]
    apps = apps[: apps.index("</table>")]
    for said in (
        "producer-1#1",
        "killed by signal 9",
        "ok 10, fail 0, info 0, unfinished 0",
        "_MSG_TIMED_OUT x2",
        "resent 3 record(s)",
        "consumed 600, produced 600, batches 12",
        "exit 3",
        "fenced: _FENCED fenced by a newer instance",
    ):
        assert said in apps, said


def test_anomalous_records_from_the_checker_file_when_present(pair_folder: Path) -> None:
    side = read_pair(pair_folder).sides[0]
    ids = [e["id"] for e in side.verdict.result.anomalies["duplicate"].examples]  # type: ignore[union-attr]
    assert sorted(timeline(side).marks["duplicate"].ids.tolist()) == sorted(ids)  # the verdict's examples
    every = [*ids, ids[0] + 1000, ids[0] + 1001]  # as if the checker had listed all of them
    table = pa.table({"anomaly": ["duplicate"] * len(every), "id": pa.array(every, pa.int64())})
    pq.write_table(table, pair_folder / "control" / ANOMALIES_FILE)
    side = read_pair(pair_folder).sides[0]
    assert side.anomalies_from == ANOMALIES_FILE
    m = timeline(side).marks["duplicate"]
    assert sorted(m.ids.tolist()) == sorted(every)
    assert (m.sent == m.sent).sum() == len(ids)  # the two made-up ids were never sent: no send time (NaN)


def test_a_spark_side_shows_its_micro_batches_and_a_stall(pair_folder: Path) -> None:
    verdict_path = pair_folder / "control" / "verdict.json"
    doc = json.loads(verdict_path.read_text())
    started = doc["started_at"]
    doc["workload"].append(
        {
            "app": "spark-driver",
            "incarnation": 1,
            "exit": 0,
            "started_at": started,
            "ended_at": started + 3,
            "micro_batches": [[0, 300, 900, started + 0.5], [1, 300, 400, started + 1.5]],
        }
    )
    doc["read_committed_stalls"] = [{"partition": "input-0", "started_at": started + 0.2, "seconds": 6.0, "lso": 40}]
    verdict_path.write_text(json.dumps(doc))
    (pair_folder / "control" / "spark-driver.1.spec.json").write_text("{}")
    tl = timeline(read_pair(pair_folder).sides[0])
    assert [(b.start, b.seconds) for b in tl.batches] == [pytest.approx((0.5, 0.9)), pytest.approx((1.5, 0.4))]
    assert [(s.start, s.end) for s in tl.stalls] == [pytest.approx((0.2, 6.2))]
    html = page.build(pair_folder).read_text()
    assert "Spark micro-batch duration" in html and "read_committed stall (LSO probe)" in html

    doc["workload"][-1]["micro_batches"] = [[0, 300, 900]]  # a report from before start times were recorded
    verdict_path.write_text(json.dumps(doc))
    assert "spark-driver#1: micro-batch start times were not recorded" in page.build(pair_folder).read_text()


def test_a_stall_is_measured_against_a_transaction_timeout_read_from_a_file(pair_folder: Path) -> None:
    verdict_path = pair_folder / "verdict.json"
    doc = json.loads(verdict_path.read_text())
    control = doc["control"]
    control["read_committed_stalls"] = [{"partition": "input-0", "started_at": 0, "seconds": 6.0, "lso": 40}]
    control["producer_config"]["transaction.timeout.ms"] = "60000"  # verify-config reads values as text
    verdict_path.write_text(json.dumps(doc))
    html = page.build(pair_folder).read_text()
    assert "stalled 6.0s on input-0 at 40 (transaction.timeout.ms = 60.0s)" in html


def test_an_interrupted_run_with_ledgers_only_says_what_is_missing(pair_folder: Path, tmp_path: Path) -> None:
    folder = tmp_path / "20261123-130000-B1-cafe"
    (folder / "control" / "ledgers").mkdir(parents=True)
    for ledger in (pair_folder / "control" / "ledgers").glob("*.csv"):
        lines = ledger.read_text().splitlines()
        cut = "\n".join(lines[: len(lines) // 2]) + "\n" + lines[len(lines) // 2][:9]  # killed mid-line
        (folder / "control" / "ledgers" / ledger.name).write_text(cut)
    html = page.build(folder).read_text()
    _self_contained(html)
    assert 'id="outcome">incomplete<' in html
    missing = html[html.index('id="missing"') : html.index("</section>", html.index('id="missing"'))]
    for said in (
        "verdict.json of the pair",
        "control: reads/read_committed.parquet (no read-back)",
        "control: verdict.json (not checked)",
        "guarantee: the guarantee side&#39;s folder (it never started)",
    ):
        assert said in missing, missing
    assert 'id="control-timeline"' in html  # drawn from the ledgers that exist
    assert "line(s) ignored (cut short or malformed)" in html


def test_an_empty_folder_still_gets_a_page(tmp_path: Path) -> None:
    folder = tmp_path / "20261123-140000-A3-0000"
    folder.mkdir()
    html = page.build(folder).read_text()
    assert "incomplete" in html and "ledgers (no app wrote any)" not in html  # no side folder at all


def test_write_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    def broken(folder: Path, story: str | None = None, title: str | None = None) -> Path:
        raise ValueError("boom")

    monkeypatch.setattr(page, "build", broken)
    assert page.write(tmp_path) is None
    assert "report: not written (ValueError: boom)" in capsys.readouterr().err


def test_a_users_app_checked_alone_is_one_side_without_a_pair(tmp_path: Path) -> None:
    folder = tmp_path / "20261123-120000-APP-beef"
    _side(folder / APP_SIDE, "duplicate", {"duplicate": FORBIDDEN})  # the app broke what it must not
    pair = read_pair(folder)
    assert (pair.alone, pair.outcome, pair.missing) == (True, "failed", [])
    html = page.build(folder, "your app under a kill", "python my_app.py").read_text()
    _self_contained(html)
    assert "python my_app.py" in html and "your app under a kill" in html
    assert page.APP_OUTCOMES["failed"] in html and "found 3 duplicate anomalies" in html
    index.build(tmp_path)
    assert "APP-beef" in (tmp_path / "index.html").read_text()
    assert index._read_run(folder).outcome == "failed"


def _unregistered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scenario is gone from today's registry (renamed, deleted, a scenario file since removed)."""

    def gone(sid: str) -> Scenario:
        raise HarnessError(f"unknown scenario {sid!r}")

    monkeypatch.setattr(scenarios, "get", gone)


def _rewrite_sides(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    for side in ("control", "guarantee"):
        path = folder / side / "verdict.json"
        doc = json.loads(path.read_text())
        change(doc)
        path.write_text(json.dumps(doc))


def test_a_page_takes_title_and_story_from_the_run_folder_not_from_today_s_scenarios(
    pair_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rewrite_sides(pair_folder, lambda doc: doc.update(title="as it ran", story="The story as it was then."))
    (pair_folder / "verdict.json").unlink()  # an interrupted pair: the sides' records are all it has
    _unregistered(monkeypatch)
    html = page.build(pair_folder).read_text()
    assert "A1: as it ran" in html and "The story as it was then." in html
    assert "A1 — the ack is lost" not in html


def test_an_old_folder_without_title_or_story_renders_after_its_scenario_is_gone(
    pair_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rewrite_sides(pair_folder, lambda doc: [doc.pop(k) for k in ("title", "story")])
    (pair_folder / "verdict.json").unlink()
    _unregistered(monkeypatch)
    html = page.build(pair_folder).read_text()
    assert "<h1>A1 <span" in html and 'class="story"' not in html  # the id alone
    monkeypatch.undo()  # still registered: today's words stand in for the ones it never recorded
    assert "A1 — the ack is lost" in page.build(pair_folder).read_text()


def test_a_side_that_could_not_be_told_shows_unknown_and_why(pair_folder: Path) -> None:
    why = "the checker raised RuntimeError: forced by the test"
    _rewrite_sides(pair_folder, lambda doc: doc.update(unknown=[why], passed=False, reasons=[f"unknown: {why}"]))
    (pair_folder / "verdict.json").unlink()
    html = page.build(pair_folder).read_text()
    assert f"unknown: {why}" in html
