"""What an app's earlier incarnations did, read from their ledgers: where a restart resumes.

A restarted app continues its session (``harness.history.ledger``): its next record id and its
next transaction number carry on from the highest ones its ledgers show, and the
per-record outcomes and transaction states tell it what is unfinished.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.history import columns
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
        if not ledgers:
            return cls(0, 0, empty.astype(bool), empty.astype(bool), empty.astype(np.int32), empty, empty)
        earlier = columns.load([Path(p) for p in ledgers], None)
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
