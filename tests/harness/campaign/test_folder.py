"""A campaign's folder: continued where a kill left it (a run without its run.json runs again),
refused when it holds another campaign or shard, and shards' folders merged into the whole
campaign with its findings page."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.campaign import findings, merge, run, triage
from harness.campaign.plan import Campaign, Shard
from harness.errors import HarnessError
from harness.explore import trial
from harness.verdict.outcome import Outcome
from tests.harness.cli.test_main import harness

MakeRun = Callable[..., Path]  # tests/harness/campaign/conftest.py's make_run
CAMPAIGN = Campaign.of(["B1"], kafka=["4.4.0"], clients=["librdkafka==2.16.1"], families=["protocol", "link"], runs=2)


def _shard(folder: Path, shard: Shard, make_run: MakeRun, failing: int = 0) -> None:
    """``shard``'s runs done into ``folder``, its first ``failing`` of them failed."""
    run.open_folder(folder, CAMPAIGN, shard)
    share = CAMPAIGN.share(shard)
    for n, planned in enumerate(share):
        counts = {"lost": 10} if n < failing else {}
        outcome = Outcome.FAILED if n < failing else Outcome.PASSED
        make_run(folder / planned.folder, outcome=outcome, counts=counts, cell=planned.cell.name)
    run.write_state(folder, CAMPAIGN, shard, run.finished(folder, share))


def test_a_run_cut_short_by_a_kill_runs_again(tmp_path: Path, make_run: MakeRun) -> None:
    share = CAMPAIGN.share(Shard(1, 1))
    make_run(tmp_path / share[0].folder, outcome=Outcome.PASSED, cell=share[0].cell.name)
    half_made = tmp_path / share[1].folder
    (half_made / "guarantee").mkdir(parents=True)
    done = run.finished(tmp_path, share)
    assert list(done) == [share[0]]
    assert not half_made.exists()


def test_a_folder_of_another_campaign_or_shard_is_refused(tmp_path: Path, make_run: MakeRun) -> None:
    _shard(tmp_path, Shard(1, 2), make_run)
    run.open_folder(tmp_path, CAMPAIGN, Shard(1, 2))  # the same: continued
    with pytest.raises(HarnessError, match="holds shard 1/2 of this campaign, not 2/2"):
        run.open_folder(tmp_path, CAMPAIGN, Shard(2, 2))
    other = Campaign.of(["B1"], kafka=["4.3.1"], runs=2)
    with pytest.raises(HarnessError, match="holds another campaign"):
        run.open_folder(tmp_path, other, Shard(1, 2))


def test_a_folder_holding_something_else_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(HarnessError, match="not empty"):
        run.open_folder(tmp_path, CAMPAIGN, Shard(1, 1))


def test_shards_merge_into_the_whole_campaign_with_one_findings_page(tmp_path: Path, make_run: MakeRun) -> None:
    _shard(tmp_path / "s1", Shard(1, 2), make_run, failing=1)
    _shard(tmp_path / "s2", Shard(2, 2), make_run, failing=1)
    merged, done = merge.merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "all")
    assert (merged, done) == (CAMPAIGN, len(CAMPAIGN.order()))
    state = run.read_state(tmp_path / "all")
    assert state["shard"] == [1, 1] and len(state["runs"]) == done
    page = json.loads((tmp_path / "all" / findings.FINDINGS_JSON).read_text())
    [row] = page["signatures"]  # two failures of one cause: one row
    assert (row["count"], row["kind"]) == (2, "unknown")
    assert "data went wrong" in (tmp_path / "all" / findings.FINDINGS_HTML).read_text()
    table = findings.markdown(page)
    assert (
        f"{len(CAMPAIGN.order())} of {len(CAMPAIGN.order())} runs" in table
        and "| unknown | data went wrong | lost |" in table
    )


def test_shards_of_different_campaigns_do_not_merge(tmp_path: Path, make_run: MakeRun) -> None:
    _shard(tmp_path / "s1", Shard(1, 2), make_run)
    other = Campaign.of(["B1"], kafka=["4.3.1"], runs=2)
    (tmp_path / "s2").mkdir()
    run.write_state(tmp_path / "s2", other, Shard(2, 2), {})
    with pytest.raises(HarnessError, match="different campaigns"):
        merge.merge([tmp_path / "s1", tmp_path / "s2"], tmp_path / "all")


def test_a_folder_that_is_no_campaign_s_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="is not a campaign's folder"):
        run.read_state(tmp_path)


def test_drawing_the_findings_leaves_a_run_under_way_alone(tmp_path: Path, make_run: MakeRun) -> None:
    """``campaign findings`` may be asked while the campaign runs: a run folder without its
    run.json is a run under way, not one to remove."""
    _shard(tmp_path, Shard(1, 2), make_run, failing=1)
    under_way = tmp_path / CAMPAIGN.share(Shard(1, 2))[-1].folder
    (under_way / trial.RUN).unlink()
    assert harness("campaign", "findings", str(tmp_path)).returncode == 1  # the failure is unknown
    assert under_way.exists()


def test_a_page_that_cannot_be_drawn_does_not_stop_the_campaign(
    tmp_path: Path, make_run: MakeRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catalogue is read from disk each time the page is drawn (it may be edited while a long
    campaign runs): a malformed one costs the page, never the runs."""
    monkeypatch.setattr(triage, "CATALOGUE", tmp_path / "missing.toml")
    _shard(tmp_path / "c", Shard(1, 1), make_run, failing=1)
    assert run.read_state(tmp_path / "c")["runs"]  # the state was written; the page was not
    assert not (tmp_path / "c" / findings.FINDINGS_HTML).exists()
