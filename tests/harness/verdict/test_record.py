"""``SideRecord``: a side's verdict.json reads back to the same JSON; a folder of an older harness
(no title or story, keys since retired) still reads, and keeps what it does not know."""

from __future__ import annotations

from harness.verdict.record import SideRecord

NEW = {
    "title": "lost ack",
    "story": "A producer without idempotence...",
    "kafka_version": "4.4.0",
    "topics": ["t"],
    "workload": [{"app": "producer-1", "incarnation": 1, "exit": 0}],
    "faults": [{"fault": "kill", "hits": []}],
    "run_dir": "/runs/x/control",
    "started_at": 1.0,
    "ended_at": 2.0,
    "sink": {"sink_missing": {"count": 0, "examples": []}},
    "unknown": ["the checker raised ValueError: boom"],
}


def test_a_record_reads_back_to_the_json_it_was_read_from() -> None:
    doc = SideRecord.from_json(NEW).to_json()
    assert {k: doc[k] for k in NEW} == NEW
    assert SideRecord.from_json(doc).to_json() == doc


def test_an_old_record_without_title_or_story_reads_with_defaults_and_keeps_unknown_keys() -> None:
    old = {"kafka_version": "3.9.2", "workload": [], "retired_key": {"a": 1}}
    record = SideRecord.from_json(old)
    assert (record.title, record.story, record.fault_errors, record.unknown) == ("", "", [], [])
    assert record.started_at is None and record.sink == {}
    doc = record.to_json()
    assert doc["retired_key"] == {"a": 1}
    assert "sink" not in doc and "started_at" not in doc and "reference" not in doc  # written only when held
