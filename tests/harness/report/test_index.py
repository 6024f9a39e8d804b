"""index.html over a runs directory: a row per run, missing reports written, and a repeated
run's stability table and spread."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.report import index
from harness.report.page import REPORT


def test_index_lists_every_run_and_each_repeat(make_pair, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    runs_dir = tmp_path
    first = make_pair("20261123-120000-A1-0001")
    second = make_pair("20261123-120100-A1-0002", control="clean plain")  # inconclusive
    cut = runs_dir / "20261123-120200-A1-0003"  # interrupted: the control's ledgers only
    shutil.copytree(first / "control" / "ledgers", cut / "control" / "ledgers")
    repeat = index.Repeat(runs_dir, ["A1"], 3)
    for folder in (first, second, cut):
        repeat.add(folder)
    assert json.loads(repeat.path.read_text())["runs"] == [first.name, second.name, cut.name]

    html = index.build(runs_dir).read_text()

    for folder in (first, second, cut):
        assert (folder / REPORT).exists()  # written where missing
        assert f'href="{folder.name}/{REPORT}"' in html
    rows = html[html.index('id="runs"') :]
    assert rows.index(cut.name) < rows.index(second.name) < rows.index(first.name)  # newest first
    assert '<span class="badge passed">passed</span>' in rows
    assert '<span class="badge inconclusive">inconclusive</span>' in rows
    assert '<span class="badge incomplete">incomplete</span>' in rows
    assert "duplicate 3" in rows and "client" in rows and "librdkafka" in rows and "4.3.1" in rows
    assert "Repeated 3 times: A1" in html
    assert "A1           2  1/2" in html  # the stability table: the control showed it in 1 of the 2 checked
    assert f'id="{repeat.path.stem}-spread"' in html  # the spread plot


def test_no_plot_script_without_a_repeat(make_pair, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    make_pair()
    html = index.build(tmp_path).read_text()
    assert "<script>" not in html and len(html) < 100_000
