"""Release versions: read as X.Y.Z, compared as numbers, refused below each kind's oldest."""

from __future__ import annotations

import pytest

from harness import versions
from harness.errors import HarnessError


def test_versions_compare_as_numbers_not_strings() -> None:
    assert versions.key("3.10.0") > versions.key("3.9.2")
    assert sorted(["4.4.0", "3.10.1", "3.9.2"], key=versions.key) == ["3.9.2", "3.10.1", "4.4.0"]


@pytest.mark.parametrize("version", ["3.3.0", "3.6.1", "3.10.0", "4.4.0", "10.0.0"])
def test_a_kraft_release_is_a_kafka_version(version: str) -> None:
    assert versions.kafka(version) == version


@pytest.mark.parametrize(
    ("version", "said"),
    [
        ("3.6", "Kafka version '3.6' is not a release number X.Y.Z: 3.3.0 or newer"),
        ("3.6.1-rc0", "is not a release number"),
        ("v3.6.1", "is not a release number"),
        ("", "Kafka version '' is not a release number"),
        ("3.2.3", "Kafka 3.2.3 is too old: 3.3.0 or newer (the clusters run in KRaft mode"),
        ("2.8.2", "Kafka 2.8.2 is too old"),
    ],
)
def test_a_malformed_or_pre_kraft_kafka_version_is_refused_saying_why(version: str, said: str) -> None:
    with pytest.raises(HarnessError) as refused:
        versions.kafka(version)
    assert said in str(refused.value)
    assert "\n" not in str(refused.value)


def test_the_oldest_release_of_a_kind_is_accepted_and_the_one_before_is_not() -> None:
    assert versions.release("2.0.2", "thing", "2.0.2", "why") == "2.0.2"
    with pytest.raises(HarnessError, match=r"^thing 2.0.1 is too old: 2.0.2 or newer \(why\)$"):
        versions.release("2.0.1", "thing", "2.0.2", "why")
