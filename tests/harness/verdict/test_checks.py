"""Checks on what a protocol fault's hits recorded: a held request's answer, a late copy's answer,
what a broker told one client."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from harness.verdict.checks import answered, held_answered, late_copy_answered
from harness.verdict.record import SideRecord


def _side(*hits: dict[str, Any]) -> Any:
    return SimpleNamespace(record=SideRecord(faults=[{"fault": "protocol", "hits": list(hits)}, {"fault": "pause"}]))


ON_TIME = {"action": "hold", "broker_error": "INVALID_TXN_STATE"}  # the client was still waiting for it
LATE = {"action": "hold", "broker_error": "NONE", "client_closed": True}  # the client had given up and resent it
UNANSWERED = {"action": "hold", "client_closed": True}


@pytest.mark.parametrize(
    ("check", "hits", "ok"),
    [
        (held_answered(("INVALID_TXN_STATE",), ""), [ON_TIME], True),
        (held_answered(("INVALID_TXN_STATE",), ""), [LATE], False),
        (held_answered((), ""), [LATE], True),
        (held_answered((), ""), [UNANSWERED], False),
        (late_copy_answered(("INVALID_TXN_STATE",), ""), [ON_TIME], False),  # not a late copy
        (late_copy_answered(("NONE",), ""), [ON_TIME, LATE], True),
        (late_copy_answered((), ""), [UNANSWERED], False),
        (held_answered((), ""), [], False),
    ],
)
def test_a_held_request_is_judged_by_its_answer(check: Any, hits: list[dict[str, Any]], ok: bool) -> None:
    result = check.run(_side(*hits))
    assert result["ok"] == ok, result["seen"]


def test_answered_looks_at_the_client_and_api_asked() -> None:
    side = _side(
        {"api": "EndTxn", "client_id": "transformer-2", "broker_error": "NONE"},
        {"api": "EndTxn", "client_id": "transformer-1", "broker_error": "INVALID_PRODUCER_ID_MAPPING"},
        {"api": "InitProducerId", "client_id": "transformer-1"},  # no answer seen
    )
    mapping = answered(("EndTxn",), "transformer-1", ("INVALID_PRODUCER_ID_MAPPING",), "why")
    assert mapping.run(side)["ok"]
    assert not answered(("EndTxn",), "transformer-1", ("NONE",), "why").run(side)["ok"]
    fenced = answered(("InitProducerId",), "transformer-1", ("PRODUCER_FENCED",), "why").run(side)
    assert not fenced["ok"] and fenced["seen"] == "answered [('InitProducerId', 'no answer seen')]"
    assert answered(("EndTxn",), "transformer-9", ("NONE",), "why").run(side)["seen"] == "answered nothing recorded"
