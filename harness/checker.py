"""The checker: a history in, anomalies out. Columnar, pure, and the one place anomalies are defined.

A record is known by the id its producer gave it (``harness.ledger``). The **consumer's
view** is what a consumer of the scenario sees: the read-back under ``read_committed``
unless the variant says its consumers read uncommitted. Each anomaly below is counted
once per record (or transaction, or offset, as it says) and shown with examples, the
smallest ids (or positions) first so every run and every checker lists the same ones.

- **duplicate**: one id stored at two or more offsets in the consumer's view.
- **lost**: acknowledged (outside a transaction) or sent in a committed transaction, but
  not in the consumer's view.
- **aborted_read**: in the consumer's view although its send definitely failed or its
  transaction aborted.
- **phantom**: in the consumer's view but never sent (no ledger invoked the id, or the
  value carries no harness id).
- **order**: within one partition of the consumer's view, a record from a producer
  session stored after a record that session sent later (first copies only; later copies
  are duplicates, not reorderings).
- **torn_transaction**: a transaction that committed, or whose end is unknown, with some of
  its records in the consumer's view and some not, counting only records sent to topics
  that were read. Counted per transaction.
- **inconsistent_offset**: two observations disagree about one offset: the
  ``read_committed`` and ``read_uncommitted`` readers saw different records there (or one
  saw a record where the other saw none), or a producer's acknowledgement names an offset
  that holds another record or a marker, or that was never read while the id was read
  elsewhere. Counted per observation.
- **eos_missing** / **eos_repeated** (the exactly-once count of consume-transform-produce):
  for each input record in the consumer's view of an input topic, the number of distinct
  output ids in the consumer's view of its output topic whose send names that input as its
  source; 0 is missing, 2 or more is repeated.
- **zombie_write**: in the consumer's view, a record sent by a producer session after it
  was fenced: another session of the same transactional.id had finished
  ``init_transactions`` before this record's transaction asked to commit (or, with no
  commit request in the ledger, before the transaction began).

Indeterminate sends (timed out, or in flight when the process died) are never lost or
failed: they are counted in the stats, with how many of them were read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.history import (
    FAIL,
    INFO,
    MARKER_ID,
    NO_OUTCOME,
    OK,
    TXN_ABORTED,
    TXN_COMMITTED,
    History,
    View,
    distinct,
    lookup,
)
from harness.ledger import SEQ_BITS

ANOMALIES = (
    "duplicate",
    "lost",
    "aborted_read",
    "phantom",
    "order",
    "torn_transaction",
    "inconsistent_offset",
    "eos_missing",
    "eos_repeated",
    "zombie_write",
)
MAX_EXAMPLES = 5
_NEVER = np.iinfo(np.int64).max


@dataclass(frozen=True)
class CheckOptions:
    view: str = "read_committed"  # the isolation level the scenario's consumers use
    eos_pairs: tuple[tuple[str, str], ...] = ()  # (input topic, output topic) of transform apps
    max_examples: int = MAX_EXAMPLES


@dataclass
class Finding:
    count: int = 0
    examples: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "examples": self.examples}


@dataclass
class CheckResult:
    anomalies: dict[str, Finding]
    stats: dict[str, int]
    ledger_problems: dict[str, int]  # ledger file -> lines ignored
    notes: list[str] = field(default_factory=list)  # human detail, not part of the comparable JSON

    def count(self, anomaly: str) -> int:
        return self.anomalies[anomaly].count

    def to_json(self) -> dict[str, Any]:
        """The comparable part: the Spark checker produces exactly this for the same history."""
        return {
            "anomalies": {k: v.to_json() for k, v in self.anomalies.items()},
            "stats": self.stats,
            "ledger_problems": self.ledger_problems,
        }


class _Context:
    """Per-slot facts every check shares, computed once."""

    def __init__(self, h: History, options: CheckOptions) -> None:
        self.h, self.n_ex = h, options.max_examples
        self.view = h.views[options.view]
        sends = h.sends
        n = len(sends.invoked)
        self.row_slot = h.slot_of(self.view.id)
        self.copies = np.bincount(self.row_slot[self.row_slot >= 0], minlength=n)
        self.visible = self.copies > 0
        self.session_index = h.session_index_of_slots().astype(np.int32)
        self.in_txn = sends.txn >= 0
        key = np.where(self.in_txn, (h.sessions.id[self.session_index] << SEQ_BITS) | sends.txn, -1)
        self.txn_index, txn_found = lookup(h.txns.key, key)
        del key
        self.in_txn &= txn_found
        state = np.where(self.in_txn, h.txns.state[self.txn_index] if len(h.txns.key) else -1, -1)
        self.committed = state == TXN_COMMITTED
        self.aborted = state == TXN_ABORTED
        del state
        read_topics = np.unique(np.concatenate([distinct(History.topic_of(v.pos)) for v in h.views.values()]))
        self.to_read_topic = np.isin(sends.topic, read_topics)
        # Ids read but never sent (undecodable values excluded), with how often each was read.
        self.phantom_ids, self.phantom_rows = np.unique(
            self.view.id[(self.row_slot < 0) & (self.view.id >= 0)], return_counts=True
        )
        self.fence = _fence_times(h)

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


def check(history: History, options: CheckOptions = CheckOptions()) -> CheckResult:
    c = _Context(history, options)
    found = {
        "duplicate": _duplicate(c),
        "lost": _lost(c),
        "aborted_read": _aborted_read(c),
        "phantom": _phantom(c),
        "order": _order(c),
        "torn_transaction": _torn(c),
        "inconsistent_offset": _inconsistent(c),
        **_exactly_once(c, options.eos_pairs),
        "zombie_write": _zombie(c),
    }
    h, sends = history, history.sends
    decided = c.committed | c.aborted  # a transaction's end decides its sends
    indeterminate = sends.invoked & ((sends.outcome == NO_OUTCOME) | (sends.outcome == INFO)) & ~decided
    ru = h.views.get("read_uncommitted")
    stats = {
        "sent": int(np.count_nonzero(sends.invoked)),
        "acknowledged": int(np.count_nonzero(sends.outcome == OK)),
        "failed": int(np.count_nonzero(sends.outcome == FAIL)),
        "indeterminate": int(np.count_nonzero(indeterminate)),
        "indeterminate_read": int(np.count_nonzero(indeterminate & c.visible)),
        "transactions_committed": int(np.count_nonzero(h.txns.state == TXN_COMMITTED)),
        "transactions_aborted": int(np.count_nonzero(h.txns.state == TXN_ABORTED)),
        "transactions_unknown": int(np.count_nonzero(h.txns.state < TXN_ABORTED)),
        "sessions": len(h.sessions.id),
        "sessions_fenced": int(np.count_nonzero(c.fence < _NEVER)),
        "read_committed_records": _data_rows(h.views.get("read_committed")),
        "read_uncommitted_records": _data_rows(ru),
        "markers": 0 if ru is None else int(np.count_nonzero(ru.id == MARKER_ID)),
        "distinct_read": int(np.count_nonzero(c.visible)) + len(c.phantom_ids),
    }
    problems = {p.file: p.ignored_lines for p in h.problems}
    notes = [reason for p in h.problems for reason in p.reasons]
    return CheckResult(found, stats, problems, notes)


# --- the anomalies, one function each ---------------------------------------------------


def _duplicate(c: _Context) -> Finding:
    slots = np.flatnonzero(c.copies > 1)
    ghost_ids, ghost_rows = c.phantom_ids, c.phantom_rows
    ghosts = ghost_ids[ghost_rows > 1]
    examples = []
    for s in slots[: c.n_ex]:
        about = c.about(int(s))
        examples.append({**about, "copies": int(c.copies[s]), "at": c.places(about["id"])})
    for g, k in zip(ghosts[: c.n_ex], ghost_rows[ghost_rows > 1], strict=False):
        examples.append({"id": int(g), "copies": int(k), "at": c.places(int(g))})
    return Finding(len(slots) + len(ghosts), examples[: c.n_ex])


def _lost(c: _Context) -> Finding:
    sends = c.h.sends
    must_see = c.to_read_topic & ((~c.in_txn & (sends.outcome == OK)) | c.committed)
    slots = np.flatnonzero(must_see & ~c.visible)
    return Finding(
        len(slots),
        [
            {
                **c.about(int(s)),
                "acked_at": c.h.where(int(sends.ack_pos[s])) if sends.ack_pos[s] >= 0 else None,
                "committed": bool(c.committed[s]),
            }
            for s in slots[: c.n_ex]
        ],
    )


def _aborted_read(c: _Context) -> Finding:
    slots = np.flatnonzero(c.visible & ((c.h.sends.outcome == FAIL) | c.aborted))
    examples = []
    for s in slots[: c.n_ex]:
        about = c.about(int(s))
        why = "transaction aborted" if c.aborted[s] else "send failed"
        examples.append({**about, "why": why, "at": c.places(about["id"])})
    return Finding(len(slots), examples)


def _phantom(c: _Context) -> Finding:
    ids = c.phantom_ids
    undecodable = np.flatnonzero(c.view.id < MARKER_ID)
    examples = [{"id": int(i), "at": c.places(int(i))} for i in ids[: c.n_ex]]
    if len(undecodable) and len(examples) < c.n_ex:
        examples.append({"id": None, "at": [c.h.where(int(p)) for p in c.view.pos[undecodable[: c.n_ex]]]})
    return Finding(len(ids) + len(undecodable), examples)


def _order(c: _Context) -> Finding:
    """First copies grouped by (producer session, partition), in offset order: a sequence
    number below the running maximum of its group was sent earlier but stored later."""
    h, slot = c.h, c.row_slot
    first = slot >= 0
    if not first.any():  # nothing read was sent (no ledgers, say): nothing to order, and no copies to index
        return Finding()
    dup_rows = np.flatnonzero(first & (c.copies[np.maximum(slot, 0)] > 1))
    if len(dup_rows):  # keep only the first (lowest position) copy of a duplicated id
        first[dup_rows] = False
        _, at = np.unique(slot[dup_rows], return_index=True)
        first[dup_rows[at]] = True
    rows = np.flatnonzero(first)
    if not len(rows):
        return Finding()
    session = c.session_index[slot[rows]]
    o = np.argsort(session, kind="stable")  # small ints: a linear radix sort; keeps offset order
    rows, session = rows[o], session[o]
    part = History.partition_key_of(c.view.pos[rows])
    rank = np.cumsum(np.r_[0, (session[1:] != session[:-1]) | (part[1:] != part[:-1])])
    key = (rank << SEQ_BITS) | (slot[rows] - h.sessions.base[session])
    late = np.flatnonzero(key[1:] < np.maximum.accumulate(key)[:-1]) + 1
    examples = []
    for r in late[: c.n_ex]:
        earlier = np.flatnonzero((rank[:r] == rank[r]) & (key[:r] > key[r]))[0]
        examples.append(
            {
                **c.about(int(slot[rows[r]])),
                "at": h.where(int(c.view.pos[rows[r]])),
                "stored_after": {
                    "id": int(h.id_of(slot[rows[earlier : earlier + 1]])[0]),
                    "at": h.where(int(c.view.pos[rows[earlier]])),
                },
            }
        )
    examples.sort(key=lambda e: e["id"])
    return Finding(len(late), examples)


def _torn(c: _Context) -> Finding:
    h = c.h
    member = np.flatnonzero(c.in_txn & c.to_read_topic & ~c.aborted)
    if not len(member):
        return Finding()
    t = c.txn_index[member]
    sent = np.bincount(t, minlength=len(h.txns.key))
    seen = np.bincount(t, weights=c.visible[member], minlength=len(h.txns.key)).astype(np.int64)
    torn = np.flatnonzero((seen > 0) & (seen < sent))
    examples = []
    for tx in torn[: c.n_ex]:
        slots = member[t == tx]
        key = int(h.txns.key[tx])
        examples.append(
            {
                "producer": c.about(int(slots[0]))["producer"],
                "session": key >> SEQ_BITS,
                "txn": key & ((1 << SEQ_BITS) - 1),
                "seen": int(seen[tx]),
                "sent": int(sent[tx]),
                "missing": [int(i) for i in h.id_of(slots[~c.visible[slots]][: c.n_ex])],
            }
        )
    return Finding(len(torn), examples)


def _inconsistent(c: _Context) -> Finding:
    h = c.h
    ru, rc = h.views.get("read_uncommitted"), h.views.get("read_committed")
    if ru is None:
        return Finding()
    examples: list[dict[str, Any]] = []
    count = 0
    if rc is not None:  # the two readers, offset by offset
        j, there = lookup(ru.pos, rc.pos)
        bad = np.flatnonzero(~there | (ru.id[j] != rc.id))
        count += len(bad)
        for b in bad[: c.n_ex]:
            examples.append(
                {
                    "at": h.where(int(rc.pos[b])),
                    "read_committed": _shown(int(rc.id[b])),
                    "read_uncommitted": _shown(int(ru.id[j[b]])) if there[b] else None,
                }
            )
    # Acknowledgements: confirmed where the read_uncommitted reader found the id at the
    # acknowledged position; only the unconfirmed rest needs a search.
    ack_pos = h.sends.ack_pos
    ru_slot = c.row_slot if ru is c.view else h.slot_of(ru.id)
    confirmed = np.zeros(len(ack_pos), bool)
    known = ru_slot >= 0
    confirmed[ru_slot[known][ack_pos[ru_slot[known]] == ru.pos[known]]] = True
    doubtful = np.flatnonzero((ack_pos >= 0) & ~confirmed)
    j, there = lookup(ru.pos, ack_pos[doubtful])
    ids = h.id_of(doubtful)
    bad = np.flatnonzero((there & (ru.id[j] != ids)) | (~there & c.visible[doubtful]))
    count += len(bad)
    for b in bad[: max(0, c.n_ex - len(examples))]:
        examples.append(
            {
                "at": h.where(int(ack_pos[doubtful[b]])),
                "acknowledged": int(ids[b]),
                "read_uncommitted": _shown(int(ru.id[j[b]])) if there[b] else None,
            }
        )
    return Finding(count, examples)


def _shown(record_id: int) -> int | str:
    return "marker" if record_id == MARKER_ID else record_id


def _exactly_once(c: _Context, pairs: tuple[tuple[str, str], ...]) -> dict[str, Finding]:
    h, sends = c.h, c.h.sends
    missing, repeated = Finding(), Finding()
    for in_topic, out_topic in pairs:
        code = {t: h.topics.index(t) if t in h.topics else -2 for t in (in_topic, out_topic)}
        inputs = c.visible & (sends.topic == code[in_topic])
        outputs = np.flatnonzero(c.visible & (sends.topic == code[out_topic]) & (sends.source >= 0))
        src = h.slot_of(sends.source[outputs])
        per_input = np.bincount(src[src >= 0], minlength=len(inputs))
        zero = np.flatnonzero(inputs & (per_input == 0))
        many = np.flatnonzero(inputs & (per_input > 1))
        topics = f"{in_topic} -> {out_topic}"
        missing.count += len(zero)
        missing.examples += [{"input": int(i), "topics": topics, "outputs": []} for i in h.id_of(zero[: c.n_ex])]
        repeated.count += len(many)
        for s in many[: c.n_ex]:
            outs = h.id_of(outputs[src == s])
            repeated.examples.append(
                {"input": int(h.id_of(np.array([s]))[0]), "topics": topics, "outputs": [int(o) for o in outs]}
            )
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


def _zombie(c: _Context) -> Finding:
    h = c.h
    fence = c.fence
    if not np.any(fence < _NEVER):
        return Finding()
    candidates = np.flatnonzero(c.visible & c.in_txn & (fence[c.session_index] < _NEVER))
    t = c.txn_index[candidates]
    acted = np.where(h.txns.commit_us[t] >= 0, h.txns.commit_us[t], h.txns.begin_us[t])
    zombies = candidates[acted >= fence[c.session_index[candidates]]]
    examples = []
    for s in zombies[: c.n_ex]:
        about = c.about(int(s))
        examples.append({**about, "at": c.places(about["id"]), "fenced_at_us": int(fence[c.session_index[s]])})
    return Finding(len(zombies), examples)


def _data_rows(view: View | None) -> int:
    return 0 if view is None else int(np.count_nonzero(view.id != MARKER_ID))
