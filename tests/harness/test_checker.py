"""The checker on synthetic histories: each anomaly is found, a clean history gives none."""

from __future__ import annotations

import json
from pathlib import Path

from harness import ledger
from harness.checker import check_delivery
from harness.readback import ReadRecord


def write_ledger(path: Path, ops: list[dict]) -> Path:
    path.write_text("".join(json.dumps(op) + "\n" for op in ops))
    return path


def acked(n: int) -> list[dict]:
    ops = []
    for i in range(n):
        ops.append({"type": "invoke", "id": f"p-{i}", "t": 0})
        ops.append({"type": "ok", "id": f"p-{i}", "partition": 0, "offset": i, "t": 0})
    return ops


def stored(ids: list[str]) -> list[ReadRecord]:
    return [ReadRecord("t", 0, offset, op_id) for offset, op_id in enumerate(ids)]


def test_clean_history_has_no_anomalies(tmp_path: Path) -> None:
    h = ledger.read([write_ledger(tmp_path / "l", acked(10))])
    result = check_delivery(h, stored([f"p-{i}" for i in range(10)]))
    assert {k: f.count for k, f in result.anomalies.items()} == {"duplicate": 0, "lost": 0, "phantom": 0}
    assert result.stats["acked"] == 10


def test_duplicate_lost_and_phantom_are_each_found_with_examples(tmp_path: Path) -> None:
    h = ledger.read([write_ledger(tmp_path / "l", acked(5))])
    result = check_delivery(h, stored(["p-0", "p-1", "p-1", "p-2", "p-3", "zz-9"]))
    assert result.count("duplicate") == 1
    assert result.anomalies["duplicate"].examples[0]["at"] == ["t-0@1", "t-0@2"]
    assert result.count("lost") == 1 and result.anomalies["lost"].examples[0]["id"] == "p-4"
    assert result.count("phantom") == 1 and result.anomalies["phantom"].examples[0]["id"] == "zz-9"


def test_indeterminate_sends_are_never_lost_and_count_as_recovered_when_read(tmp_path: Path) -> None:
    ops = [
        *acked(2),
        {"type": "invoke", "id": "p-8", "t": 0},
        {"type": "invoke", "id": "p-9", "t": 0},
        {"type": "info", "id": "p-9", "error": "_MSG_TIMED_OUT", "t": 0},
    ]
    h = ledger.read([write_ledger(tmp_path / "l", ops)])
    result = check_delivery(h, stored(["p-0", "p-1", "p-9"]))
    assert result.count("lost") == 0
    assert result.stats["indeterminate"] == 2
    assert result.stats["recovered"] == 1


def test_a_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    path = write_ledger(tmp_path / "l", acked(3))
    with path.open("a") as f:
        f.write('{"type": "invoke", "id": "p-')  # the process died mid-line
    h = ledger.read([path])
    result = check_delivery(h, stored(["p-0", "p-1", "p-2"]))
    assert h.torn_lines == ["l:7"]
    assert result.count("lost") == 0
    assert "torn" in result.notes[0]
