"""The order enricher against a real three-broker cluster under faults, with the kafka-eos-harness
plugin's fixtures. The fixed app must pass; each bug must be caught (the test expects the
violation, so this suite is green exactly when the harness catches the bug)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from harness.faults import App, Brokers, blackhole, kill
from harness.pytest_plugin import APP_LINKS, ExactlyOnceViolation

APP = [sys.executable, str(Path(__file__).resolve().parents[1] / "src" / "eos_app.py")]
ORDERS = 300


def test_exactly_once_through_a_crash_and_a_cut_link(kafka_cluster, eos_input, kafka_app, faults, assert_exactly_once):
    orders = eos_input("orders", ORDERS)
    enriched = kafka_cluster.create_topic("orders-enriched")
    app = kafka_app(APP, orders, enriched)
    app.wait_for_outputs(ORDERS // 4)
    with faults(kill(App(app.name))):  # SIGKILL mid-stream; started again when the block ends
        time.sleep(1)
    with faults(blackhole(Brokers(), listener=APP_LINKS)):  # the app's links go silent for 3 s
        time.sleep(3)
    checked = assert_exactly_once(input=orders, output=enriched)
    assert checked.report is not None and checked.report.exists()


def test_offsets_committed_outside_the_transaction_are_caught(
    kafka_cluster, eos_input, kafka_app, faults, assert_exactly_once
):
    orders = eos_input("orders", ORDERS)
    enriched = kafka_cluster.create_topic("orders-enriched")
    app = kafka_app([*APP, "--bug", "offsets-outside-txn"], orders, enriched)
    app.wait_for_outputs(ORDERS // 4)
    with faults(kill(App(app.name))):
        time.sleep(1)
    with pytest.raises(ExactlyOnceViolation) as caught:
        assert_exactly_once(input=orders, output=enriched)
    # librdkafka auto-commits what the app has read on a timer: the restarted app starts behind
    # its committed outputs (orders enriched twice) or ahead of them (orders never enriched).
    counts = caught.value.counts
    assert counts["sink_repeated"] + counts["sink_missing"] > 0, str(caught.value)


def test_faults_after_the_app_caught_up_prove_nothing(kafka_cluster, eos_input, kafka_app, faults, assert_exactly_once):
    orders = eos_input("orders", ORDERS)
    enriched = kafka_cluster.create_topic("orders-enriched")
    app = kafka_app(APP, orders, enriched)
    app.wait_caught_up()  # every order's offset committed: nothing left in hand
    with faults(kill(App(app.name))):
        time.sleep(1)
    # No fault hit the app with work in hand: the check proves nothing, and says so.
    with pytest.raises(ExactlyOnceViolation, match="inconclusive") as caught:
        assert_exactly_once(input=orders, output=enriched)
    assert "no fault hit the app with work in hand" in str(caught.value), str(caught.value)
    assert sum(caught.value.counts.values()) == 0


def test_reading_aborted_orders_is_caught(kafka_cluster, eos_input, kafka_app, assert_exactly_once):
    orders = eos_input("orders", ORDERS)
    enriched = kafka_cluster.create_topic("orders-enriched")
    kafka_app([*APP, "--bug", "read-uncommitted"], orders, enriched)
    with pytest.raises(ExactlyOnceViolation, match="sink_aborted") as caught:
        assert_exactly_once(input=orders, output=enriched)
    assert caught.value.counts["sink_aborted"] > 0, str(caught.value)
