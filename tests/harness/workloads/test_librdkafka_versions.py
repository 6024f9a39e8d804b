"""confluent-kafka of another release for the Python apps: installed once into the cache, first on
the apps' import path; and a pair whose control pins librdkafka 2.1.0 on the real cluster."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

import scenarios
from harness import commands
from harness.cluster.kafka import KafkaCluster
from harness.runner import run_pair
from harness.settings import Settings
from harness.workloads import librdkafka_versions
from harness.workloads.librdkafka_versions import PINNED, command, folder, ready, site

OLD = "2.1.0"


def test_the_pinned_release_is_the_harness_own_and_needs_nothing(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    assert ready(settings, PINNED) and site(settings, PINNED) is None
    spec = tmp_path / "app.spec.json"
    assert command(settings, PINNED, "harness.workloads.apps.producer")(spec, {})[1:] == [
        "-m",
        "harness.workloads.apps.producer",
        str(spec),
    ]
    assert not list(tmp_path.iterdir())


def test_another_release_is_installed_once_into_its_own_folder_and_put_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(cache_dir=tmp_path)
    assert not ready(settings, OLD)
    place = site(settings, OLD)  # pip, from PyPI (or pip's own cache)
    assert place == folder(settings, OLD) == tmp_path / "client-envs" / f"confluent-kafka-{OLD}"
    assert ready(settings, OLD)
    assert sorted(p.name for p in (tmp_path / "client-envs").iterdir()) == [f"confluent-kafka-{OLD}"]

    def no_pip(*args: object, **kwargs: object) -> None:
        raise AssertionError("installed again")

    monkeypatch.setattr(commands, "run", no_pip)
    assert site(settings, OLD) == place  # warm: the marker alone
    # The app's command line: that folder first, then the harness's own source, this interpreter.
    probe = "import confluent_kafka as c, numpy, harness; print(c.version()[0], c.libversion()[0])"
    cmd = command(settings, OLD, "unused")(Path("spec.json"), {})
    assert cmd[0] == "env" and cmd[1].startswith(f"PYTHONPATH={place}:")
    ran = subprocess.run([*cmd[:3], "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == [OLD, OLD]


def test_a_release_pypi_has_no_wheel_of_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    with pytest.raises(Exception, match=r"confluent-kafka 2\.0\.9 \(librdkafka\) is not on PyPI as a wheel") as e:
        librdkafka_versions.site(settings, "2.0.9")
    assert "\n" not in str(e.value)
    assert list((tmp_path / "client-envs").iterdir()) == []


@pytest.mark.cluster
def test_a1_with_its_control_pinned_to_librdkafka_2_1_0_passes_and_says_what_ran(
    cluster: KafkaCluster, tmp_path: Path
) -> None:
    a1 = scenarios.get("A1")
    pinned = replace(a1, control=replace(a1.control, client=f"librdkafka=={OLD}"))
    pair = run_pair(cluster, pinned, tmp_path)
    assert pair.outcome == "passed", pair.control.reasons + pair.guarantee.reasons
    control, guarantee = pair.control.context, pair.guarantee.context
    assert (control["client"], control["client_version"], control["client_pin"]) == (
        "librdkafka",
        OLD,
        f"librdkafka=={OLD}",
    )
    assert control["client_ran"] == [OLD]  # confluent_kafka.libversion() in the app itself
    assert (guarantee["client_version"], guarantee["client_pin"], guarantee["client_requested"]) == (PINNED, "", "")
    assert guarantee["client_ran"] != [OLD]
