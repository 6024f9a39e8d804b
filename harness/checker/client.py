"""Findings about the client apps themselves, from their reports (``workload`` in a side's
context: one report per app incarnation, the last JSON line it printed) and from the LSO
probe (``read_committed_stalls``): what an app went through that is not a property of
the stored records. What each means is in ``harness.checker.catalogue``.
"""

from __future__ import annotations

from typing import Any

TXN_ID_UNAUTHORIZED = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"


def _reports(context: dict[str, Any]) -> list[dict[str, Any]]:
    return list(context.get("workload", []))


def _setup_errors(context: dict[str, Any]) -> list[dict[str, Any]]:
    return [r["setup_error"] for r in _reports(context) if "setup_error" in r]


def config_error(context: dict[str, Any]) -> int:
    return sum(1 for e in _setup_errors(context) if e["config"])


def txn_init_failed(context: dict[str, Any]) -> int:
    return sum(
        1
        for e in _setup_errors(context)
        if e.get("stage") == "init_transactions" and not e["config"] and e["error"] != TXN_ID_UNAUTHORIZED
    )


def txn_id_unauthorized(context: dict[str, Any]) -> int:
    return sum(1 for e in _setup_errors(context) if e["error"] == TXN_ID_UNAUTHORIZED)


def app_fenced(context: dict[str, Any]) -> int:
    return sum(1 for r in _reports(context) if "fenced" in r)


def client_stuck(context: dict[str, Any]) -> int:
    return sum(1 for r in _reports(context) if "stuck" in r)


def read_committed_stall(context: dict[str, Any]) -> int:
    return len(context.get("read_committed_stalls", []))
