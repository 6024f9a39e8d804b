"""Checks on what a protocol fault's hits recorded: a held request's answer, a late copy's answer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from harness.verdict.checks import held_answered, late_copy_answered


def _side(*hits: dict[str, Any]) -> Any:
    return SimpleNamespace(context={"faults": [{"hits": [{"action": "hold", **h} for h in hits]}]})


ON_TIME = {"broker_error": "INVALID_TXN_STATE"}  # the client was still waiting for it
LATE = {"broker_error": "NONE", "client_closed": True}  # the client had given up and resent it
UNANSWERED = {"client_closed": True}


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
