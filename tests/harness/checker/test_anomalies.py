"""Detection power: each anomaly injected into a clean synthetic history is found, and named
right; clean histories show nothing. No cluster needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.checker.catalogue import ANOMALIES
from harness.checker.check import check
from harness.checker.result import MAX_EXAMPLES, CheckOptions, CheckResult
from harness.history import loading
from tests.harness.checker.synthetic import INPUT_TOPIC, MUTATIONS, OUTPUT_TOPIC, Mutation


def run(m: Mutation, root: Path) -> CheckResult:
    paths, reads = m.build(root)
    options = CheckOptions(eos_pairs=((INPUT_TOPIC, OUTPUT_TOPIC),) if m.eos else ())
    return check(loading.load(paths, reads), options)


@pytest.mark.parametrize("m", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_mutation_is_detected_and_named(m: Mutation, tmp_path: Path) -> None:
    result = run(m, tmp_path)
    counts = {name: result.count(name) for name in ANOMALIES}
    assert counts == {name: m.expect.get(name, 0) for name in ANOMALIES}, result.to_json()
    for name, n in m.expect.items():
        assert len(result.anomalies[name].examples) == min(n, MAX_EXAMPLES)
    assert sum(result.ledger_problems.values()) == m.problems, result.notes
    for stat, value in m.stats:
        assert result.stats[stat] == value, result.stats


PER_RECORD = ("duplicate", "lost", "aborted_read", "phantom", "order", "eos_missing", "eos_repeated", "zombie_write")


@pytest.mark.parametrize("m", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_every_anomalous_record_is_listed_for_the_report(m: Mutation, tmp_path: Path) -> None:
    result = run(m, tmp_path)
    table = result.anomalous_records()
    listed: dict[str, int] = {}
    for name in table["anomaly"].to_pylist():
        listed[name] = listed.get(name, 0) + 1
    for name, finding in result.anomalies.items():
        # A record anomaly lists each record; a transaction's or an offset's, the records involved.
        assert (
            (listed.get(name, 0) == finding.count)
            if name in PER_RECORD
            else (bool(listed.get(name)) == bool(finding.count))
        )
