"""Findings about the client apps themselves, from their reports (``workload`` in a side's
record: one report per app incarnation, the last JSON line it printed) and from the LSO
probe (``read_committed_stalls``): what an app went through that is not a property of
the stored records. What each means is in ``harness.checker.catalogue``.
"""

from __future__ import annotations

from typing import Any, Protocol

TXN_ID_UNAUTHORIZED = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"


class Recorded(Protocol):
    """What the client and sink findings read of a side's record (harness.verdict.record)."""

    workload: list[dict[str, Any]]
    read_committed_stalls: list[dict[str, Any]]
    sink: dict[str, Any]


def _reports(record: Recorded) -> list[dict[str, Any]]:
    return record.workload


def _setup_errors(record: Recorded) -> list[dict[str, Any]]:
    return [r["setup_error"] for r in _reports(record) if "setup_error" in r]


def config_error(record: Recorded) -> int:
    return sum(1 for e in _setup_errors(record) if e["config"])


def txn_init_failed(record: Recorded) -> int:
    return sum(
        1
        for e in _setup_errors(record)
        if e.get("stage") == "init_transactions" and not e["config"] and e["error"] != TXN_ID_UNAUTHORIZED
    )


def txn_id_unauthorized(record: Recorded) -> int:
    return sum(1 for e in _setup_errors(record) if e["error"] == TXN_ID_UNAUTHORIZED)


def app_fenced(record: Recorded) -> int:
    return sum(1 for r in _reports(record) if "fenced" in r)


def client_stuck(record: Recorded) -> int:
    return sum(1 for r in _reports(record) if "stuck" in r)


def read_committed_stall(record: Recorded) -> int:
    return len(record.read_committed_stalls)
