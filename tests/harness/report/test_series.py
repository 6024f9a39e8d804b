"""The numbers the report's plots are drawn from, on small hand-written ledgers in the format
docs/history.md documents (``event,time_us,session,id,key,topic,partition,offset,txn,source,detail,end``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.report.run_folder import read_ledgers
from harness.report.series import fault_label, fault_spans, marks, place, rate, unavailable

T0 = 1_800_000_000.0  # wall clock of second 0
HEADER = "event,time_us,session,id,key,topic,partition,offset,txn,source,detail,end"


def us(seconds: float) -> int:
    return round((T0 + seconds) * 1e6)


def ledger(tmp_path: Path, name: str, *lines: str) -> Path:
    path = tmp_path / "ledgers" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join([HEADER, *lines]) + "\n")
    return path


def invoke(t: float, record: int) -> str:
    return f"invoke,{us(t)},1,{record},,orders,,,,,,."


def ok(t: float, record: int, offset: int, partition: int = 0) -> str:
    return f"ok,{us(t)},,{record},,,{partition},{offset},,,,."


def fail(t: float, record: int, error: str = "_MSG_TIMED_OUT", event: str = "fail") -> str:
    return f"{event},{us(t)},,{record},,,,,,,{error},."


def test_ack_and_error_rates_per_whole_second(tmp_path: Path) -> None:
    path = ledger(
        tmp_path,
        "producer-1.csv",
        invoke(0.1, 1),
        ok(0.15, 1, 0),
        invoke(0.2, 2),
        ok(0.9, 2, 1),
        invoke(1.2, 3),
        ok(1.5, 3, 2),
        invoke(2.0, 4),
        fail(2.1, 4),
        invoke(2.2, 5),
        fail(2.4, 5, event="info"),
        invoke(3.1, 6),
        ok(3.2, 6, 3),
    )
    r = rate(read_ledgers([path]), 0, T0, end=4.0)
    assert r.seconds.tolist() == [0, 1, 2, 3]
    assert r.acks.tolist() == [2, 1, 0, 1]
    assert r.errors.tolist() == [0, 0, 2, 0]  # fail and info alike


def test_rates_are_per_app(tmp_path: Path) -> None:
    a = ledger(tmp_path, "producer-1.csv", invoke(0.1, 1), ok(0.2, 1, 0))
    b = ledger(tmp_path, "transformer-1.csv", invoke(0.3, 2), ok(0.4, 2, 1), invoke(0.5, 3), ok(0.6, 3, 2))
    ledgers = read_ledgers([a, b])
    assert ledgers.apps == ["producer-1", "transformer-1"]
    assert rate(ledgers, 0, T0, 1.0).acks.tolist() == [1]
    assert rate(ledgers, 1, T0, 1.0).acks.tolist() == [2]


def test_unavailability_is_waiting_for_an_ack_while_sending() -> None:
    events = [
        (0.0, 1), (0.05, 0),  # sent, acknowledged at once
        (1.0, 1), (1.1, 1), (3.5, 0), (3.6, 0),  # 2.5 s until the next ack: unavailable
        (4.0, 1), (5.5, -1),  # the only outstanding send fails 1.5 s later: unavailable
        (5.6, 1), (6.2, 0),  # 0.6 s: too short to count
        (7.0, 1),  # never answered: unavailable until the process ends at 9.0
    ]  # fmt: skip
    times, kinds = (np.array(x) for x in zip(*events, strict=True))
    spans = unavailable(times, kinds, end=9.0)
    assert [(s.start, s.end) for s in spans] == [(1.0, 3.5), (4.0, 5.5), (7.0, 9.0)]
    assert spans[0].label == "no ack for 2.5s"
    assert "process ended" in spans[2].detail


def test_idle_time_is_not_unavailability() -> None:
    # Nothing outstanding between 0.1 and 5.0: the app was not sending.
    spans = unavailable(np.array([0.0, 0.1, 5.0, 5.1]), np.array([1, 0, 1, 0]), end=6.0)
    assert spans == []


def test_a_long_wait_with_acks_trickling_in_is_measured_from_the_last_ack() -> None:
    spans = unavailable(np.array([0.0, 0.1, 0.2, 2.0, 2.1]), np.array([1, 1, 1, 0, 0]), end=3.0)
    assert [(s.start, s.end) for s in spans] == [(0.0, 2.0)]  # the ack at 2.1 follows one 0.1 s before


def test_anomaly_marks_at_send_and_store_time(tmp_path: Path) -> None:
    path = ledger(
        tmp_path,
        "producer-1.csv",
        invoke(1.0, 7),
        invoke(1.5, 8),
        ok(6.0, 7, 100),  # acknowledged late: stored at 6.0
        invoke(2.0, 7),  # sent again (an app's resend): the mark stays at the first send
        fail(3.0, 8),  # never stored
    )
    m = marks(read_ledgers([path]), np.array([7, 8, 9]), T0)
    assert m.sent[:2] == pytest.approx([1.0, 1.5])
    assert m.stored[0] == pytest.approx(6.0)
    assert np.isnan(m.stored[1])
    assert np.isnan(m.sent[2]) and np.isnan(m.stored[2])  # an id no ledger sent (a phantom)


def test_fault_intervals_from_injected_to_healed_with_labels() -> None:
    records = [
        {
            "fault": "blackhole",
            "target": "leader of orders-0",
            "brokers": [3],
            "listeners": ["client"],
            "direction": "from_broker",
            "params": {"timeout": 0},
            "injected_at": T0 + 3.0,
            "healed_at": T0 + 9.0,
        },
        {
            "fault": "kill",
            "target": "app producer-1",
            "brokers": [],
            "listeners": ["client"],
            "direction": "both",
            "params": {},
            "injected_at": T0 + 4.0,
            "healed_at": None,  # never healed: it lasts to the end of the side
        },
        {
            "fault": "elect_preferred",
            "target": "replicas of orders-0",
            "brokers": [1, 2, 3],
            "listeners": ["client"],
            "direction": "both",
            "params": {},
            "injected_at": T0 + 5.0,
            "healed_at": T0 + 5.2,
        },
    ]
    spans = fault_spans(records, T0, end=20.0)
    assert [(s.start, s.end) for s in spans] == [
        pytest.approx((3.0, 9.0)),
        pytest.approx((4.0, 20.0)),
        pytest.approx((5.0, 5.0)),  # an operation is an instant
    ]
    assert spans[0].label == "blackhole leader of orders-0 → broker 3, client (from_broker)"
    assert spans[1].label == "kill app producer-1" and spans[1].detail == "never healed"
    assert spans[2].label == "elect_preferred replicas of orders-0 → brokers 1, 2, 3"


def test_cut_names_every_listener() -> None:
    record = {"fault": "cut", "target": "leader of t-0", "brokers": [2], "listeners": ["client", "replication"]}
    assert fault_label({**record, "direction": "both"}) == "cut leader of t-0 → broker 2, client+replication (both)"


def test_an_unacknowledged_offset_takes_the_time_of_the_ack_below_it() -> None:
    ack_offset = np.array([5, 0, 1, 2])  # acknowledgements come in any order
    ack_time = np.array([9.0, 1.0, 1.1, 1.2])
    times = place(ack_offset, ack_time, np.array([3, 5, 7, 0]))
    assert times.tolist() == [1.2, 9.0, 9.0, 1.0]
    assert np.isnan(place(ack_offset + 10, ack_time, np.array([3]))[0])  # below the first ack: no time


def test_lines_cut_short_or_malformed_are_skipped_and_counted(tmp_path: Path) -> None:
    path = ledger(
        tmp_path,
        "producer-1.2.csv",
        invoke(0.1, 1),
        "ok,notanumber,,1,,,0,0,,,,.",
        "bogus,1,,1,,,0,0,,,,.",
        ok(0.2, 1, 0),
    )
    path.write_text(path.read_text() + "ok,18000000003,,2,,,0")  # killed mid-line
    ledgers = read_ledgers([path])
    assert ledgers.apps == ["producer-1"] and set(ledgers.incarnation.tolist()) == {2}
    assert len(ledgers.id) == 2
    assert ledgers.ignored == {"producer-1.2.csv": 3}
    assert ledgers.topics[ledgers.topic[1]] == "orders"  # an ok line gets its invoke's topic
