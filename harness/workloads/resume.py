"""Where a restarted app resumes, planned by the harness from its earlier incarnations' ledgers.

A restarted app continues its session (``harness.history.ledger``): its next record id and
its next transaction number carry on from the highest ones its ledgers show, and the
per-record outcomes and transaction states tell what is unfinished. The plan goes into
the new incarnation's spec as ``resume``, the same for the Python and the Java apps:

- a producer: ``{"resend": [seq, ...], "in_doubt": [seq, ...], "next_seq": n, "next_txn": t}``.
  It sends ``resend`` first, then ``next_seq`` onwards. Not transactional: every record
  that was not acknowledged is resent (the ones written but not yet acknowledged when the
  process died are written again: that is the point). Transactional: every record outside
  a committed transaction; those of a transaction whose commit was asked for but never
  answered are ``in_doubt`` too: the commit may have happened, so after
  ``init_transactions`` (which finishes the old transaction) the app reads the topic back
  read_committed and drops the ones it finds.
- a transformer: ``{"next_seq": n, "next_txn": t}`` (its inputs come back from the group).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness.history import loading
from harness.history.columns import OK, TXN_COMMITTED, TXN_OPEN
from harness.history.records import SEQ_BITS


@dataclass
class SessionSoFar:
    next_seq: int
    next_txn: int
    invoked: np.ndarray  # bool per seq
    acknowledged: np.ndarray  # bool per seq
    txn: np.ndarray  # int32 transaction number per seq, -1 outside transactions
    committed_txns: np.ndarray  # transaction numbers that committed
    unanswered_txns: np.ndarray  # commit requested, outcome never recorded: ask the log

    @classmethod
    def read(cls, ledgers: list[str], session: int) -> SessionSoFar:
        empty = np.zeros(0, np.int64)
        # An incarnation killed before it opened its ledger sent nothing: it has none to read.
        ledgers = [p for p in ledgers if Path(p).exists()]
        if not ledgers:
            return cls(0, 0, empty.astype(bool), empty.astype(bool), empty.astype(np.int32), empty, empty)
        earlier = loading.load([Path(p) for p in ledgers], None)
        s, sends, txns = earlier.sessions, earlier.sends, earlier.txns
        k = int(np.searchsorted(s.id, session))
        if k == len(s.id) or s.id[k] != session:
            return cls.read([], session)
        mine = slice(int(s.base[k]), int(s.base[k] + s.size[k]))
        own = (txns.key >> SEQ_BITS) == session
        numbers, states = txns.key[own] & ((1 << SEQ_BITS) - 1), txns.state[own]
        return cls(
            next_seq=int(s.size[k]),
            next_txn=int(numbers.max()) + 1 if len(numbers) else 0,
            invoked=sends.invoked[mine],
            acknowledged=sends.outcome[mine] == OK,
            txn=sends.txn[mine],
            committed_txns=numbers[states == TXN_COMMITTED],
            unanswered_txns=numbers[(states == TXN_OPEN) & (txns.commit_us[own] >= 0)],
        )


def producer_resume(earlier: list[Path], session: int, transactional: bool) -> dict[str, Any] | None:
    """A restarted producer's plan; None for a first start."""
    if not earlier:
        return None
    so_far = SessionSoFar.read([str(p) for p in earlier], session)
    if transactional:
        done = np.isin(so_far.txn, so_far.committed_txns)
        in_doubt = np.isin(so_far.txn, so_far.unanswered_txns) & so_far.invoked & ~done
    else:
        done, in_doubt = so_far.acknowledged, np.zeros(len(so_far.invoked), bool)
    return {
        "resend": np.flatnonzero(so_far.invoked & ~done).tolist(),
        "in_doubt": np.flatnonzero(in_doubt).tolist(),
        "next_seq": so_far.next_seq,
        "next_txn": so_far.next_txn,
    }


def transformer_resume(earlier: list[Path], session: int) -> dict[str, Any] | None:
    """A restarted transformer's plan: where its ids and transaction numbers carry on."""
    if not earlier:
        return None
    so_far = SessionSoFar.read([str(p) for p in earlier], session)
    return {"next_seq": so_far.next_seq, "next_txn": so_far.next_txn}
