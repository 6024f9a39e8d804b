"""A read-back file read into columns (``View``): each row's position and id, in position order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from harness.errors import HarnessError
from harness.history.columns import OFFSET_BITS, PARTITION_BITS, TopicCodes, View, position
from harness.history.format import partitions_read, topic_partitions


def read_view(path: Path, isolation: str, topics: TopicCodes) -> View:
    f = pq.ParquetFile(path, pre_buffer=False)  # a local file: reading ahead only costs memory
    n = f.metadata.num_rows
    pos, ids = np.empty(n, np.int64), np.empty(n, np.int64)
    at, ascending = 0, True
    for batch in f.iter_batches(batch_size=1 << 20, columns=["topic", "partition", "offset", "id"]):
        k = batch.num_rows
        partition = batch.column("partition").to_numpy()
        if partition.max(initial=0) >= 1 << PARTITION_BITS:
            raise HarnessError(f"{path}: partition numbers of {1 << PARTITION_BITS} or more are not supported")
        rows = slice(at, at + k)
        position(topics.encode(batch.column("topic")), partition, batch.column("offset").to_numpy(), out=pos[rows])
        ids[rows] = batch.column("id").to_numpy()
        window = pos[max(at - 1, 0) : at + k]  # this batch and the row before it
        # Strictly: an offset read twice is as rare as a view out of order, and as cheap to see here.
        ascending = ascending and bool(np.all(window[1:] > window[:-1]))
        at += k
    repeated = np.empty(0, np.int64)
    if not ascending:
        _sort_by_position(pos, ids)
        pos, ids, repeated = _once_per_position(pos, ids)
    read = [_partition_keys_in(pos)]  # what has rows was read, whatever the metadata says
    for topic, partitions in partitions_read(f.schema_arrow).items():
        if topic in topics:  # a topic no ledger sent to and no row came from concerns no send
            read.append((topics.code(topic) << PARTITION_BITS) | np.array(partitions, np.int64))
    counts = {topics.code(t): n for t, n in topic_partitions(f.schema_arrow).items() if t in topics}
    return View(isolation, pos, ids, np.unique(np.concatenate(read)), repeated, counts)


def _partition_keys_in(pos: np.ndarray) -> np.ndarray:
    """``topic << PARTITION_BITS | partition`` of every partition with rows: ascending
    positions keep each partition's rows together, so a jump per partition finds them."""
    keys, at = [], 0
    while at < len(pos):
        key = int(pos[at]) >> OFFSET_BITS
        keys.append(key)
        at = int(np.searchsorted(pos, (key + 1) << OFFSET_BITS))
    return np.array(keys, np.int64)


def _once_per_position(pos: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows sorted by position: each (position, id) once, ids ascending within a position, and
    the positions that came more than once."""
    again = np.flatnonzero(pos[1:] == pos[:-1]) + 1
    if not len(again):
        return pos, ids, np.empty(0, np.int64)
    repeated = np.unique(pos[again])
    # Only the rows of repeated positions need ordering by id; the rest stay where they are.
    rows = np.flatnonzero(np.isin(pos, repeated))
    rows = rows[np.lexsort((ids[rows], pos[rows]))]
    ids[np.sort(rows)] = ids[rows]
    keep = np.ones(len(pos), bool)
    keep[1:] = (pos[1:] != pos[:-1]) | (ids[1:] != ids[:-1])
    return pos[keep], ids[keep], repeated


def _sort_by_position(pos: np.ndarray, ids: np.ndarray) -> None:
    """Sorts the rows by position, stably, in place.

    A read-back's rows come in ascending runs (each partition's in offset order). When the
    runs do not overlap, as when whole topics come in another order than their codes' (a
    topic's code comes from the first ledger that sent to it), putting the runs in order
    is a copy, not a sort of the whole view.
    """
    starts = np.r_[0, np.flatnonzero(pos[1:] < pos[:-1]) + 1]
    ends = np.r_[starts[1:], len(pos)]
    order = np.argsort(pos[starts], kind="stable") if len(starts) <= 1 << 12 else None
    if order is not None and np.all(pos[ends[order[:-1]] - 1] < pos[starts[order[1:]]]):

        def take(a: np.ndarray) -> np.ndarray:
            return np.concatenate([a[starts[r] : ends[r]] for r in order])
    else:
        o = np.argsort(pos, kind="stable")

        def take(a: np.ndarray) -> np.ndarray:
            return a[o]

    for a in (pos, ids):  # one array's temporary at a time
        a[:] = take(a)
