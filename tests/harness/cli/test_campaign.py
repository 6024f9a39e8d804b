"""``kafka-harness campaign`` on bad input: one line on stderr, exit 2, nothing started and no
folder made; ``--dry-run`` prints a shard's runs, and the shards together print every run once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.harness.cli.test_main import harness, one_line_error

MATRIX = ("--sides", "B1,A5", "--kafka", "4.4.0,4.3.1", "--faults", "link,process", "--runs", "2")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--sides", "Z9", "--kafka", "4.4.0"), "unknown scenario"),
        (("--sides", "B1"), "--sides and --kafka are required"),
        (("--sides", "B1", "--kafka", "4.4"), "not a release number"),
        (("--sides", "B1", "--kafka", "4.4.0", "--seeds", "x"), "--seeds"),
        ((*MATRIX, "--shard", "3/2"), "--shard"),
        ((*MATRIX, "--file", "c.toml"), "not both"),
        (("--file", "/nonexistent/c.toml"), "campaign file"),
        ((), "holds no campaign"),
    ],
)
def test_campaign_run_refuses_bad_input_in_one_line(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    out = tmp_path / "c"
    assert said in one_line_error(harness("campaign", "run", "--out", str(out), *args, "--dry-run"))
    assert not out.exists()


def test_a_folder_of_another_campaign_is_refused(tmp_path: Path) -> None:
    (tmp_path / "campaign.json").write_text(
        json.dumps({"schema": "kafka-eos-harness/campaign/1", "digest": "0", "shard": [1, 1]})
    )
    assert "another campaign" in one_line_error(harness("campaign", "run", "--out", str(tmp_path), *MATRIX))


def test_shards_dry_runs_print_every_run_of_the_campaign_once(tmp_path: Path) -> None:
    def runs(*shard: str) -> list[str]:
        shown = harness("campaign", "run", "--out", str(tmp_path / "c"), *MATRIX, *shard, "--dry-run")
        assert shown.returncode == 0
        return [json.loads(line)["run"] for line in shown.stdout.splitlines()]

    whole = runs()
    assert len(whole) == 2 * 2 * 2 * 2  # sides x releases x families x runs
    assert sorted(runs("--shard", "1/2") + runs("--shard", "2/2")) == sorted(whole)


def test_merge_and_findings_want_campaign_folders(tmp_path: Path) -> None:
    assert "is not a campaign's folder" in one_line_error(harness("campaign", "findings", str(tmp_path)))
    merged = harness("campaign", "merge", str(tmp_path), "--out", str(tmp_path / "all"))
    assert "is not a campaign's folder" in one_line_error(merged)
