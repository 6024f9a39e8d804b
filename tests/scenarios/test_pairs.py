"""Every scenario pair on the real cluster.

Every pair must pass: its control shows the anomaly the story predicts and its guarantee
is clean, on the same shared cluster and fault. Scenarios that kill brokers heal them
before they end, so the cluster stays shared. These runs are also the checker's
cluster-backed detection proof: A1 duplicates, A3 lost acknowledged writes, B1 repeated
exactly-once counts, B3 aborted reads, C1-C4 a Spark driver's repeated, aborted or
miscounted results, D1-D3 a Streams app's repeated outputs and miscounted totals, each
against a clean guarantee.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

import scenarios
from harness.cluster.kafka import KafkaCluster
from harness.report.page import REPORT
from harness.report.run_folder import folder_of
from harness.runner import run_pair, run_variant
from harness.verdict.judge import PairVerdict, VariantVerdict
from harness.verdict.summary import pair_summary
from harness.workloads.producer import HIJACKER, PRODUCER
from harness.workloads.streams import streams_app
from scenarios.spark_driver_faults import KILLS

SCENARIOS = list(scenarios.all_scenarios())


def test_every_idempotent_producer_row_of_the_book_has_a_scenario() -> None:
    assert [f"A{i}" for i in range(1, 9)] == [sid for sid in SCENARIOS if sid.startswith("A")]


def _a3_outage_is_unavailability_not_loss(pair: PairVerdict) -> None:
    example = pair.control.result.anomalies["lost"].examples[0]
    assert example["acked_at"], example  # names where the broker said the record was stored
    guarantee = pair.guarantee
    (producer,) = guarantee.context["workload"]
    timed_out = producer["errors"].get("_MSG_TIMED_OUT", 0)
    # The outage shows as sends that timed out (indeterminate, never lost) and a long
    # wait for acknowledgements.
    assert timed_out > 0 or producer["longest_ack_gap_s"] > 10, producer
    assert guarantee.result.stats["indeterminate"] == timed_out
    assert guarantee.count("lost") == 0


def _a4_restart_resent_unfinished_records(pair: PairVerdict) -> None:
    for v in (pair.control, pair.guarantee):
        first, second = v.context["workload"]
        assert first["exit"] == -9 and second["exit"] == 0, v.context["workload"]
    # The control's duplicates are its resends. The guarantee may rightly resend nothing:
    # killed after its last commit was sent, it finds that commit in the log (seen in CI).
    assert pair.control.context["workload"][1]["resent"] > 0, pair.control.context["workload"]


def _b2a_zombie_was_told_it_is_fenced(pair: PairVerdict) -> None:
    zombie = next(r for r in pair.guarantee.context["workload"] if r["app"] == "transformer-1")
    assert zombie["exit"] == 3 and zombie["fenced"]["error"] in ("_FENCED", "PRODUCER_FENCED"), zombie


def _b4_stall_is_about_the_transaction_timeout(pair: PairVerdict) -> None:
    timeout_s = pair.control.context["producer_config"]["transaction.timeout.ms"] / 1000
    (stall,) = pair.control.context["read_committed_stalls"]
    # The coordinator aborts after the timeout, at its next scan (every 10 s by default).
    assert 0.8 * timeout_s <= stall["seconds"] <= timeout_s + 15, stall


def _b3_every_aborted_record_and_only_those(pair: PairVerdict) -> None:
    assert pair.control.count("aborted_read") == 200  # every other transaction of 10, of 400 records
    assert pair.guarantee.result.stats["transactions_aborted"] == 20


def _b10_the_app_is_fenced_or_the_hijacker_refused(pair: PairVerdict) -> None:
    def report(v: VariantVerdict, app: str) -> dict[str, Any]:
        return next(r for r in v.context["workload"] if r["app"] == app)

    app, hijacker = report(pair.control, PRODUCER), report(pair.control, HIJACKER)
    assert app["exit"] == 3 and app["fenced"]["error"] in ("_FENCED", "PRODUCER_FENCED"), app
    assert hijacker["exit"] == 0 and "setup_error" not in hijacker, hijacker  # it got the id
    app, hijacker = report(pair.guarantee, PRODUCER), report(pair.guarantee, HIJACKER)
    assert hijacker["setup_error"]["error"] == "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", hijacker
    assert app["exit"] == 0 and "fenced" not in app and app["outcomes"]["ok"] == 1000, app


def _spark_driver_killed_mid_batch_twice(pair: PairVerdict) -> None:
    for v in (pair.control, pair.guarantee):
        kills = [f for f in v.context["faults"] if f["fault"] == "kill"]
        drivers = v.context["workload"]
        assert len(kills) >= KILLS and len(drivers) == len(kills) + 1, drivers
        assert [d["exit"] for d in drivers] == [-9] * len(kills) + [0], drivers


def _c1_repeats_only_the_batches_in_flight(pair: PairVerdict) -> None:
    _spark_driver_killed_mid_batch_twice(pair)
    # With its checkpoint a restarted driver re-runs only the batch a kill interrupted.
    bound = KILLS * scenarios.get("C1").workload.max_offsets_per_trigger  # type: ignore[union-attr]
    assert pair.guarantee.count("sink_repeated") <= bound, pair.guarantee.context["sink"]


def _streams_instance_killed_once(pair: PairVerdict) -> None:
    for v in (pair.control, pair.guarantee):
        assert [r["exit"] for r in v.context["workload"]] == [-9, 0], v.context["workload"]


def _d2_zombie_was_aborted_or_refused(pair: PairVerdict) -> None:
    zombie = next(r for r in pair.guarantee.context["workload"] if r["app"] == streams_app(1))
    fencing = {"INVALID_PRODUCER_EPOCH", "PRODUCER_FENCED", "CommitFailedException", "ILLEGAL_GENERATION"}
    assert zombie["outcomes"]["aborts"] > 0 or fencing & set(zombie["errors"]), zombie


def _d3_store_restored_from_the_changelog(pair: PairVerdict) -> None:
    _streams_instance_killed_once(pair)
    restarted = pair.guarantee.context["workload"][1]
    assert restarted["outcomes"]["restored"] > 0, restarted  # an empty state directory, filled from the changelog


def _d4_coordinator_killed_after_a_prepared_commit(pair: PairVerdict) -> None:
    # Research: no claim about what followed, only that the fault happened as written.
    for v in (pair.control, pair.guarantee):
        assert not v.context["fault_errors"], v.context["fault_errors"]
        (kill,) = [f for f in v.context["faults"] if f["fault"] == "kill"]
        assert kill["brokers"], kill
    assert pair.guarantee.context["sink"]["prepared_commits"] > 0, pair.guarantee.context["sink"]


EXTRA_CHECKS: dict[str, Callable[[PairVerdict], None]] = {
    "C1": _c1_repeats_only_the_batches_in_flight,
    "C2": _spark_driver_killed_mid_batch_twice,
    "C3": _spark_driver_killed_mid_batch_twice,
    "C4": _spark_driver_killed_mid_batch_twice,
    "A3": _a3_outage_is_unavailability_not_loss,
    "A4": _a4_restart_resent_unfinished_records,
    "B2a": _b2a_zombie_was_told_it_is_fenced,
    "B3": _b3_every_aborted_record_and_only_those,
    "B4": _b4_stall_is_about_the_transaction_timeout,
    "B10": _b10_the_app_is_fenced_or_the_hijacker_refused,
    "D1": _streams_instance_killed_once,
    "D2": _d2_zombie_was_aborted_or_refused,
    "D3": _d3_store_restored_from_the_changelog,
    "D4": _d4_coordinator_killed_after_a_prepared_commit,
}


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_pair(cluster: KafkaCluster, tmp_path, report, scenario_id: str) -> None:  # type: ignore[no-untyped-def]
    chosen = scenarios.get(scenario_id)
    pair = run_pair(cluster, chosen, tmp_path)
    report(f"{pair_summary(pair)}\n  report: {folder_of(pair) / REPORT}")
    # A research pair claims nothing: it must run to the end and report its findings.
    assert pair.outcome == ("reported" if chosen.research else "passed"), pair_summary(pair)
    if scenario_id in EXTRA_CHECKS:
        EXTRA_CHECKS[scenario_id](pair)


def test_a8_in_flight_above_five_is_refused_too(cluster: KafkaCluster, tmp_path) -> None:  # type: ignore[no-untyped-def]
    a8 = scenarios.get("A8")
    in_flight_6 = replace(a8.control, config={"acks": "all", "max.in.flight.requests.per.connection": 6})
    verdict = run_variant(cluster, a8, in_flight_6, tmp_path)
    assert verdict.passed, verdict.reasons
    (producer,) = verdict.context["workload"]
    assert "max.in.flight" in producer["setup_error"]["message"]
