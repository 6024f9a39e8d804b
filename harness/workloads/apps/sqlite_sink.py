"""A side-effect sink outside Kafka: a SQLite database with one row per processed input.

Kafka's transactions cover Kafka writes only. An app whose effect is elsewhere (a row, an
e-mail, a REST call) has two choices, and this module serves both:

- ``effect``: do it at once, in the processing loop, and commit the input offsets to
  Kafka afterwards. A crash in between repeats the effect.
- ``effects_with_offsets``: write the effects *and* the next input offsets in one
  database transaction, and on start read the offsets from the database instead of the
  consumer group. Whatever committed, committed together.

``harness.checker.sinks.count_effects`` turns the table into findings: inputs with no
row, inputs with two or more.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

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
