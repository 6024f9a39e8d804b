"""``answered``: what a broker told one client, from the hits a protocol fault recorded."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from harness.verdict.checks import answered


def _side(*hits: dict[str, Any]) -> Any:
    return SimpleNamespace(context={"faults": [{"fault": "protocol", "hits": list(hits)}, {"fault": "pause"}]})


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
