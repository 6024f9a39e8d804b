"""Findings about effects outside the ledgers: rows a pipeline wrote into a database, output
records or rows of a Spark job, each naming the input it came from, counted per input; and
a stateful job's stored aggregates against a recount from the committed input.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa


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


def naming_aborted(rows: np.ndarray, committed: np.ndarray, written: np.ndarray, max_examples: int) -> dict[str, Any]:
    """``sink_aborted``: rows (or output records) naming an input that was written
    (``written``: ids read uncommitted) but never committed (not in ``committed``)."""
    aborted = np.setdiff1d(written[written >= 0], committed)
    named = rows[np.isin(rows, aborted)]
    return {"count": len(named), "examples": [{"input": int(i)} for i in np.unique(named)[:max_examples]]}


def aggregate_mismatch(committed: pa.Table, found: Mapping[str, tuple[int, int]], max_examples: int) -> dict[str, Any]:
    """``aggregate_mismatch``: keys whose stored ``(count, sum of ids)`` in ``found`` (a job's
    table, or the last committed totals of a Streams app) differs from the recount of the
    committed input ``committed`` (columns key, id); a key on one side only counts too."""
    expected: dict[str, tuple[int, int]] = {}
    for key, record_id in zip(committed["key"].to_pylist(), committed["id"].to_pylist(), strict=True):
        count, total = expected.get(key, (0, 0))
        expected[key] = (count + 1, total + record_id)
    wrong = sorted(k for k in expected.keys() | found.keys() if expected.get(k) != found.get(k))
    examples = [{"key": k, "expected": expected.get(k), "found": found.get(k)} for k in wrong[:max_examples]]
    return {"count": len(wrong), "examples": examples}
