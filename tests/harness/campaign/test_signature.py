"""A failing run's signature: what went wrong (data, an app stopped, both), its findings, the
errors that stopped apps and the versions; inputs an app never reached once it stopped are
told apart from inputs skipped while running."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from harness.campaign import signature
from harness.explore import trial

MakeRun = Callable[..., Path]  # tests/harness/campaign/conftest.py's make_run


def test_data_gone_wrong_with_every_app_running(tmp_path: Path, make_run: MakeRun) -> None:
    failure = signature.of_run(make_run(tmp_path / "r", counts={"eos_repeated": 12, "duplicate": 3}))
    s = failure.signature
    assert (s.effect, s.findings, s.errors) == (signature.DATA, ("duplicate", "eos_repeated"), ())
    assert (s.kafka, s.client) == ("4.4.0", "librdkafka 2.16.0")
    assert failure.apis == {"EndTxn"} and failure.roles == {"TxnCoordinator"}


def test_inputs_never_reached_by_a_stopped_app_are_not_data_lost(tmp_path: Path, make_run: MakeRun) -> None:
    run = make_run(tmp_path / "r", counts={"eos_missing": 2750, "app_fenced": 1}, stopped="INVALID_TXN_STATE")
    s = signature.of_run(run).signature
    assert s.effect == signature.STOPPED
    assert s.findings == (signature.UNREACHED,)
    assert s.errors == ("INVALID_TXN_STATE",)


def test_a_stopped_app_and_data_gone_wrong_say_both(tmp_path: Path, make_run: MakeRun) -> None:
    run = make_run(tmp_path / "r", counts={"torn_transaction": 1, "app_fenced": 1}, stopped="INVALID_TXN_STATE")
    assert signature.of_run(run).signature.effect == signature.BOTH


def test_a_stuck_call_is_the_error_that_stopped_the_app(tmp_path: Path, make_run: MakeRun) -> None:
    run = make_run(
        tmp_path / "r", counts={"client_stuck": 1, "read_committed_stall": 1}, stuck="send_offsets_to_transaction"
    )
    s = signature.of_run(run).signature
    assert s.effect == signature.STOPPED  # a reader stalled behind the open transaction: not data gone wrong
    assert s.errors == ("send_offsets_to_transaction stuck",)


def test_a_reader_s_stall_alone_is_a_client_observation(tmp_path: Path, make_run: MakeRun) -> None:
    s = signature.of_run(make_run(tmp_path / "r", counts={"read_committed_stall": 1})).signature
    assert s.effect == signature.CLIENT_ONLY


def test_a_request_the_fault_never_caught_is_not_a_faulted_api(tmp_path: Path, make_run: MakeRun) -> None:
    assert signature.of_run(make_run(tmp_path / "r", counts={"duplicate": 1}, matched=0)).apis == frozenset()


def test_failures_of_one_cause_share_a_signature_across_counts(tmp_path: Path, make_run: MakeRun) -> None:
    one = signature.of_run(make_run(tmp_path / "a", counts={"eos_repeated": 12})).signature
    other = signature.of_run(make_run(tmp_path / "b", counts={"eos_repeated": 4000})).signature
    assert one == other
    assert one != signature.of_run(make_run(tmp_path / "c", counts={"eos_repeated": 1}, kafka="4.3.1")).signature


def test_a_run_that_could_not_run_is_its_error(tmp_path: Path, make_run: MakeRun) -> None:
    run = make_run(tmp_path / "r", outcome=trial.ERROR, reasons=["broker 2 never came back: waited 90 s"])
    s = signature.of_run(run).signature
    assert (s.effect, s.errors) == (signature.NOT_RUN, ("broker 2 never came back",))


def test_an_app_that_never_got_going_says_where(tmp_path: Path, make_run: MakeRun) -> None:
    run = make_run(tmp_path / "r", counts={"txn_init_failed": 1}, setup=("_TIMED_OUT", "init_transactions"))
    s = signature.of_run(run).signature
    assert (s.effect, s.errors) == (signature.STOPPED, ("_TIMED_OUT at init_transactions",))


def test_a_stall_past_the_transaction_timeout_is_told_from_a_wait_for_the_producer(
    tmp_path: Path, make_run: MakeRun
) -> None:
    def stalled(name: str, seconds: float) -> tuple[str, ...]:
        run = make_run(tmp_path / name, counts={"read_committed_stall": 1})
        verdict = json.loads((run / trial.SIDE / "verdict.json").read_text())
        verdict["read_committed_stalls"] = [{"partition": "t-0", "seconds": seconds}]
        (run / trial.SIDE / "verdict.json").write_text(json.dumps(verdict))
        return signature.of_run(run).signature.findings

    assert stalled("waiting", 42.4) == ("read_committed_stall",)  # within the default 60 s timeout
    assert stalled("hanging", 120.0) == ("read_committed_stall (past the transaction timeout)",)


def test_a_failed_check_is_named_in_the_signature(tmp_path: Path, make_run: MakeRun) -> None:
    run = make_run(tmp_path / "r")
    verdict = json.loads((run / trial.SIDE / "verdict.json").read_text())
    verdict["checks"] = [{"name": "transactions_aborted == 20", "ok": False, "seen": "transactions_aborted 21"}]
    (run / trial.SIDE / "verdict.json").write_text(json.dumps(verdict))
    s = signature.of_run(run).signature
    assert (s.effect, s.findings) == (signature.CHECK, ("check: transactions_aborted == 20",))
