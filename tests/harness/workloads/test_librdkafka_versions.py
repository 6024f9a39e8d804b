"""confluent-kafka of another release for the Python apps: installed once into the cache, first on
the apps' import path; a release of every minor line making a transactional producer there; and a
pair whose control pins librdkafka 2.1.0 on the real cluster."""

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
# One release of every minor line, 2.0 to the newest (`pip index versions confluent-kafka`,
# 2026-11-27): the last patch of each line, each with a cp311 manylinux wheel on PyPI (2.0.2 is the
# oldest with one; 2.16.1, the newest, is the harness's own); and 2.12.0, the one release whose
# libversion() gives the text alone. Beside each, the librdkafka its wheel bundles, as libversion()
# gives it: of the same minor line, but in 2.7.0 and 2.9.0 the previous line's (the very librdkafka
# file of 2.6.1 and 2.8.0), and in a few an older patch.
EVERY_MINOR_LINE = (
    ("2.0.2", "2.0.2"),
    ("2.1.1", "2.1.1"),
    ("2.2.0", "2.2.0"),
    ("2.3.0", "2.3.0"),
    ("2.4.0", "2.4.0"),
    ("2.5.3", "2.5.3"),
    ("2.6.1", "2.6.1"),
    ("2.7.0", "2.6.1"),
    ("2.8.2", "2.8.0"),
    ("2.9.0", "2.8.0"),
    ("2.10.1", "2.10.1"),
    ("2.11.1", "2.11.1"),
    ("2.12.0", "2.12.0"),
    ("2.12.2", "2.12.1"),
    ("2.13.2", "2.13.2"),
    ("2.14.2", "2.14.2"),
    ("2.15.1", "2.15.1"),
    ("2.16.1", "2.16.0"),
)


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
    probe = (
        "import confluent_kafka as c, numpy; from harness.workloads.apps.transactions import client_releases; "
        "print(*client_releases(c))"
    )
    cmd = command(settings, OLD, "unused")(Path("spec.json"), {})
    assert cmd[0] == "env" and cmd[1].startswith(f"PYTHONPATH={place}:")
    ran = subprocess.run([*cmd[:3], "-c", probe], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == [OLD, OLD]


@pytest.mark.parametrize(("version", "librdkafka"), EVERY_MINOR_LINE, ids=[v for v, _ in EVERY_MINOR_LINE])
def test_every_minor_line_installs_as_a_run_installs_it_and_makes_a_transactional_producer(
    version: str, librdkafka: str
) -> None:
    # The real cache, as a run's: the first `make test` installs each release, later ones reuse it.
    settings = Settings()
    cmd = command(settings, version, "unused")(Path("spec.json"), {})
    assert ready(settings, version)
    # Construction only: librdkafka's threads may try 127.0.0.1:1, where nothing listens.
    program = (
        "import confluent_kafka as c; from harness.workloads.apps.transactions import client_releases; "
        "config = {'bootstrap.servers': '127.0.0.1:1'}; "
        "c.Producer({**config, 'enable.idempotence': True, 'transactional.id': 'x'}); "
        "c.Consumer({**config, 'group.id': 'x'}).close(); "
        "print(*client_releases(c))"
    )
    ran = subprocess.run([*cmd[: cmd.index("-m")], "-c", program], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == [version, librdkafka]


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
    control, guarantee = pair.control.record, pair.guarantee.record
    assert (control.client, control.client_version, control.client_pin) == (
        "librdkafka",
        OLD,
        f"librdkafka=={OLD}",
    )
    assert control.client_ran == [OLD]  # confluent_kafka.libversion() in the app itself
    assert (guarantee.client_version, guarantee.client_pin, guarantee.client_requested) == (PINNED, "", "")
    assert guarantee.client_ran != [OLD]
