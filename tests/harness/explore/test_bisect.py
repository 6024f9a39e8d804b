"""bisect's own logic, judged by a table instead of replays (the replays themselves are replay's,
tested on a cluster): the range read from a registry's list, the boundary found by halving in
few judgements, a range clean at both ends split at the run's own release, bad input refused,
and the regression pair it writes loaded as ``kafka-harness run FILE`` loads it."""

from __future__ import annotations

from pathlib import Path

import pytest

import scenarios
from harness import registry
from harness.errors import HarnessError
from harness.explore import bisect
from harness.explore.kept import Kept
from harness.explore.subject import Subject
from harness.faults import App, Step, kill, serial
from harness.verdict.outcome import Outcome

PUBLISHED = ["3.3.0", "3.3.1", "3.4.0", "3.5.0", "3.5.2", "3.6.0", "3.6.1", "3.7.0", "3.9.2", "4.0.0", "4.4.0"]


@pytest.fixture(autouse=True)
def _registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "published", lambda kind: ["3.2.0", *PUBLISHED])


def _kept(tmp_path: Path, subject: Subject) -> Kept:
    doc = serial.to_json([Step(1.0, kill(App("producer-1")), 1.0)])
    return Kept(tmp_path / "run-002", subject, doc, {"subject": subject.to_json(), "seed": 1, "run": 2})


def _by_table(monkeypatch: pytest.MonkeyPatch, affected: set[str]) -> list[str]:
    """Judge releases by the table (affected: 2 of 2 failed with aborted_read), noting each asked."""
    asked: list[str] = []

    def judge(kept: Kept, axis: str, release: str, times: int, *rest: object) -> bisect.Point:
        asked.append(release)
        if release in affected:
            return bisect.Point(release, [Outcome.FAILED] * times, bisect.Counter({"aborted_read": 7}))
        return bisect.Point(release, [Outcome.PASSED] * times)

    monkeypatch.setattr(bisect, "_judge", judge)
    return asked


def test_the_range_is_the_registry_s_final_releases_between_its_ends() -> None:
    assert bisect.releases("kafka", "3.5.0..4.0.0") == ["3.5.0", "3.5.2", "3.6.0", "3.6.1", "3.7.0", "3.9.2", "4.0.0"]


@pytest.mark.parametrize(
    ("axis", "span", "said"),
    [
        ("zookeeper", "3.5.0..4.0.0", "unknown release axis"),
        ("kafka", "3.5.0-4.0.0", "LO..HI"),
        ("kafka", "4.0.0..3.5.0", "from older to newer"),
        ("kafka", "3.5.1..4.0.0", "3.5.1 is not a published release"),
        ("kafka", "3.2.0..4.0.0", "too old"),
        ("librdkafka", "1.9.2..2.1.1", "too old"),
    ],
)
def test_a_bad_range_is_one_line(axis: str, span: str, said: str) -> None:
    with pytest.raises(HarnessError, match=said):
        bisect.releases(axis, span)


def test_halving_finds_the_fix_in_few_judgements_and_writes_a_pair_that_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _by_table(monkeypatch, {"3.3.0", "3.3.1", "3.4.0", "3.5.0", "3.5.2"})
    kept = _kept(tmp_path, Subject("R1", kafka_version="3.5.2"))
    found = bisect.bisect(kept, "kafka", PUBLISHED, 2, settings=None)  # type: ignore[arg-type]
    assert [(a.release, b.release) for a, b in found.boundaries] == [("3.5.2", "3.6.0")]
    assert len(asked) <= 2 + 4 and len(set(asked)) == len(asked)  # the ends, then log2 of the rest, none twice
    assert found.pair is not None and (found.folder / "bisect.json").exists()
    pair = scenarios.get(str(found.pair))
    assert (pair.control.kafka_version, pair.guarantee.kafka_version) == ("3.5.2", "3.6.0")
    assert pair.control.expect["aborted_read"] == "one of" and pair.guarantee.expect["aborted_read"] == "forbidden"
    assert pair.guarantee.checks == () and not pair.sides_together
    assert pair.schedule == serial.steps(kept.doc)
    assert (
        "last affected 3.5.2, first clean 3.6.0" in pair.story and "| 3.5.2 | 2 of 2 | aborted_read 7 |" in pair.story
    )


def test_a_range_clean_at_both_ends_is_split_at_the_run_s_own_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _by_table(monkeypatch, {"3.5.0", "3.5.2"})
    found = bisect.bisect(_kept(tmp_path, Subject("R1", kafka_version="3.5.2")), "kafka", PUBLISHED, 2, None)  # type: ignore[arg-type]
    assert [bisect.describe(b) for b in found.boundaries] == [
        "last clean 3.4.0, first affected 3.5.0",
        "last affected 3.5.2, first clean 3.6.0",
    ]
    assert (found.affected.release, found.clean.release) == ("3.5.2", "3.6.0")  # the pair stands on the fix


def test_ends_alike_and_nothing_inside_to_split_them_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _by_table(monkeypatch, set())
    with pytest.raises(HarnessError, match="both ends are clean"):
        bisect.bisect(_kept(tmp_path, Subject("R1", kafka_version="3.5.2")), "kafka", PUBLISHED, 2, None)  # type: ignore[arg-type]


def test_a_client_axis_pins_the_client_and_keeps_the_run_s_kafka(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bisect, "_SharedCluster", lambda kept, settings: type("S", (), {"close": lambda self: None})())
    _by_table(monkeypatch, {"2.0.2", "2.1.0"})
    span = ["2.0.2", "2.1.0", "2.1.1", "2.2.0", "2.16.1"]
    found = bisect.bisect(_kept(tmp_path, Subject("B1", kafka_version="3.9.2")), "librdkafka", span, 1, None)  # type: ignore[arg-type]
    pair = scenarios.get(str(found.pair))
    assert (pair.control.client, pair.guarantee.client) == ("librdkafka==2.1.0", "librdkafka==2.1.1")
    assert pair.control.kafka_version == pair.guarantee.kafka_version == "3.9.2"
