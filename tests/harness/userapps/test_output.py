"""A user app's outputs judged per input from read-backs written as the harness writes them: each
committed input named exactly once, none from an aborted transaction; an output that names no
input, or one never written, is a breach of the contract, said in one line."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from harness.history.format import SCHEMA, VALUE_SCHEMA, view_path
from harness.history.records import MARKER_ID, SOURCE_HEADER, encode_value, make_id
from harness.userapps.output import AppOutput

A, B, C, D = (make_id(1, seq) for seq in range(4))  # D's transaction aborted


def _write(path: Path, schema: pa.Schema, rows: list[tuple[object, ...]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    columns = {name: [r[i] if i < len(r) else None for r in rows] for i, name in enumerate(schema.names)}
    pq.write_table(pa.table(columns, schema=schema), path)


def _run(
    tmp_path: Path, committed_outputs: list[tuple[object, ...]], aborted_outputs: list[tuple[object, ...]]
) -> dict:
    inputs = [("in", 0, 0, A, "k0"), ("in", 0, 1, B, "k1"), ("in", 1, 0, C, "k2")]
    _write(view_path(tmp_path / "reads", "read_committed"), SCHEMA, inputs)
    marker = ("in", 1, 2, MARKER_ID, None)
    _write(view_path(tmp_path / "reads", "read_uncommitted"), SCHEMA, [*inputs, ("in", 1, 1, D, "k3"), marker])
    _write(view_path(tmp_path / "sink-reads", "read_committed"), VALUE_SCHEMA, committed_outputs)
    out_marker = ("out", 0, 99, MARKER_ID, None, None, None)
    everything = [*committed_outputs, *aborted_outputs, out_marker]
    _write(view_path(tmp_path / "sink-reads", "read_uncommitted"), VALUE_SCHEMA, everything)
    return AppOutput("in", "out", tmp_path).findings(None, 5)


def _out(offset: int, value: bytes, source: int | None = None) -> tuple[object, ...]:
    headers = [(SOURCE_HEADER, b"%d" % source)] if source is not None else []
    return ("out", 0, offset, -2, "k", value, headers)


def test_each_input_is_counted_by_the_outputs_naming_it(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        [
            _out(0, b"enriched", source=A),  # by its header
            _out(1, encode_value(B, 30)),  # by its value's head
            _out(2, encode_value(B, 30).upper()),  # B again: repeated
            _out(3, b"x", source=D),  # from an aborted input
        ],
        [_out(4, encode_value(C, 10))],  # C's output aborted: missing for read_committed readers
    )
    assert found["contract"] == ""
    assert (found["sink_missing"]["count"], found["sink_repeated"]["count"], found["sink_aborted"]["count"]) == (
        1,
        1,
        1,
    )
    assert found["sink_missing"]["examples"] == [{"input": C, "rows": 0, "outputs": [], "input_at": "in-1@0"}]
    assert found["sink_repeated"]["examples"] == [{"input": B, "rows": 2, "outputs": ["out-0@1", "out-0@2"]}]
    assert found["sink_aborted"]["examples"] == [{"input": D, "outputs": ["out-0@3"]}]
    assert found["as_read_uncommitted"] == "sink_missing 0, sink_repeated 1, sink_aborted 1"
    assert (found["outputs"], found["group_committed"]) == (4, None)


def test_a_clean_output_has_nothing_to_report(tmp_path: Path) -> None:
    found = _run(tmp_path, [_out(i, encode_value(x, 20)) for i, x in enumerate((A, B, C))], [])
    assert [found[name]["count"] for name in ("sink_missing", "sink_repeated", "sink_aborted")] == [0, 0, 0]


def test_an_output_naming_no_input_is_a_breach_of_the_contract(tmp_path: Path) -> None:
    found = _run(tmp_path, [_out(0, encode_value(A, 20))], [_out(7, b"hello world")])  # even an aborted one
    assert found["contract"].startswith("output out-0@7 names no input (value b'hello world')")
    assert "sink_missing" not in found


def test_an_output_naming_an_input_never_written_is_a_breach_of_the_contract(tmp_path: Path) -> None:
    found = _run(tmp_path, [_out(0, b"x", source=make_id(9, 9))], [])
    assert found["contract"].startswith(f"output out-0@0 names input {make_id(9, 9)}, which the harness never wrote")
