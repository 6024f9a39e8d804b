"""The checker's numpy engine: a function per anomaly of the stored records, over a history as columns.

A record is known by the id its producer gave it (``harness.history.ledger``). The **consumer's
view** is what a consumer of the scenario sees: the read-back under ``read_committed``
unless the variant says its consumers read uncommitted. Each anomaly is counted
once per record (or transaction, or offset, as it says) and shown with examples, the
smallest ids (or positions) first so every run and every checker lists the same ones.

What each anomaly means is declared in ``harness.checker.catalogue``, next to the function
here that finds it.

Indeterminate sends (timed out, or in flight when the process died) are never lost or
failed: they are counted in the stats, with how many of them were read.

**Outcomes across attempts.** A restarted app resends, under the same id, what it does not
know to be written (``harness.history.columns``: the id's last invoke gives its topic and
transaction, earlier ones are kept aside). Over all the attempts of one id:

- *written* (must be seen, else ``lost``): an ``ok`` line of an attempt outside a transaction,
  or any attempt in a committed transaction. An ack beats everything.
- *not written* (must not be seen, else ``aborted_read``): every attempt has its ``fail``
  line, or every attempt was in a transaction that surely aborted.
- otherwise *indeterminate*: some attempt's fate is unknown (an ``info`` line, no outcome
  line at all, a transaction whose end is unknown or that never ended), so nothing is
  claimed either way, however surely another attempt failed.

A resent id's place in its session's send order is not known (the copy that was stored may
come from either attempt), so ``order`` compares only ids sent once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from harness.checker.result import STATS, CheckOptions, Finding
from harness.history.columns import (
    CHUNK,
    FAIL,
    INFO,
    NO_OUTCOME,
    OFFSET_BITS,
    OK,
    PARTITION_BITS,
    TXN_ABORTED,
    TXN_COMMITTED,
    History,
    View,
    chunks,
    lookup,
)
from harness.history.format import ISOLATIONS
from harness.history.records import MARKER_ID, SEQ_BITS

_NEVER = np.iinfo(np.int64).max


class Context:
    """Per-slot facts every check shares, computed once. Slot-sized arrays are kept to int32 and
    bool, and whole-history expressions run in chunks: at ten million records each int64
    temporary is 80 MB."""

    def __init__(self, h: History, options: CheckOptions) -> None:
        self.h, self.n_ex, self.eos_pairs = h, options.max_examples, options.eos_pairs
        self.view = h.views[options.view]
        sends = h.sends
        n = len(sends.invoked)
        with ThreadPoolExecutor(1) as pool:  # the view's slots on another core, meanwhile the transactions
            row_slot = pool.submit(h.slot_of, self.view.id)
            self.session_index = h.session_index_of_slots()
            self.in_txn = sends.txn >= 0
            self.txn_index = np.zeros(n, np.int32 if len(h.txns.key) < 1 << 31 else np.int64)
            for part in chunks(n):
                key = (h.sessions.id[self.session_index[part]] << SEQ_BITS) | sends.txn[part]
                self.txn_index[part], found = lookup(h.txns.key, key)
                self.in_txn[part] &= found
            self.row_slot = row_slot.result()
        # Read at all, and read more than once: two flags per slot, not a count (the few
        # examples count their copies).
        self.visible, self.duplicated = _occurrences(n, (self.row_slot[part] for part in chunks(len(self.row_slot))))
        state = np.where(self.in_txn, h.txns.state[self.txn_index] if len(h.txns.key) else -1, -1)
        # Of the transaction of the id's last attempt: the one it belongs to.
        self.committed = state == TXN_COMMITTED
        self.aborted = state == TXN_ABORTED
        del state
        # Over all attempts (see the module's docstring): written for sure, not written for sure.
        # Without resends (most runs) they are the last attempt's, and cost no memory.
        self.resent = np.zeros(n, bool)
        self.committed_any, self.aborted_all = self.committed, self.aborted
        if len(sends.earlier_slot):
            self.resent[sends.earlier_slot] = True
            earlier = self._earlier_states()
            self.committed_any = self.committed.copy()
            self.committed_any[sends.earlier_slot[earlier == TXN_COMMITTED]] = True
            self.aborted_all = self.aborted.copy()
            self.aborted_all[sends.earlier_slot[earlier != TXN_ABORTED]] = False
        # Whether each send went to a partition that was read: the acknowledged partition
        # where there is one; otherwise (partition unknown) whether its topic was read, from
        # a table by topic code whose last entry stands for -1 (unknown).
        read = np.unique(np.concatenate([v.partitions for v in h.views.values()] + [np.empty(0, np.int64)]))
        read_topics = np.zeros(len(h.topics) + 1, bool)
        read_topics[read >> PARTITION_BITS] = True
        # Where the read-back says how many partitions a topic has, "its topic was read" means all
        # of them: a send never acknowledged may have gone to any.
        counts: dict[int, int] = {}
        for v in h.views.values():
            for code, k in v.topic_partitions.items():
                counts[code] = max(k, counts.get(code, 0))
        for code, k in counts.items():
            read_topics[code] = bool(np.isin((code << PARTITION_BITS) | np.arange(k), read).all())
        self.to_read = np.empty(n, bool)
        for part in chunks(n):
            ack = sends.ack_pos[part]
            self.to_read[part] = np.where(ack >= 0, lookup(read, ack >> OFFSET_BITS)[1], read_topics[sends.topic[part]])
        # Ids read but never sent (undecodable values excluded), with how often each was read.
        self.phantom_ids, self.phantom_rows = np.unique(
            self.view.id[(self.row_slot < 0) & (self.view.id >= 0)], return_counts=True
        )
        self.fence = _fence_times(h)

    def _earlier_states(self) -> np.ndarray:
        """The end of the transaction of each earlier attempt (``Sends.earlier_*``); -1 outside one."""
        h, sends = self.h, self.h.sends
        key = (h.sessions.id[self.session_index[sends.earlier_slot]] << SEQ_BITS) | sends.earlier_txn
        t, found = lookup(h.txns.key, key)
        named = found & (sends.earlier_txn >= 0)
        return np.where(named, h.txns.state[t] if len(h.txns.key) else -1, -1)

    # -- describing records for examples --
    def about(self, slot: int) -> dict[str, Any]:
        h = self.h
        k = int(self.session_index[slot])
        return {
            "id": int(h.id_of(np.array([slot]))[0]),
            "producer": h.sessions.file[k],
            "session": int(h.sessions.id[k]),
            "txn": int(h.sends.txn[slot]) if h.sends.txn[slot] >= 0 else None,
        }

    def places(self, record_id: int) -> list[str]:
        return [self.h.where(int(p)) for p in self.view.pos[self.view.id == record_id][: self.n_ex]]


def stats(c: Context) -> dict[str, int]:
    """What the history holds, beside its anomalies: sends by outcome, transactions by end,
    sessions, records read."""
    h, sends = c.h, c.h.sends
    decided = c.committed_any | c.aborted_all  # a transaction's end decides its sends
    indeterminate = sends.invoked & ((sends.outcome == NO_OUTCOME) | (sends.outcome == INFO)) & ~decided
    ru = h.views.get("read_uncommitted")
    values = (
        int(np.count_nonzero(sends.invoked)),
        int(np.count_nonzero(sends.outcome == OK)),
        int(np.count_nonzero(sends.outcome == FAIL)),
        int(np.count_nonzero(indeterminate)),
        int(np.count_nonzero(indeterminate & c.visible)),
        int(np.count_nonzero(h.txns.state == TXN_COMMITTED)),
        int(np.count_nonzero(h.txns.state == TXN_ABORTED)),
        int(np.count_nonzero(h.txns.state < TXN_ABORTED)),
        len(h.sessions.id),
        int(np.count_nonzero(c.fence < _NEVER)),
        _data_rows(h.views.get("read_committed")),
        _data_rows(ru),
        0 if ru is None else int(np.count_nonzero(ru.markers())),
        int(np.count_nonzero(c.visible)) + len(c.phantom_ids),
    )
    return dict(zip(STATS, values, strict=True))


# --- the anomalies, one function each ---------------------------------------------------


def duplicate(c: Context) -> dict[str, Finding]:
    slots = np.flatnonzero(c.duplicated)
    ghost_ids, ghost_rows = c.phantom_ids, c.phantom_rows
    ghosts = ghost_ids[ghost_rows > 1]
    examples = []
    for s in slots[: c.n_ex]:
        about = c.about(int(s))
        examples.append({**about, "copies": int(np.count_nonzero(c.row_slot == s)), "at": c.places(about["id"])})
    for g, k in zip(ghosts[: c.n_ex], ghost_rows[ghost_rows > 1], strict=False):
        examples.append({"id": int(g), "copies": int(k), "at": c.places(int(g))})
    ids = np.concatenate([c.h.id_of(slots), ghosts])
    return {"duplicate": Finding(len(slots) + len(ghosts), examples[: c.n_ex], ids)}


def lost(c: Context) -> dict[str, Finding]:
    sends = c.h.sends
    must_see = c.to_read & ((~c.in_txn & (sends.outcome == OK)) | c.committed_any)
    slots = np.flatnonzero(must_see & ~c.visible)
    return {
        "lost": Finding(
            len(slots),
            [
                {
                    **c.about(int(s)),
                    "acked_at": c.h.where(int(sends.ack_pos[s])) if sends.ack_pos[s] >= 0 else None,
                    "committed": bool(c.committed_any[s]),
                }
                for s in slots[: c.n_ex]
            ],
            c.h.id_of(slots),
        )
    }


def aborted_read(c: Context) -> dict[str, Finding]:
    slots = np.flatnonzero(c.visible & ((c.h.sends.outcome == FAIL) | c.aborted_all))
    examples = []
    for s in slots[: c.n_ex]:
        about = c.about(int(s))
        why = "transaction aborted" if c.aborted_all[s] else "send failed"
        examples.append({**about, "why": why, "at": c.places(about["id"])})
    return {"aborted_read": Finding(len(slots), examples, c.h.id_of(slots))}


def phantom(c: Context) -> dict[str, Finding]:
    ids = c.phantom_ids
    undecodable = np.flatnonzero((c.view.id < 0) & ~c.view.markers())  # stored records without a harness id
    examples = [{"id": int(i), "at": c.places(int(i))} for i in ids[: c.n_ex]]
    if len(undecodable) and len(examples) < c.n_ex:
        examples.append({"id": None, "at": [c.h.where(int(p)) for p in c.view.pos[undecodable[: c.n_ex]]]})
    return {"phantom": Finding(len(ids) + len(undecodable), examples, ids)}


def order(c: Context) -> dict[str, Finding]:
    """First copies grouped by (producer session, partition), in offset order: a sequence
    number below the running maximum of its group was sent earlier but stored later."""
    slot = c.row_slot
    first = slot >= 0
    if len(c.h.sends.earlier_slot):  # only ids sent once have a known place in the send order
        first[first] = ~c.resent[slot[first]]
    if not first.any():  # nothing read was sent once (no ledgers, say): nothing to order, and no copies to index
        return {"order": Finding()}
    dup_rows = np.flatnonzero(first & c.duplicated[slot])  # slot -1 reads the last flag, but is not first
    if len(dup_rows):  # keep only the first (lowest position) copy of a duplicated id
        first[dup_rows] = False
        _, at = np.unique(slot[dup_rows], return_index=True)
        first[dup_rows[at]] = True
    late: list[np.ndarray] = []
    examples = []
    for part in _whole_partitions(c.view.pos):  # groups never span chunks
        rows, found = _order_in(c, part.start + np.flatnonzero(first[part]))
        late.append(rows)
        examples += found
    # The first ones in (session, position) order, listed by id.
    examples = [e for _, e in sorted(examples, key=lambda se: se[0])[: c.n_ex]]
    examples.sort(key=lambda e: e["id"])
    ids = c.view.id[np.concatenate([np.empty(0, np.int64), *late])]
    return {"order": Finding(len(ids), examples, ids)}


def _order_in(c: Context, rows: np.ndarray) -> tuple[np.ndarray, list[tuple[tuple[int, int], dict[str, Any]]]]:
    """Late first copies among ``rows`` (whole partitions, in position order): their rows, and
    the first few in (session, position) order, each with that order's sort key."""
    h, slot, pos = c.h, c.row_slot, c.view.pos
    if not len(rows):
        return rows, []
    session = c.session_index[slot[rows]]
    # Stable, so offset order holds within a session; small ints sort by radix, in linear time.
    o = np.argsort(session.astype(np.int16) if len(h.sessions.id) < 1 << 15 else session, kind="stable")
    rows, session = rows[o], session[o]
    part = History.partition_key_of(pos[rows])
    rank = np.cumsum(np.r_[0, (session[1:] != session[:-1]) | (part[1:] != part[:-1])])
    key = (rank << SEQ_BITS) | (slot[rows] - h.sessions.base[session])
    late = np.flatnonzero(key[1:] < np.maximum.accumulate(key)[:-1]) + 1
    examples = []
    for r in late[: c.n_ex]:
        earlier = np.flatnonzero((rank[:r] == rank[r]) & (key[:r] > key[r]))[0]
        example = {
            **c.about(int(slot[rows[r]])),
            "at": h.where(int(pos[rows[r]])),
            "stored_after": {
                "id": int(h.id_of(slot[rows[earlier : earlier + 1]])[0]),
                "at": h.where(int(pos[rows[earlier]])),
            },
        }
        examples.append(((int(session[r]), int(pos[rows[r]])), example))
    return rows[late], examples


