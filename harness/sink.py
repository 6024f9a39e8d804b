"""A side-effect sink outside Kafka: a SQLite database with one row per processed input.

Kafka's transactions cover Kafka writes only. An app whose effect is elsewhere (a row, an
e-mail, a REST call) has two choices, and this module serves both:

- ``effect``: do it at once, in the processing loop, and commit the input offsets to
  Kafka afterwards. A crash in between repeats the effect.
- ``effects_with_offsets``: write the effects *and* the next input offsets in one
  database transaction, and on start read the offsets from the database instead of the
  consumer group. Whatever committed, committed together.

``count_effects`` turns the table into findings: inputs with no row, inputs with two or
more.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

_SCHEMA = """
CREATE TABLE IF NOT EXISTS effects (input_id INTEGER NOT NULL, app TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS offsets (
    topic TEXT NOT NULL, partition INTEGER NOT NULL, next_offset INTEGER NOT NULL,
    PRIMARY KEY (topic, partition)
);
"""


class Sink:
    def __init__(self, path: Path, app: str) -> None:
        self.app = app
        # Autocommit: every statement outside an explicit BEGIN is its own transaction.
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")  # apps of one run write concurrently
        self.db.executescript(_SCHEMA)

    def effect(self, input_id: int) -> None:
        self.db.execute("INSERT INTO effects VALUES (?, ?)", (input_id, self.app))

    def effects_with_offsets(self, input_ids: list[int], next_offsets: dict[tuple[str, int], int]) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        self.db.executemany("INSERT INTO effects VALUES (?, ?)", [(i, self.app) for i in input_ids])
        self.db.executemany(
            "INSERT OR REPLACE INTO offsets VALUES (?, ?, ?)", [(t, p, o) for (t, p), o in next_offsets.items()]
        )
        self.db.execute("COMMIT")

    def next_offsets(self, topic: str) -> dict[int, int]:
        rows = self.db.execute("SELECT partition, next_offset FROM offsets WHERE topic = ?", (topic,))
        return dict(rows.fetchall())

    def close(self) -> None:
        self.db.close()


def count_effects(path: Path, inputs: np.ndarray, max_examples: int) -> dict[str, dict[str, object]]:
    """``sink_missing`` / ``sink_repeated``: inputs (ids read committed from the input topic)
    with no row, and with two or more rows."""
    if path.exists():
        with sqlite3.connect(path) as db:
            rows = np.array([r[0] for r in db.execute("SELECT input_id FROM effects")], np.int64)
    else:
        rows = np.zeros(0, np.int64)
    return count_per_input(rows, inputs, max_examples)


def count_per_input(rows: np.ndarray, inputs: np.ndarray, max_examples: int) -> dict[str, dict[str, object]]:
    """``sink_missing`` / ``sink_repeated`` of any sink: ``rows`` holds the input id each row
    (or output record) names, ``inputs`` the ids that must each be named exactly once."""
    ids, counts = np.unique(rows, return_counts=True)
    per_input = np.zeros(len(inputs), np.int64)
    found = np.searchsorted(ids, inputs)
    hit = (found < len(ids)) & (ids[np.minimum(found, len(ids) - 1)] == inputs) if len(ids) else found < 0
    per_input[hit] = counts[found[hit]]
    order = np.argsort(inputs)

    def finding(mask: np.ndarray) -> dict[str, object]:
        picked = [int(i) for i in inputs[order][mask[order]][:max_examples]]
        examples = [{"input": i, "rows": int(per_input[inputs == i][0])} for i in picked]
        return {"count": int(mask.sum()), "examples": examples}

    return {"sink_missing": finding(per_input == 0), "sink_repeated": finding(per_input >= 2)}
