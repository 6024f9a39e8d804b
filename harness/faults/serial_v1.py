"""Reading ``kafka-eos-harness/schedule/1``, the form before schedules named the parts of the
plan: there a run's names were written with placeholders, ``{topic}`` for the main topic and
``{side}`` for the side's name, which prefixed every topic, group and transactional.id.

``converted`` turns such a document into the current form (``harness.faults.serial``), each
placeholder name into the part of the plan it stood for. Which name stood for which part is
what schedule/1 documents were written against (the harness's producer and pipeline
workloads, and check-app's output topic as ``{topic}``), fixed here as it was then.
"""

from __future__ import annotations

import re
from typing import Any

SCHEMA = "kafka-eos-harness/schedule/1"
_TOPICS = {"{topic}": "main", "{side}": "main", "{side}-in": "input", "{side}-out": "output", "{side}-totals": "totals"}
# A pipeline's transactional.ids ({side}-app: shared by every instance; {side}-app-N: instance
# N's) and group; a producer's transactional.id: the configured one, then -{topic}.
_PIPELINE_ID = re.compile(r"\{side\}-app(?:-(\d+))?")
_PIPELINE_GROUP = re.compile(r"\{side\}-group(?:-\d+)?")
_PRODUCER_ID = re.compile(r".+-\{topic\}")


def converted(doc: dict[str, Any]) -> Any:
    """The steps of ``doc`` (schedule/1) in the current form; a ``ValueError`` names a
    placeholder name that stands for no part of a plan, and how to write it instead."""
    return _walk(doc.get("steps"))


def _walk(raw: Any) -> Any:
    if isinstance(raw, dict):
        return {k: _walk(v) for k, v in raw.items()}
    if isinstance(raw, list):
        return [_walk(v) for v in raw]
    if isinstance(raw, str) and ("{topic}" in raw or "{side}" in raw):
        return _part(raw)
    return raw


def _part(name: str) -> dict[str, str]:
    if name in _TOPICS:
        return {"plan": _TOPICS[name]}
    pipeline = _PIPELINE_ID.fullmatch(name)
    if pipeline:
        return {"plan": "transactional_id", "app": f"transformer-{pipeline.group(1) or 1}"}
    if _PIPELINE_GROUP.fullmatch(name):
        return {"plan": "group_id", "app": "transformer-1"}
    if _PRODUCER_ID.fullmatch(name):
        return {"plan": "transactional_id", "app": "producer-1"}
    raise ValueError(
        f"{SCHEMA}: {name!r} stands for no part of a plan; write the schedule in the current schema, naming it "
        'as {"plan": "input"} or {"plan": "transactional_id", "app": "transformer-1"} (docs/faults.md)'
    )
