"""confluent-kafka of any release for the Python apps, beside the harness's own pinned one.

Each confluent-kafka wheel bundles the librdkafka of its release, so a librdkafka version is a
confluent-kafka install. A release other than the pinned one is installed once with pip, from
wheels only and without dependencies (it has none), into a folder of its own:
``<cache>/client-envs/confluent-kafka-<version>/``, staged and renamed into place
(harness.cache_folders), and checked to import before it is. An app then runs on the harness's
own interpreter with that folder first on its import path: the folder's confluent_kafka wins,
everything else (the standard library, numpy for a restarted producer's read-back, the harness
itself) is the harness's own. The harness's process never imports it.

PyPI has Python 3.11 wheels of confluent-kafka from 2.0.2 on (1.9.x has none).
"""

from __future__ import annotations

import importlib.metadata
import os
import sys
from pathlib import Path
from subprocess import PIPE, STDOUT

from harness import cache_folders, commands, stopping
from harness.errors import HarnessError
from harness.progress import step
from harness.settings import Settings
from harness.workloads.process import Command, python_app

PINNED = importlib.metadata.version("confluent-kafka")  # the harness's own, in its environment
OLDEST = "2.0.2"
# What an installed folder was made for: a wheel fits one Python and machine.
_INTERPRETER = f"{sys.implementation.cache_tag}-{os.uname().machine}"
# Prints the release of the confluent_kafka it imports and of the librdkafka inside it, read as
# the apps read them: the form of confluent-kafka's version() and libversion() changed in 2.12.
_PROBE = (
    "import confluent_kafka as c; from harness.workloads.apps.transactions import client_releases; "
    "print(*client_releases(c))"
)


def folder(settings: Settings, version: str) -> Path:
    return settings.cache_dir / "client-envs" / f"confluent-kafka-{version}"


def _marker(version: str) -> str:
    return f"confluent-kafka=={version} {_INTERPRETER}"


def ready(settings: Settings, version: str) -> bool:
    """Whether the apps can run on ``version`` without installing anything."""
    return version == PINNED or cache_folders.complete(folder(settings, version), _marker(version))


def site(settings: Settings, version: str) -> Path | None:
    """The folder holding confluent-kafka ``version``, installed with pip on first use; None for
    the pinned one, which the harness's environment holds."""
    if version == PINNED:
        return None
    place = folder(settings, version)
    if cache_folders.complete(place, _marker(version)):
        return place
    with (
        step(f"install confluent-kafka {version} (librdkafka) from PyPI"),
        cache_folders.staging(place) as work,
    ):
        staged = work / "site"
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps"]
        try:
            commands.run(
                [*pip, "--only-binary=:all:", "--target", str(staged), f"confluent-kafka=={version}"],
                f"install confluent-kafka {version}",
                "check that PyPI is reachable",
            )
        except HarnessError as exc:
            if "No matching distribution" not in exc.detail:
                raise
            raise HarnessError(
                f"confluent-kafka {version} (librdkafka) is not on PyPI as a wheel for this Python: "
                f"try a release from {OLDEST} on (`pip index versions confluent-kafka` lists them)",
                exc.detail,
            ) from exc
        found = _probe(staged)
        if found[0] != version:
            raise HarnessError(f"installing confluent-kafka {version} gave {found[0]}: delete {staged.parent}")
        cache_folders.publish(staged, place, _marker(version))
    return place


def _probe(path: Path) -> list[str]:
    """The confluent-kafka and librdkafka releases an app sees with ``path`` first."""
    # On an app's own import path (that folder, then the harness's source), as it will run.
    app = python_app("unused", [path])(Path("unused"), {})
    with stopping.start([*app[: app.index("-m")], "-c", _PROBE], stdout=PIPE, stderr=STDOUT) as proc:
        out = proc.communicate()[0].decode(errors="replace")
    if proc.returncode != 0:
        raise HarnessError(f"confluent-kafka in {path} does not import", out.strip()[-2000:])
    return out.split()


def command(settings: Settings, version: str, module: str) -> Command:
    """How the Python app ``module`` starts on confluent-kafka ``version``."""
    found = site(settings, version)
    return python_app(module, [found] if found else [])
