"""Broker properties become the KAFKA_* variables both images understand, and back."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.cluster.kafka import env_name

RUN_SCRIPT = Path(__file__).parents[3] / "harness" / "cluster" / "dockerfiles" / "kafka" / "run"


@pytest.mark.parametrize(
    ("prop", "var"),
    [
        ("min.insync.replicas", "KAFKA_MIN_INSYNC_REPLICAS"),
        ("log.dirs", "KAFKA_LOG_DIRS"),
        ("some_underscored.name", "KAFKA_SOME___UNDERSCORED_NAME"),
        ("dashed-name.x", "KAFKA_DASHED__NAME_X"),
    ],
)
def test_env_name_follows_the_official_image_rules(prop: str, var: str) -> None:
    assert env_name(prop) == var


def test_the_image_run_script_renders_the_same_properties_back(tmp_path: Path) -> None:
    # Run only the rendering part of the image's entrypoint, against a temp file.
    script = (
        RUN_SCRIPT.read_text()
        .split(': "${CLUSTER_ID')[0]
        .replace("/opt/kafka/config/server.properties", str(tmp_path / "p"))
    )
    props = ["min.insync.replicas", "some_underscored.name", "dashed-name.x"]
    env = {env_name(p): str(i) for i, p in enumerate(props)} | {"KAFKA_HEAP_OPTS": "-Xmx1g", "PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", script], env=env, check=True)
    rendered = dict(line.split("=", 1) for line in (tmp_path / "p").read_text().splitlines())
    assert rendered == {p: str(i) for i, p in enumerate(props)}


def test_cluster_ids_never_start_with_a_dash() -> None:
    # The storage tool would read "-t -abc" as two options and every broker would exit.
    from harness.cluster.kafka import new_cluster_id

    ids = [new_cluster_id() for _ in range(5000)]
    assert all(len(i) == 22 and not i.startswith("-") for i in ids)
