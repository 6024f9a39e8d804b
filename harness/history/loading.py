"""Loading a run's history: its ledgers and its read-backs into columns (``History``), with the
memory each step freed handed back before the next."""

from __future__ import annotations

from pathlib import Path

from harness.history import ledger_columns, memory, view_columns
from harness.history.columns import History, TopicCodes
from harness.history.format import ISOLATIONS, view_path


def load(ledger_paths: list[Path], reads_dir: Path | None) -> History:
    """The history of ``ledger_paths``, with the views of ``reads_dir`` (none when None, or for a
    file not there)."""
    memory.keep_freed_memory_for_reuse()
    topics = TopicCodes()
    sessions, sends, txns, problems = ledger_columns.read(ledger_paths, topics)
    history = History(topics.names, sessions, sends, txns, {}, problems)
    memory.release_free_memory()
    if reads_dir is not None:
        for isolation in ISOLATIONS:
            path = view_path(reads_dir, isolation)
            if path.exists():
                history.views[isolation] = view_columns.read_view(path, isolation, topics)
                memory.release_free_memory()
    history.topics = topics.names
    return history
