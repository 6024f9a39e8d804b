"""The registry of scenarios: docs/scenarios.md's table is what the scenario files say."""

from __future__ import annotations

import scenarios
from tests.generated_docs import generated_table


def test_the_docs_table_is_the_scenario_files() -> None:
    assert generated_table("docs/scenarios.md", "scenarios") == scenarios.markdown_table()


def test_the_table_states_each_sides_expectation_and_versions() -> None:
    rows = {row.split(" | ")[0].lstrip("| "): row for row in scenarios.markdown_table().splitlines()[2:]}
    assert set(rows) == set(scenarios.all_scenarios())
    assert "Kafka 3.5.2, librdkafka / Kafka 3.6.1, librdkafka" in rows["R1"]
    assert "research, reported" in rows["B12"]
    assert "no duplicate" in rows["A1"]
