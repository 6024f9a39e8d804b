"""A1 on the real cluster: the control duplicates, the guarantee neither duplicates nor loses."""

from __future__ import annotations

from harness import scenario
from harness.cluster import KafkaCluster
from harness.runner import run_pair


def test_a1_control_duplicates_and_guarantee_is_clean(cluster: KafkaCluster, tmp_path, report) -> None:  # type: ignore[no-untyped-def]
    pair = run_pair(cluster, scenario.get("A1"), tmp_path)
    report(pair.summary())
    assert pair.control.result.count("duplicate") > 0, pair.summary()
    assert pair.guarantee.result.count("duplicate") == 0, pair.summary()
    assert pair.guarantee.result.count("lost") == 0, pair.summary()
    assert pair.outcome == "passed", pair.summary()
