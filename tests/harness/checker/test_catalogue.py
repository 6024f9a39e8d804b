"""One catalogue of findings: the README's table, the verdict's counts and the scenarios'
expectations all come from it, and every history finder finds exactly what it declares."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import scenarios
from harness.checker import catalogue
from harness.checker.anomalies import CheckOptions
from harness.checker.catalogue import CATALOGUE, HISTORY
from harness.checker.check import check
from harness.checker.synthetic import MUTATIONS
from harness.history import columns
from harness.scenario import Variant
from harness.verdict.judge import REQUIRED, judge

README = Path(__file__).resolve().parents[3] / "README.md"


def test_the_readme_table_is_the_catalogue() -> None:
    text = README.read_text()
    start = text.index("<!-- findings table")
    table = text[text.index("\n", start) + 1 : text.index("<!-- end of findings table -->")].strip()
    assert table == catalogue.markdown_table()


def test_names_are_unique_and_sources_known() -> None:
    assert len(catalogue.NAMES) == len(CATALOGUE)
    assert {d.source for d in CATALOGUE} == {catalogue.HISTORY, catalogue.CLIENT, catalogue.SINK}


def test_every_history_finder_returns_exactly_its_declared_findings(tmp_path: Path) -> None:
    from harness.checker import anomalies

    paths, reads = MUTATIONS[0].build(tmp_path)
    c = anomalies.Context(columns.load(paths, reads), CheckOptions())
    for finder in {d.finds for d in CATALOGUE if d.source == HISTORY}:
        declared = {d.name for d in CATALOGUE if d.finds is finder}
        assert set(finder(c)) == declared, finder.__name__


def test_a_verdict_counts_every_finding_of_the_catalogue(tmp_path: Path) -> None:
    paths, reads = MUTATIONS[0].build(tmp_path)
    verdict = judge("X1", "control", check(columns.load(paths, reads)), {"duplicate": REQUIRED}, {})
    assert list(verdict.to_json()["counts"]) == list(catalogue.NAMES)


def test_every_scenario_expects_only_catalogued_findings() -> None:
    for s in scenarios.all_scenarios().values():
        for v in (s.control, s.guarantee):
            assert set(v.expect) <= set(catalogue.NAMES), s.id


@pytest.mark.parametrize(
    ("expect", "message"),
    [({"duplicates": REQUIRED}, "unknown finding 'duplicates'"), ({"duplicate": "required!"}, "unknown expectation")],
)
def test_a_misspelt_expectation_fails_when_the_scenario_is_defined(expect: dict[str, str], message: str) -> None:
    base = scenarios.get("A1").control
    with pytest.raises(ValueError, match=message):
        replace(base, expect=expect)
    with pytest.raises(ValueError, match=message):
        Variant("control", {}, expect=expect)
