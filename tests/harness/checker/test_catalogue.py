"""One catalogue of findings: docs/findings.md's table, the verdict's counts and the scenarios'
expectations all come from it, and every history finder finds exactly what it declares."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import scenarios
from harness.checker import catalogue
from harness.checker.catalogue import ANOMALIES, CATALOGUE, HISTORY
from harness.checker.check import check
from harness.checker.result import CheckOptions
from harness.history import loading
from harness.scenario import Variant
from harness.verdict.document import REQUIRED
from harness.verdict.judge import judge
from harness.verdict.record import SideRecord
from tests.generated_docs import generated_table
from tests.harness.checker.histories import INJECTIONS, build, every_anomaly
from tests.harness.checker.synthetic import MUTATIONS


def test_the_docs_table_is_the_catalogue() -> None:
    assert generated_table("docs/findings.md", "findings") == catalogue.markdown_table()


def test_names_are_unique_and_sources_known() -> None:
    assert len(catalogue.NAMES) == len(CATALOGUE)
    assert {d.source for d in CATALOGUE} == {catalogue.HISTORY, catalogue.CLIENT, catalogue.SINK}


def test_every_history_finder_returns_exactly_its_declared_findings(tmp_path: Path) -> None:
    from harness.checker import anomalies

    paths, reads = MUTATIONS[0].build(tmp_path)
    c = anomalies.Context(loading.load(paths, reads), CheckOptions())
    for finder in {d.finds for d in CATALOGUE if d.source == HISTORY}:
        declared = {d.name for d in CATALOGUE if d.finds is finder}
        assert set(finder(c)) == declared, finder.__name__


def test_every_history_anomaly_has_a_function_in_each_engine_and_a_mutation() -> None:
    """What docs/anomalies.md ("Add an anomaly") asks for, so none of it can be forgotten: the numpy
    engine's function, the Spark engine's of the same name, and an injection for the property tests
    (which also puts it in the history both engines are compared on)."""
    from harness.checker import anomalies
    from harness.checker.spark import anomalies as spark_anomalies

    for d in (d for d in CATALOGUE if d.source == HISTORY):
        assert getattr(anomalies, d.finds.__name__) is d.finds, d.name
        assert d.spark == d.finds.__name__, f"{d.name}: the Spark function is named as the numpy one"
        assert callable(getattr(spark_anomalies, d.spark, None)), f"{d.name}: no {d.spark} in the Spark engine"
        assert d.name in INJECTIONS, f"{d.name}: no injection in tests/harness/checker/histories.py"
    assert set(INJECTIONS) == set(ANOMALIES)
    assert all(build(every_anomaly()).expect.values())


def test_a_verdict_counts_every_finding_of_the_catalogue(tmp_path: Path) -> None:
    paths, reads = MUTATIONS[0].build(tmp_path)
    verdict = judge("X1", "control", check(loading.load(paths, reads)), {"duplicate": REQUIRED}, SideRecord())
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
