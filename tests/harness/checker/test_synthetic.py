"""Synthetic histories written in blocks (the checker benchmark's largest ones): clean, and the size asked for."""

from __future__ import annotations

from pathlib import Path

from harness.checker.check import check
from harness.checker.result import CheckOptions
from harness.history import loading
from tests.harness.checker import synthetic

SHAPE = synthetic.Shape(records=3000, sessions=2, partitions=3, txn_size=10, abort_every=10, transform=True)


def test_a_history_written_in_blocks_is_clean_and_whole(tmp_path: Path) -> None:
    synthetic.write_in_blocks(SHAPE, 3, tmp_path / "blocks")
    whole = synthetic.generate(SHAPE)
    paths, reads = whole.write(tmp_path / "whole")
    options = CheckOptions(eos_pairs=((synthetic.INPUT_TOPIC, synthetic.OUTPUT_TOPIC),))
    in_blocks = check(
        loading.load(sorted((tmp_path / "blocks" / "ledgers").glob("*.csv")), tmp_path / "blocks" / "reads"), options
    )
    at_once = check(loading.load(paths, reads), options)
    assert {k: f.count for k, f in in_blocks.anomalies.items() if f.count} == {}
    assert in_blocks.stats["sessions"] == 3 * at_once.stats["sessions"]
    for stat in ("sent", "acknowledged", "transactions_committed", "transactions_aborted", "markers"):
        assert in_blocks.stats[stat] == at_once.stats[stat], stat
