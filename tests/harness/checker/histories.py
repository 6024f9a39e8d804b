"""Histories for the checker's tests, written through the documented formats only.

The checker reads ledger CSV files (``harness.history.ledger``) and read-back Parquet files
(``harness.history.readback``, with the ``partitions_read`` schema metadata); everything here
ends as exactly those files, so the tests prove what a real run's files would show, not what
a hand-built array would.

Two layers:

- **files**: ``Ledger`` (rows and raw garbage lines of one ledger file) and ``write_view`` (one
  read-back file), for hand-made regression histories;
- **a world** (``build``): apps of every workload kind run against a simulated log, restarting
  and resending as the harness's apps do, so that the history is clean by construction under
  the chosen consumer view; then anomalies are injected, each with the count the checker must
  report. ``Spec`` is a handful of plain values (kinds, view, seed, injections, ...), so a
  failing case is kept as one ``@example(Spec(...))``; ``specs()`` is its Hypothesis strategy.
"""

from __future__ import annotations

import csv
import io
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from harness.history import columns
from harness.history.ledger import COLUMNS, END_MARK
from harness.history.readback import SCHEMA
from harness.history.records import MARKER_ID, decode_id, encode_value, make_id

BASE_US = 1_700_000_000_000_000

# --- files ----------------------------------------------------------------------------------


def row(event: str, time_us: int, **fields: object) -> dict[str, object]:
    """One ledger line; a field not given is empty."""
    unknown = set(fields) - set(COLUMNS)
    assert not unknown, unknown
    return {"event": event, "time_us": time_us, **fields}


@dataclass
class Ledger:
    """One ledger file: a header (unless ``header`` is false), then rows and raw lines in order."""

    name: str
    lines: list[dict[str, object] | bytes] = field(default_factory=list)
    header: bool = True

    def text(self) -> bytes:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")  # as LedgerWriter writes
        if self.header:
            writer.writerow(COLUMNS)
        chunks = []
        for line in self.lines:
            if isinstance(line, bytes):
                chunks.append(out.getvalue().encode() + line)
                out.seek(0)
                out.truncate()
            else:
                writer.writerow(["" if line.get(c) is None else line.get(c) for c in COLUMNS[:-1]] + [END_MARK])
        return b"".join(chunks) + out.getvalue().encode()

    def write(self, folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.csv"
        path.write_bytes(self.text())
        return path


ReadRow = tuple[str, int, int, int]  # topic, partition, offset, id


def write_view(reads: Path, isolation: str, rows: Iterable[ReadRow], read: dict[str, list[int]]) -> Path:
    """A read-back file as ``readback`` writes it: rows in the order given, the partitions read as metadata."""
    rows = list(rows)
    reads.mkdir(parents=True, exist_ok=True)
    table = pa.table(
        {
            "topic": pa.array([r[0] for r in rows], pa.string()),
            "partition": pa.array([r[1] for r in rows], pa.int32()),
            "offset": pa.array([r[2] for r in rows], pa.int64()),
            "id": pa.array([r[3] for r in rows], pa.int64()),
            "key": pa.nulls(len(rows), pa.string()),
        },
        schema=SCHEMA.with_metadata(columns.partitions_read_metadata(read)),
    )
    path = columns.view_path(reads, isolation)
    pq.write_table(table, path)
    return path


def stored(record_id: int) -> int:
    """The id a read-back stores for a record the harness wrote: what ``decode_id`` finds in its value."""
    return decode_id(encode_value(record_id, 40))


__all__ = ["BASE_US", "MARKER_ID", "Ledger", "ReadRow", "make_id", "random", "row", "stored", "write_view"]
