"""The brokers' class archive: handed to a broker read-only with the option that maps it, never
for an image the harness did not build, and made once per image (on a real engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.cluster import broker_archive
from harness.settings import Settings


class Container:
    def __init__(self) -> None:
        self.volumes: list[tuple[str, str, str]] = []
        self.env: dict[str, str] = {}

    def with_volume_mapping(self, host: str, container: str, mode: str = "ro") -> Any:
        self.volumes.append((host, container, mode))
        return self

    def with_env(self, key: str, value: str) -> Any:
        self.env[key] = value
        return self


def test_a_broker_maps_the_archive_read_only(tmp_path: Path) -> None:
    container = Container()
    broker_archive.mount(container, tmp_path / "kafka.jsa")
    assert container.volumes == [(str(tmp_path / "kafka.jsa"), broker_archive.IN_CONTAINER, "ro")]
    assert f"-XX:SharedArchiveFile={broker_archive.IN_CONTAINER}" in container.env["KAFKA_OPTS"]


def test_without_an_archive_nothing_changes() -> None:
    container = Container()
    broker_archive.mount(container, None)
    assert container.volumes == [] and container.env == {}


def test_an_image_the_harness_did_not_build_gets_none() -> None:
    assert broker_archive.path(Settings(kafka_image_override="apache/kafka:4.0.0")) is None


@pytest.mark.cluster  # Docker and the broker image
def test_the_archive_is_made_once_per_image_and_jvm_options() -> None:
    settings = Settings()
    archive = broker_archive.ensure(settings)
    assert archive is not None and archive.is_file()
    assert broker_archive.ensure(settings) == archive  # there already: nothing to make
    other = broker_archive.path(Settings(broker_heap="768m"))
    assert other is not None and other != archive
