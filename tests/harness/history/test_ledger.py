"""The ledger writer: the documented bytes (Python's csv, line by line) written in batches, and
which lines are in the file when a call returns (what a SIGKILL would leave)."""

from __future__ import annotations

import csv
import io
from itertools import count
from pathlib import Path

import pytest

from harness.history import columns, ledger, loading
from harness.history.ledger import COLUMNS, END_MARK, LedgerWriter
from tests.harness.history import golden

# Every character the csv module quotes for (a comma, a quote, a line feed), one it does not
# (a carriage return), a non-ASCII one and an empty text.
AWKWARD = ["plain", "a,b", 'say "hi"', "two\nlines", "cr\ronly", "ünï", ""]


def csv_line(event: str, t: int, **fields: object) -> str:
    """One event as ``csv.writer`` writes it: the format ``harness.history.ledger`` documents."""
    out = io.StringIO()
    values = [fields.get(c) for c in COLUMNS[2:-1]]
    csv.writer(out, lineterminator="\n").writerow([event, t, *("" if v is None else v for v in values), END_MARK])
    return out.getvalue()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> count:
    ticks = count(1_700_000_000_000_000)
    monkeypatch.setattr(ledger, "now_us", lambda: next(ticks))
    return ticks


def test_every_event_is_byte_for_byte_the_csv_line(tmp_path: Path, clock: count) -> None:
    path = tmp_path / "p.csv"
    w = LedgerWriter(path)
    expected = [",".join(COLUMNS) + "\n"]
    t = 1_700_000_000_000_000
    for n, text in enumerate(AWKWARD):
        w.session(n, text or None)
        expected.append(csv_line("session", t, session=n, detail=text))
        t += 1
        w.invokes(n, [n << 32, (n << 32) + 1], text, [text, None], txn=n, sources=[7, None], partition=2)
        for record_id, key, source in ((n << 32, text, 7), ((n << 32) + 1, None, None)):
            fields = {"session": n, "id": record_id, "key": key, "topic": text, "partition": 2, "txn": n}
            expected.append(csv_line("invoke", t, **fields, source=source))
        t += 1
        w.ok(n << 32, 1, 10**12 + n)
        w.fail((n << 32) + 1, text)
        w.info((n << 32) + 2, text)
        expected += [
            csv_line("ok", t, id=n << 32, partition=1, offset=10**12 + n),
            csv_line("fail", t + 1, id=(n << 32) + 1, detail=text),
            csv_line("info", t + 2, id=(n << 32) + 2, detail=text),
        ]
        t += 3
        for state in ("begin", "commit", "committed", "aborted", "unknown"):
            w.txn(state, n, 5, text or None)
            expected.append(csv_line(f"txn-{state}", t, session=n, txn=5, detail=text))
            t += 1
        w.fenced(n, text)
        expected.append(csv_line("fenced", t, session=n, detail=text))
        t += 1
        w.offsets_commit(n)
        expected.append(csv_line("offsets-commit", t, session=n))
        t += 1
        w.offsets_committed(n)
        expected.append(csv_line("offsets-committed", t, session=n))
        t += 1
    w.close()
    assert path.read_bytes() == "".join(expected).encode()


def test_invoke_lines_are_in_the_file_when_the_call_returns_outcomes_at_the_next_write(
    tmp_path: Path, clock: count
) -> None:
    path = tmp_path / "p.csv"
    w = LedgerWriter(path)
    header = path.read_bytes()
    assert header == (",".join(COLUMNS) + "\n").encode()

    w.invokes(1, [1, 2, 3], "t")
    after_invokes = path.read_bytes()
    assert after_invokes.count(b"\ninvoke,") == 3  # all three, before any produce() could run

    w.ok(1, 0, 0)
    w.info(2, "REQUEST_TIMED_OUT")
    assert path.read_bytes() == after_invokes  # collected, not written: a kill here leaves 1 and 2 indeterminate
    w.flush()
    assert path.read_bytes().count(b"\n") == 1 + 3 + 2

    w.fail(3, "MSG_SIZE_TOO_LARGE")
    w.txn("commit", 1, 0)  # a line written at once takes the collected ones with it, in order
    events = [line.split(",")[0] for line in path.read_text().splitlines()[1:]]
    assert events == ["invoke", "invoke", "invoke", "ok", "info", "fail", "txn-commit"]
    w.close()


