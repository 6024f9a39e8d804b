"""A campaign's matrix from flags or a file, its order (rounds of every cell, a round's cells
grouped by cluster), shards that share it out exactly, and bad input refused in one line."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from harness.campaign.plan import Campaign, Shard, cluster_key
from harness.errors import HarnessError
from harness.explore import draw


def _campaign(**rest: object) -> Campaign:
    return Campaign.of(["B1", "A5"], kafka=["4.4.0", "4.3.1"], families=["link", "process"], runs=3, **rest)


def test_every_cell_gets_its_first_run_before_any_cell_its_second() -> None:
    campaign = _campaign()
    order = campaign.order()
    cells = len(campaign.cells())
    assert cells == 2 * 2 * 1 * 2
    assert len(order) == cells * 3
    assert [p.run for p in order[:cells]] == [1] * cells
    assert {p.cell for p in order[:cells]} == set(campaign.cells())


def test_within_a_round_cells_of_one_cluster_come_together() -> None:
    keys = [cluster_key(p.cell) for p in _campaign().order() if p.run == 1]
    changes = sum(a != b for a, b in itertools.pairwise(keys))
    assert changes == len(set(keys)) - 1


def test_shards_share_out_every_run_once() -> None:
    campaign = _campaign()
    shares = [campaign.share(Shard(i, 3)) for i in (1, 2, 3)]
    assert sorted(p.folder for s in shares for p in s) == sorted(p.folder for p in campaign.order())
    assert max(map(len, shares)) - min(map(len, shares)) <= 1


def test_a_run_s_schedule_depends_on_its_cell_s_seed_family_and_number_only() -> None:
    campaign = _campaign()
    first = campaign.order()[0]
    again = Campaign.of(["B1", "A5"], kafka=["4.4.0"], families=["link", "process"], runs=9)
    same = next(p for p in again.order() if p.cell.side == first.cell.side and p.cell.family == first.cell.family)
    assert campaign.schedule(first) == again.schedule(same)  # across Kafka releases: one schedule compared


def test_a_letter_stands_for_every_explorable_pair_of_its_group() -> None:
    sides = Campaign.of(["R"], kafka=["4.4.0"]).sides
    assert "R1" in sides and all(s.startswith("R") for s in sides)


def test_the_digest_tells_matrices_apart_and_ignores_nothing_else() -> None:
    assert _campaign().digest == _campaign().digest
    assert _campaign().digest != Campaign.of(["B1", "A5"], kafka=["4.4.0", "4.3.1"], families=["link"], runs=3).digest


def test_a_file_reads_as_the_flags_do(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('sides = ["B1", "A5"]\nkafka = ["4.4.0", "4.3.1"]\nfamilies = ["link", "process"]\nruns = 3\n')
    assert Campaign.read(path) == _campaign()
    assert Campaign.read(path).from_json(_campaign().to_json()) == _campaign()


def test_all_families_by_default() -> None:
    assert Campaign.of(["B1"], kafka=["4.4.0"]).families == draw.FAMILIES


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('sides = ["B1"]\n', "sides and kafka are required"),
        ('sides = ["Z9"]\nkafka = ["4.4.0"]\n', "unknown scenario 'Z9'"),
        ('sides = ["C1"]\nkafka = ["4.4.0"]\n', "explore draws schedules for producer and pipeline"),
        ('sides = ["B1"]\nkafka = ["2.8.0"]\n', "too old"),
        ('sides = ["B1"]\nkafka = ["4.4.0"]\nclients = ["rust"]\n', "unknown client 'rust'"),
        ('sides = ["B1"]\nkafka = ["4.4.0"]\nfamilies = ["weather"]\n', "unknown family weather"),
        ('sides = ["B1"]\nkafka = ["4.4.0"]\nruns = 0\n', "runs per cell must be 1 or more"),
        ('sides = ["B1"]\nkafka = "4.4.0"\n', "kafka has the wrong type"),
        ('sides = ["B1"]\nkafka = ["4.4.0"]\nhours = 3\n', "unknown key hours"),
        ('sides = ["B1"]\nkafka = ["4.4.0"]\nseeds = ["one"]\n', "seeds and runs are whole numbers"),
        ("sides = [", "campaign file"),
    ],
)
def test_a_bad_file_is_one_line_naming_the_mistake(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(HarnessError, match=said.replace("(", r"\(")):
        Campaign.read(path)


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_shard_out_of_range_is_refused(text: str) -> None:
    with pytest.raises(HarnessError, match="--shard"):
        Shard.parse(text)
