"""Histories the checker once judged wrong, each small and written through the documented formats.

Four classes, found by histories written independently of ``synthetic``: a crash on a view
with no rows, a stored value that decoded to a reserved id, one offset counted as a
duplicate, and a definite failure of a resend outweighing an earlier attempt of unknown
outcome. The counterexamples the property tests found are kept in ``test_properties``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.checker.catalogue import ANOMALIES
from harness.checker.check import check
from harness.checker.result import CheckOptions, CheckResult
from harness.history import loading
from harness.history.format import ISOLATIONS
from harness.history.records import MARKER_ID, UNDECODABLE_ID, decode_id, encode_value, make_id
from tests.harness.checker.histories import BASE_US, Ledger, ReadRow, row, write_view

T = "t"
X, Y, Z = make_id(1, 0), make_id(1, 1), make_id(1, 2)


def _check(
    root: Path,
    ledgers: list[Ledger],
    committed: list[ReadRow] | None,
    uncommitted: list[ReadRow] | None,
    read: dict[str, list[int]],
    view: str = "read_committed",
    topic_partitions: dict[str, int] | None = None,
) -> CheckResult:
    paths = [ledger.write(root / "ledgers") for ledger in ledgers]
    for isolation, rows in (("read_committed", committed), ("read_uncommitted", uncommitted)):
        if rows is not None:
            write_view(root / "reads", isolation, rows, read, topic_partitions)
    return check(loading.load(paths, root / "reads"), CheckOptions(view=view))


def _found(result: CheckResult) -> dict[str, int]:
    return {name: result.count(name) for name in ANOMALIES if result.count(name)}


def _acked(*ids: int, partition: int = 0) -> Ledger:
    """Session 1 sends ``ids`` to T, each acknowledged at offsets 0, 1, ... of ``partition``."""
    lines: list[dict[str, object] | bytes] = [row("session", BASE_US, session=1)]
    for offset, i in enumerate(ids):
        lines += [
            row("invoke", BASE_US + 1 + 2 * offset, session=1, id=i, topic=T),
            row("ok", BASE_US + 2 + 2 * offset, id=i, partition=partition, offset=offset),
        ]
    return Ledger("producer-1", lines)


# --- 1. a view with no rows --------------------------------------------------------------


@pytest.mark.parametrize("view", ISOLATIONS)
def test_every_acknowledged_record_lost_is_reported_not_a_crash(view: str, tmp_path: Path) -> None:
    result = _check(tmp_path, [_acked(X, Y, Z)], [], [], {T: [0, 1]}, view)
    assert _found(result) == {"lost": 3}


def test_a_consumer_of_partitions_that_hold_nothing_sees_a_clean_history(tmp_path: Path) -> None:
    result = _check(tmp_path, [_acked(X, Y)], [], [], {T: [1]})
    assert _found(result) == {}


def test_an_empty_view_beside_a_full_one_is_the_readers_disagreeing(tmp_path: Path) -> None:
    rows = [(T, 0, 0, X), (T, 0, 1, Y)]
    result = _check(tmp_path, [_acked(X, Y)], rows, [], {T: [0]})
    # Each read_committed row unmatched, and each acknowledgement unconfirmed while its id was read.
    assert _found(result) == {"inconsistent_offset": 4}


# --- 2. no decodable value is a reserved id ------------------------------------------------


@pytest.mark.parametrize(
    ("head", "decoded"),
    [
        (b"0", 0),
        (b"12", 12),
        (b"%d" % make_id(7, 3), make_id(7, 3)),
        (b"9223372036854775807", 2**63 - 1),
        (b"-1", UNDECODABLE_ID),
        (b"-2", UNDECODABLE_ID),
        (b"+5", UNDECODABLE_ID),
        (b" 5", UNDECODABLE_ID),
        (b"5 ", UNDECODABLE_ID),
        (b"1_000", UNDECODABLE_ID),
        (b"007", UNDECODABLE_ID),
        (b"9223372036854775808", UNDECODABLE_ID),
        (b"\xd9\xa1", UNDECODABLE_ID),  # an Arabic-Indic one: a digit to int(), not to the rule
        (b"", UNDECODABLE_ID),
        (b"abc", UNDECODABLE_ID),
    ],
)
def test_decodable_ids_are_canonical_non_negative_int64(head: bytes, decoded: int) -> None:
    assert decode_id(head + b"|padding") == decoded
    assert decode_id(head) == decoded  # no separator: the whole value is the head


def test_a_value_without_an_id_decodes_to_undecodable() -> None:
    assert decode_id(None) == decode_id(b"") == UNDECODABLE_ID
    assert decode_id(encode_value(X, 3)) == X  # shorter than its head: the head is kept whole


def test_a_value_that_looks_like_the_marker_id_is_a_phantom(tmp_path: Path) -> None:
    stray = decode_id(b"-1|a record nobody sent")
    assert stray != MARKER_ID
    rows = [(T, 0, 0, X), (T, 0, 1, stray)]
    result = _check(tmp_path, [_acked(X)], rows, rows, {T: [0]})
    assert _found(result) == {"phantom": 1}


def test_a_record_stored_with_the_marker_id_outside_the_markers_view_is_a_phantom(tmp_path: Path) -> None:
    """Only the read_uncommitted read-back writes marker rows; a -1 anywhere else is a stored record that
    carries no harness id (a reader that decoded it so), and counts like any other."""
    committed = [(T, 0, 0, X), (T, 0, 1, MARKER_ID)]
    result = _check(tmp_path, [_acked(X)], committed, None, {T: [0]})
    assert _found(result) == {"phantom": 1}
    assert result.stats["read_committed_records"] == 2
    assert result.stats["markers"] == 0


# --- 3. one offset read twice is not a duplicate ---------------------------------------------


@pytest.mark.parametrize(("in_committed", "in_uncommitted"), [(True, False), (False, True), (True, True)])
def test_an_offset_read_twice_is_a_read_back_fault_not_a_duplicate(
    in_committed: bool, in_uncommitted: bool, tmp_path: Path
) -> None:
    rows = [(T, 0, 0, X), (T, 0, 1, Y)]
    again = [(T, 0, 1, Y)]
    committed = rows + again * in_committed
    uncommitted = again * in_uncommitted + rows  # the repeat first: file order must not matter
    result = _check(tmp_path, [_acked(X, Y)], committed, uncommitted, {T: [0]})
    assert _found(result) == {"inconsistent_offset": in_committed + in_uncommitted}
    assert result.stats["read_committed_records"] == 2  # records read: a repeat is no second record


def test_one_offset_holding_two_ids_is_one_fault_and_each_id_read_there(tmp_path: Path) -> None:
    committed = [(T, 0, 0, X), (T, 0, 1, Y), (T, 0, 1, X)]
    uncommitted = [(T, 0, 0, X), (T, 0, 1, Y)]
    result = _check(tmp_path, [_acked(X, Y)], committed, uncommitted, {T: [0]})
    # Offset 1 is a fault, and read_uncommitted did not read X there; what read_committed
    # says it read stands, each id once per offset: X at two offsets is a duplicate, and Y
    # was read (not lost).
    assert _found(result) == {"inconsistent_offset": 2, "duplicate": 1}


# --- a send of unknown partition, in a topic read in part ---------------------------------------


def _open_transaction() -> Ledger:
    """X acknowledged in partition 0, Y in flight (no ack: partition unknown) when the session was fenced."""
    lines: list[dict[str, object] | bytes] = [
        row("session", BASE_US, session=1, detail="tx-1"),
        row("txn-begin", BASE_US + 1, session=1, txn=0),
        row("invoke", BASE_US + 2, session=1, id=X, topic=T, txn=0),
        row("ok", BASE_US + 3, id=X, partition=0, offset=0),
        row("invoke", BASE_US + 4, session=1, id=Y, topic=T, txn=0),
        row("fenced", BASE_US + 5, session=1, detail="PRODUCER_FENCED"),
    ]
    return Ledger("producer-1", lines)


@pytest.mark.parametrize(
    ("partitions", "found"), [(2, {}), (1, {"torn_transaction": 1}), (None, {"torn_transaction": 1})]
)
def test_a_send_of_unknown_partition_counts_only_where_its_whole_topic_was_read(
    partitions: int | None, found: dict[str, int], tmp_path: Path
) -> None:
    """Only partition 0 of T read (a consumer of part of it), by a reader that sees uncommitted data: Y
    may be in partition 1. Where the read-back says T has one partition, Y is surely missing; where
    it does not say (files from before it did), any partition read counts as the topic read."""
    rows = [(T, 0, 0, X)]
    counts = None if partitions is None else {T: partitions}
    result = _check(tmp_path, [_open_transaction()], [], rows, {T: [0]}, "read_uncommitted", counts)
    assert _found(result) == found


# --- 4. outcomes across incarnations ---------------------------------------------------------


def _incarnations(*outcomes: tuple[str, ...]) -> list[Ledger]:
    """Session 1 sends X once per incarnation, one ledger file each; ``outcomes`` are the lines
    after each invoke: ("ok", offset), ("fail",), ("info",) or () for none (in flight at a crash)."""
    ledgers = []
    for n, outcome in enumerate(outcomes, start=1):
        t = BASE_US + 100 * n
        lines: list[dict[str, object] | bytes] = [
            row("session", t, session=1),
            row("invoke", t + 1, session=1, id=X, topic=T),
        ]
        if outcome[:1] == ("ok",):
            lines.append(row("ok", t + 2, id=X, partition=0, offset=outcome[1]))
        elif outcome:
            lines.append(row(outcome[0], t + 2, id=X, detail="ERR"))
        ledgers.append(Ledger("producer-1" if n == 1 else f"producer-1.{n}", lines))
    return ledgers


@pytest.mark.parametrize(
    ("attempts", "read", "found", "failed", "indeterminate"),
    [
        # The case: timed out but written, then a resend that surely failed.
        ([("info",), ("fail",)], True, {}, 0, 1),
        ([("fail",), ("info",)], True, {}, 0, 1),
        ([(), ("fail",)], True, {}, 0, 1),  # in flight at a crash, then failed
        ([("fail",), ()], True, {}, 0, 1),
        ([("fail",), ("fail",)], True, {"aborted_read": 1}, 1, 0),  # every attempt failed
        ([("fail",), ("ok", 0)], True, {}, 0, 0),  # an ack beats everything
        ([("fail",), ("ok", 0)], False, {"lost": 1}, 0, 0),
        ([("info",), ("ok", 0), ("fail",)], False, {"lost": 1}, 0, 0),
        ([("info",), ("info",)], False, {}, 0, 1),
    ],
)
def test_outcome_precedence_across_incarnations(
    attempts: list[tuple[str, ...]], read: bool, found: dict[str, int], failed: int, indeterminate: int, tmp_path: Path
) -> None:
    rows = [(T, 0, 0, X)] if read else []
    result = _check(tmp_path, _incarnations(*attempts), rows, rows, {T: [0]})
    assert _found(result) == found
    assert (result.stats["failed"], result.stats["indeterminate"]) == (failed, indeterminate)


def test_one_attempt_written_twice_in_one_incarnation_needs_two_failures(tmp_path: Path) -> None:
    """An app that sends one id twice (the duplicate_every bug): one failure leaves the other attempt open."""
    lines: list[dict[str, object] | bytes] = [
        row("session", BASE_US, session=1),
        row("invoke", BASE_US + 1, session=1, id=X, topic=T),
        row("invoke", BASE_US + 2, session=1, id=X, topic=T),
        row("fail", BASE_US + 3, id=X, detail="ERR"),
    ]
    rows = [(T, 0, 0, X)]
    result = _check(tmp_path, [Ledger("producer-1", lines)], rows, rows, {T: [0]})
    assert _found(result) == {}
    lines.append(row("fail", BASE_US + 4, id=X, detail="ERR"))
    result = _check(tmp_path / "again", [Ledger("producer-1", lines)], rows, rows, {T: [0]})
    assert _found(result) == {"aborted_read": 1}


def _transactional(*txns: tuple[int, list[str]]) -> list[Ledger]:
    """Session 1 (transactional) sends X in transaction ``txn`` of each incarnation, which ends with ``ends``."""
    ledgers = []
    for n, (txn, ends) in enumerate(txns, start=1):
        t = BASE_US + 100 * n
        lines: list[dict[str, object] | bytes] = [
            row("session", t, session=1, detail="tx-1"),
            row("txn-begin", t + 1, session=1, txn=txn),
            row("invoke", t + 2, session=1, id=X, topic=T, txn=txn),
            row("ok", t + 3, id=X, partition=0, offset=2 * n - 2),
        ]
        lines += [row(f"txn-{end}", t + 4 + i, session=1, txn=txn) for i, end in enumerate(ends)]
        ledgers.append(Ledger("producer-1" if n == 1 else f"producer-1.{n}", lines))
    return ledgers


@pytest.mark.parametrize(
    ("txns", "found"),
    [
        # Commit asked, outcome unknown (it committed); the resend's transaction aborted: nothing failed for sure.
        ([(0, ["commit", "unknown"]), (1, ["aborted"])], {}),
        ([(0, ["commit"]), (1, ["aborted"])], {}),  # commit asked, then a crash
        ([(0, []), (1, ["aborted"])], {}),  # a crash mid-transaction (the broker may not have aborted it yet)
        ([(0, ["aborted"]), (1, ["aborted"])], {"aborted_read": 1}),  # both surely aborted
        ([(0, ["aborted"]), (1, ["commit", "committed"])], {}),
    ],
)
def test_transaction_outcomes_across_incarnations(
    txns: list[tuple[int, list[str]]], found: dict[str, int], tmp_path: Path
) -> None:
    # Each attempt stored, then its transaction's marker; read_committed shows the first attempt's X.
    rows = [(T, 0, 0, X)]
    uncommitted = [*rows, (T, 0, 1, MARKER_ID), (T, 0, 2, X), (T, 0, 3, MARKER_ID)]
    result = _check(tmp_path, _transactional(*txns), rows, uncommitted, {T: [0]})
    assert _found(result) == found


def test_a_committed_earlier_attempt_must_be_seen(tmp_path: Path) -> None:
    result = _check(tmp_path, _transactional((0, ["commit", "committed"]), (1, ["aborted"])), [], [], {T: [0]})
    assert _found(result) == {"lost": 1}


def test_a_resent_record_stored_late_is_not_out_of_order(tmp_path: Path) -> None:
    """X times out in the first incarnation (not written), Y is acknowledged; the second resends X, stored after Y."""
    first = [
        row("session", BASE_US, session=1),
        row("invoke", BASE_US + 1, session=1, id=X, topic=T),
        row("invoke", BASE_US + 2, session=1, id=Y, topic=T),
        row("ok", BASE_US + 3, id=Y, partition=0, offset=0),
        row("info", BASE_US + 4, id=X, detail="TIMED_OUT"),
    ]
    second = [
        row("session", BASE_US + 10, session=1),
        row("invoke", BASE_US + 11, session=1, id=X, topic=T),
        row("ok", BASE_US + 12, id=X, partition=0, offset=1),
        row("invoke", BASE_US + 13, session=1, id=Z, topic=T),
        row("ok", BASE_US + 14, id=Z, partition=0, offset=2),
    ]
    rows = [(T, 0, 0, Y), (T, 0, 1, X), (T, 0, 2, Z)]
    ledgers = [Ledger("producer-1", first), Ledger("producer-1.2", second)]
    assert _found(_check(tmp_path, ledgers, rows, rows, {T: [0]})) == {}
    swapped = [(T, 0, 0, Z), (T, 0, 1, X), (T, 0, 2, Y)]  # Z before Y: both sent once, so that is order
    second[-1]["offset"], first[3]["offset"] = 0, 2
    assert _found(_check(tmp_path / "swapped", ledgers, swapped, swapped, {T: [0]})) == {"order": 1}
