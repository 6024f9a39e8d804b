"""Every scenario pair on the real cluster, judged exactly as ``kafka-harness run`` judges it.

Every pair must pass: its control shows the anomaly the story predicts and its guarantee
is clean, on the same shared cluster and fault. A scenario carries its whole expectation
(finding counts and checks), so this module asserts nothing beyond the pair's outcome.
Scenarios that kill brokers heal them before they end, so the cluster stays shared. These
runs are also the checker's cluster-backed detection proof: A1 duplicates, A3 lost
acknowledged writes, B1 repeated exactly-once counts, B3 aborted reads, C1-C4 a Spark
driver's repeated, aborted or miscounted results, D1-D3 a Streams app's repeated outputs and
miscounted totals, each against a clean guarantee.

The pairs listed in ``ON_JAVA`` run a second time with their apps on Kafka's Java client,
so the guarantees are shown for both clients.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import scenarios
from harness.cluster.kafka import KafkaCluster
from harness.recheck import recheck
from harness.report.page import REPORT
from harness.report.run_folder import folder_of
from harness.runner import run_pair, run_variant
from harness.scenario import on_client
from harness.verdict.summary import pair_summary
from harness.workloads.clients import JAVA, ClientSpec

SCENARIOS = list(scenarios.all_scenarios())
ON_JAVA = ("A1", "A2", "A4", "B1", "B2a", "B2b", "B3", "B11", "B13")
CASES = [pytest.param(sid, "", id=sid) for sid in SCENARIOS] + [
    pytest.param(sid, JAVA, id=f"{sid}-java") for sid in ON_JAVA
]
# One pair of each workload kind is also re-checked from its saved run folder.
_RECHECKED = {"B3", "B1", "C2"}  # a producer, a pipeline and a Spark workload


def test_every_idempotent_producer_row_of_the_book_has_a_scenario() -> None:
    assert [f"A{i}" for i in range(1, 9)] == [sid for sid in SCENARIOS if sid.startswith("A")]


@pytest.mark.parametrize(("scenario_id", "client"), CASES)
def test_pair(cluster: KafkaCluster, tmp_path: Path, report: Any, scenario_id: str, client: str) -> None:
    chosen = scenarios.get(scenario_id)
    if client:
        chosen = on_client(chosen, ClientSpec(client))
    pair = run_pair(cluster, chosen, tmp_path)
    report(f"{pair_summary(pair)}\n  report: {folder_of(pair) / REPORT}")
    # A research pair claims nothing: it must run to the end and report its findings.
    assert pair.outcome == ("reported" if chosen.research else "passed"), pair_summary(pair)
    if not client and scenario_id in _RECHECKED:
        _recheck_with_both_engines(folder_of(pair))


def _recheck_with_both_engines(folder: Path) -> None:
    """``kafka-harness check`` on the saved run: the numpy and the Spark engine give the
    verdict JSON the run itself wrote."""
    saved = json.loads((folder / "verdict.json").read_text())
    for engine in ("python", "spark"):
        again = json.loads(json.dumps(recheck(folder, engine).to_json()))
        assert again == saved, engine


def test_a8_in_flight_above_five_is_refused_too(cluster: KafkaCluster, tmp_path: Path) -> None:
    a8 = scenarios.get("A8")
    in_flight_6 = replace(a8.control, config={"acks": "all", "max.in.flight.requests.per.connection": 6})
    verdict = run_variant(cluster, a8, in_flight_6, tmp_path)
    assert verdict.passed, verdict.reasons
    (producer,) = verdict.record.workload
    assert "max.in.flight" in producer["setup_error"]["message"]