def test_a_reopened_ledger_appends_without_a_second_header(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    for session in (1, 2):
        w = LedgerWriter(path)
        w.session(session)
        w.invokes(session, [session << 32], "t", ["k"])
        w.ok(session << 32, 0, session)
        w.close()
    h = loading.load([path], None)
    assert h.sends.outcome.tolist() == [columns.OK, columns.OK]
    assert path.read_text().count("event,") == 1


def test_keys_or_sources_that_do_not_match_the_ids_are_refused(tmp_path: Path) -> None:
    w = LedgerWriter(tmp_path / "p.csv")
    with pytest.raises(ValueError):
        w.invokes(1, [1, 2], "t", keys=["k0"])
    with pytest.raises(ValueError):
        w.invokes(1, [1], "t", sources=[1, 2])
    w.close()


# --- the golden ledgers: what each app kind writes, byte for byte --------------------------------


@pytest.mark.parametrize("kind", golden.KINDS)
def test_the_python_writer_writes_the_golden_ledger(kind: str, tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.csv"
    golden.play(kind, path)
    assert path.read_bytes() == golden.expected(kind)


@pytest.mark.parametrize("kind", golden.KINDS)
def test_every_line_of_a_golden_ledger_is_read_and_used(kind: str) -> None:
    lines = ledger.read(golden.script(kind).with_suffix(".csv"))
    assert lines.ignored == 0
    assert lines.table.num_rows == golden.expected(kind).count(b"\n") - 1
    assert -2 in lines.table["source"].to_pylist() or kind != "transformer"  # an input without a harness id


# --- the reading rules -----------------------------------------------------------------------------

WELL_FORMED = ["0", "7", "-2", "-0", "05", str((1 << 63) - 1), str(-(1 << 63))]
MALFORMED = [" 5", "5 ", "+5", "--5", "5-", "1e3", "0x10", "0X1F", "\uff15", "\u00b2", "-", "1,0"]
MALFORMED += [str(1 << 63), str(-(1 << 63) - 1)]


def test_the_integer_rule() -> None:
    assert all(ledger.is_integer(v) for v in WELL_FORMED)
    assert not any(ledger.is_integer(v) for v in MALFORMED)


@pytest.mark.parametrize("value", WELL_FORMED + MALFORMED)
def test_the_fast_and_the_slow_reader_agree_on_an_integer(value: str, tmp_path: Path) -> None:
    """A piece of well-formed lines takes the fast reader; one bad line sends it down the slow path. Either
    way a line is used exactly when ``refusal`` says so."""
    good = csv_line("ok", 1, id=1, partition=0, offset=3)
    odd = csv_line("ok", 2, id=2, partition=0, offset=value)
    for extra in ("", "garbage\n"):  # alone, and beside a line only the slow path can refuse
        path = tmp_path / "p.csv"
        path.write_text(",".join(COLUMNS) + "\n" + good + odd + extra)
        lines = ledger.read(path)
        used = ledger.refusal(next(csv.reader([odd]))) is None
        assert lines.table.num_rows - lines.dropped == 1 + used, (value, extra)
        assert lines.ignored == (not used) + bool(extra), (value, extra)


def test_the_runner_counts_whole_lines_and_finds_where_a_batch_stands() -> None:
    head = (",".join(COLUMNS) + "\n").encode()
    invoke = csv_line("invoke", 1, session=1, id=1, topic="t").encode()
    commit = csv_line("offsets-commit", 2, session=1).encode()
    ok = csv_line("ok", 3, id=1, partition=0, offset=0).encode()
    assert ledger.count(head + invoke + invoke, "invoke") == 2
    assert ledger.count(head + invoke + invoke[:10], "invoke") == 1  # the last one is still being written
    assert ledger.last_of(b"cut" + b"\n" + invoke + ok, ledger.WRITTEN_AT_ONCE)[0] == "invoke"
    assert ledger.last_of(b"cut" + b"\n" + invoke + commit + ok, ledger.WRITTEN_AT_ONCE)[0] == "offsets-commit"
    assert ledger.last_of(b"cut" + b"\n" + invoke + commit[:8], ledger.WRITTEN_AT_ONCE)[0] == "invoke"
