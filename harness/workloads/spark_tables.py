"""The SQLite tables the foreachBatch jobs write, and how the harness reads them back.

- ``records``: one row per input record written (topic, partition, offset, input_id,
  batch_id). Keyed by (topic, partition, offset) when the job is idempotent, unkeyed when
  it is not; a database belongs to one mode, fixed when the table is created.
- ``batches``: the batch ids written, each in the same transaction as its rows (or
  aggregates) and the number of them.
- ``aggregates``: per key, the count and the sum of the input ids (the stateful job).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

AggregateRow = tuple[str, int, int]  # key, count, total
_BATCHES = "CREATE TABLE IF NOT EXISTS batches (batch_id INTEGER PRIMARY KEY, rows INTEGER NOT NULL)"


def connect(db: str | Path) -> sqlite3.Connection:
    # Autocommit outside explicit BEGIN; the writer names its transactions.
    conn = sqlite3.connect(db, isolation_level=None, timeout=30)
    conn.execute("PRAGMA journal_mode=WAL")
    return conn


def write_records(db: sqlite3.Connection, records: list[tuple[str, int, int, int]], batch_id: int, keyed: bool) -> None:
    """One transaction: the batch's rows (replacing its earlier attempt's when keyed) and its id."""
    key = ", PRIMARY KEY (topic, partition, offset)" if keyed else ""
    db.execute(
        "CREATE TABLE IF NOT EXISTS records (topic TEXT NOT NULL, partition INTEGER NOT NULL,"
        f" offset INTEGER NOT NULL, input_id INTEGER, batch_id INTEGER{key})"
    )
    db.execute(_BATCHES)
    db.execute("BEGIN IMMEDIATE")
    verb = "INSERT OR REPLACE" if keyed else "INSERT"
    db.executemany(f"{verb} INTO records VALUES (?, ?, ?, ?, ?)", [(*r, batch_id) for r in records])
    db.execute("INSERT OR REPLACE INTO batches VALUES (?, ?)", (batch_id, len(records)))
    db.execute("COMMIT")


def write_aggregates(db: sqlite3.Connection, rows: list[AggregateRow], batch_id: int, totals: bool) -> None:
    """``totals``: the rows are running totals and replace what is stored (a re-run writes the
    same totals again); otherwise they are one batch's increments and are added to it."""
    db.execute("CREATE TABLE IF NOT EXISTS aggregates (key TEXT PRIMARY KEY, count INTEGER, total INTEGER)")
    db.execute(_BATCHES)
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT OR REPLACE INTO batches VALUES (?, ?)", (batch_id, len(rows)))
    if totals:
        db.executemany("INSERT OR REPLACE INTO aggregates VALUES (?, ?, ?)", rows)
    else:
        db.executemany(
            "INSERT INTO aggregates VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE "
            "SET count = count + excluded.count, total = total + excluded.total",
            rows,
        )
    db.execute("COMMIT")


def _select(db: Path, table: str, columns: str) -> list[tuple[Any, ...]]:
    """Every row of ``table`` (none if the job has not created it yet)."""
    if not db.exists():
        return []
    with sqlite3.connect(db, timeout=30) as conn:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone():
            return []
        return conn.execute(f"SELECT {columns} FROM {table}").fetchall()


def record_ids(db: Path) -> list[int]:
    """The input id of every row of ``records``."""
    return [r[0] for r in _select(db, "records", "input_id")]


def batch_ids(db: Path) -> set[int]:
    return {r[0] for r in _select(db, "batches", "batch_id")}


def aggregates(db: Path) -> dict[str, tuple[int, int]]:
    return {k: (c, t) for k, c, t in _select(db, "aggregates", "key, count, total")}