def _occurrences(n: int, slots: Iterable[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """For each slot 0..n-1, whether it occurs in ``slots`` (given a chunk at a time; -1 is
    none) and whether it occurs more than once."""
    once, again = np.zeros(n, bool), np.zeros(n, bool)
    for chunk in slots:
        s = np.sort(chunk[chunk >= 0])
        again[s[1:][s[1:] == s[:-1]]] = True  # twice in this chunk
        again[s[once[s]]] = True  # in an earlier chunk too
        once[s] = True
    return once, again


def _whole_partitions(pos: np.ndarray) -> Iterator[slice]:
    """Ranges of about ``CHUNK`` rows or more of a view in position order, each ending where a partition ends."""
    start = 0
    while start < len(pos):
        end = min(start + CHUNK, len(pos))
        if end < len(pos):  # on to the last position of that partition
            end = int(np.searchsorted(pos, pos[end - 1] | ((1 << OFFSET_BITS) - 1), side="right"))
        yield slice(start, end)
        start = end


def transactions_read(c: Context) -> dict[str, Finding]:
    h = c.h
    k = len(h.txns.key)
    sent, seen, unread = np.zeros(k, np.int64), np.zeros(k, np.int64), np.zeros(k, np.int64)
    for part in chunks(len(c.in_txn), 1 << 20):  # few chunks: each counts into arrays of all transactions
        member = c.in_txn[part] & ~c.aborted[part]
        t, read = c.txn_index[part][member], c.to_read[part][member]
        sent += np.bincount(t[read], minlength=k)
        seen += np.bincount(t[read & c.visible[part][member]], minlength=k)
        unread += np.bincount(t[~read & c.committed[part][member]], minlength=k)
    torn = np.flatnonzero((seen > 0) & (seen < sent))
    partly = np.flatnonzero((sent > 0) & (unread > 0))

    def about(tx: int, counts: dict[str, int], missing: bool) -> dict[str, Any]:
        slots = np.flatnonzero((c.txn_index == tx) & c.in_txn & ~c.aborted & (c.to_read if missing else True))
        key = int(h.txns.key[tx])
        shown = {
            "producer": c.about(int(slots[0]))["producer"],
            "session": key >> SEQ_BITS,
            "txn": key & ((1 << SEQ_BITS) - 1),
            **counts,
        }
        if missing:
            shown["missing"] = [int(i) for i in h.id_of(slots[~c.visible[slots]][: c.n_ex])]
        return shown

    def members(txns: np.ndarray) -> np.ndarray:
        if not len(txns):
            return np.empty(0, np.int64)
        return h.id_of(np.flatnonzero(np.isin(c.txn_index, txns) & c.in_txn & ~c.aborted))

    return {
        "torn_transaction": Finding(
            len(torn),
            [about(int(tx), {"seen": int(seen[tx]), "sent": int(sent[tx])}, True) for tx in torn[: c.n_ex]],
            members(torn),
        ),
        "partly_read": Finding(
            len(partly),
            [about(int(tx), {"read": int(sent[tx]), "not_read": int(unread[tx])}, False) for tx in partly[: c.n_ex]],
            members(partly),
        ),
    }


def inconsistent_offset(c: Context) -> dict[str, Finding]:
    h = c.h
    examples: list[dict[str, Any]] = []
    count = 0
    involved: list[np.ndarray] = []  # the ids read or acknowledged at the offsets in question

    def room() -> int:
        return max(0, c.n_ex - len(examples))

    def finding() -> Finding:
        ids = np.concatenate([np.empty(0, np.int64), *involved])
        return Finding(count, examples, np.unique(ids[ids >= 0]))

    # Offsets a reader returned twice or more, whatever it read there: a fault of that read-back.
    for isolation in ISOLATIONS:
        view = h.views.get(isolation)
        if view is not None:
            count += len(view.repeated)
            involved.append(view.id[np.isin(view.pos, view.repeated)])
            for p in view.repeated[: room()]:
                read = [_shown(int(i)) for i in view.id[view.pos == p]]
                examples.append({"at": h.where(int(p)), "read_by": isolation, "read": read})
    ru, rc = h.views.get("read_uncommitted"), h.views.get("read_committed")
    if ru is None:
        return {"inconsistent_offset": finding()}
    if rc is not None:  # the two readers, offset by offset
        conflicts = ru.conflicts()
        for part in chunks(len(rc.pos)):
            found, there = _read_at(ru, rc.pos[part])
            bad = np.flatnonzero(~there | (found != rc.id[part]))
            if len(conflicts):  # where read_uncommitted read several ids, any of them agrees
                bad = bad[~_read_there(ru, rc.pos[part][bad], rc.id[part][bad], conflicts)]
            count += len(bad)
            involved += [rc.id[part][bad], found[bad][there[bad]]]
            for b in bad[: room()]:
                examples.append(
                    {
                        "at": h.where(int(rc.pos[part.start + b])),
                        "read_committed": _shown(int(rc.id[part.start + b])),
                        "read_uncommitted": _shown(int(found[b])) if there[b] else None,
                    }
                )
    # Acknowledgements: confirmed where the read_uncommitted reader found the id at the
    # acknowledged position; only the unconfirmed rest needs a search.
    ack_pos = h.sends.ack_pos
    confirmed = np.zeros(len(ack_pos), bool)
    for part in chunks(len(ru.id)):
        slot = c.row_slot[part] if ru is c.view else h.slot_of(ru.id[part])
        known = np.flatnonzero(slot >= 0)
        slot = slot[known]
        confirmed[slot[ack_pos[slot] == ru.pos[part][known]]] = True
    doubtful = np.flatnonzero((ack_pos >= 0) & ~confirmed)
    found, there = _read_at(ru, ack_pos[doubtful])
    ids = h.id_of(doubtful)
    bad = np.flatnonzero((there & (found != ids)) | (~there & c.visible[doubtful]))
    count += len(bad)
    involved.append(ids[bad])
    for b in bad[: room()]:
        examples.append(
            {
                "at": h.where(int(ack_pos[doubtful[b]])),
                "acknowledged": int(ids[b]),
                "read_uncommitted": _shown(int(found[b])) if there[b] else None,
            }
        )
    return {"inconsistent_offset": finding()}


def _read_at(view: View, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The id ``view`` read at each position (the smallest, where it read several), and whether it
    read the position at all; the id is meaningless where it did not. Taken only where there is
    something to take: a view may have no rows at all."""
    if not len(view.pos):
        return np.zeros(len(pos), np.int64), np.zeros(len(pos), bool)
    j, there = lookup(view.pos, pos)
    return view.id[j], there


def _read_there(view: View, pos: np.ndarray, ids: np.ndarray, conflicts: np.ndarray) -> np.ndarray:
    """Whether ``view`` read each id at its position, for positions where it may have read several."""
    rows = np.flatnonzero(np.isin(view.pos, conflicts))
    pairs = set(zip(view.pos[rows].tolist(), view.id[rows].tolist(), strict=True))
    return np.array([(p, i) in pairs for p, i in zip(pos.tolist(), ids.tolist(), strict=True)], bool)


def _shown(record_id: int) -> int | str:
    return "marker" if record_id == MARKER_ID else record_id


def exactly_once(c: Context) -> dict[str, Finding]:
    h, sends, pairs = c.h, c.h.sends, c.eos_pairs
    missing, repeated = Finding(), Finding()
    for in_topic, out_topic in pairs:
        code = {t: h.topics.index(t) if t in h.topics else -2 for t in (in_topic, out_topic)}
        inputs = c.visible & (sends.topic == code[in_topic])
        outputs = np.flatnonzero(c.visible & (sends.topic == code[out_topic]) & (sends.source >= 0))
        # Per input slot: whether an output names it as source, and whether another does.
        named, again = _occurrences(len(inputs), (h.slot_of(sends.source[outputs[p]]) for p in chunks(len(outputs))))
        zero = np.flatnonzero(inputs & ~named)
        many = np.flatnonzero(inputs & again)
        topics = f"{in_topic} -> {out_topic}"
        missing.count += len(zero)
        missing.ids = np.concatenate([missing.ids, h.id_of(zero)])
        missing.examples += [{"input": int(i), "topics": topics, "outputs": []} for i in h.id_of(zero[: c.n_ex])]
        repeated.count += len(many)
        repeated.ids = np.concatenate([repeated.ids, h.id_of(many)])
        for input_id in h.id_of(many[: c.n_ex]):
            outs = h.id_of(outputs[sends.source[outputs] == input_id])
            repeated.examples.append({"input": int(input_id), "topics": topics, "outputs": [int(o) for o in outs]})
    missing.examples, repeated.examples = missing.examples[: c.n_ex], repeated.examples[: c.n_ex]
    return {"eos_missing": missing, "eos_repeated": repeated}


def _fence_times(h: History) -> np.ndarray:
    """Per session: when a newer session of its transactional.id became ready (_NEVER: not fenced)."""
    s = h.sessions
    fenced_at = np.full(len(s.id), _NEVER, np.int64)
    newest: dict[str, int] = {}
    for i in sorted(range(len(s.id)), key=lambda i: -int(s.started_us[i])):
        txid = s.transactional_id[i]
        if txid and s.started_us[i] >= 0:
            fenced_at[i] = newest.get(txid, _NEVER)
            newest[txid] = int(s.started_us[i])
    return fenced_at


def zombie_write(c: Context) -> dict[str, Finding]:
    h = c.h
    fence = c.fence
    if not np.any(fence < _NEVER):
        return {"zombie_write": Finding()}
    candidates = np.flatnonzero(c.visible & c.in_txn & (fence < _NEVER)[c.session_index])
    t = c.txn_index[candidates]
    acted = np.where(h.txns.commit_us[t] >= 0, h.txns.commit_us[t], h.txns.begin_us[t])
    zombies = candidates[acted >= fence[c.session_index[candidates]]]
    examples = []
    for s in zombies[: c.n_ex]:
        about = c.about(int(s))
        examples.append({**about, "at": c.places(about["id"]), "fenced_at_us": int(fence[c.session_index[s]])})
    return {"zombie_write": Finding(len(zombies), examples, h.id_of(zombies))}


def misplaced(c: Context) -> dict[str, Finding]:
    """Ids in the view at a position of another topic than their send's (its last invoke's: a resend
    names the same topic)."""
    h, view = c.h, c.view
    wrong: list[np.ndarray] = [np.empty(0, c.row_slot.dtype)]
    for part in chunks(len(view.pos)):
        slot = c.row_slot[part]
        known = np.flatnonzero(slot >= 0)
        wrong.append(slot[known][History.topic_of(view.pos[part][known]) != h.sends.topic[slot[known]]])
    slots = np.unique(np.concatenate(wrong))
    examples = []
    for s in slots[: c.n_ex]:
        about = c.about(int(s))
        examples.append({**about, "sent_to": h.topics[h.sends.topic[s]], "at": c.places(about["id"])})
    return {"misplaced": Finding(len(slots), examples, h.id_of(slots))}


def _data_rows(view: View | None) -> int:
    return 0 if view is None else len(view.id) - int(np.count_nonzero(view.markers()))
