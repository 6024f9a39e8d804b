"""What a user's project gets from ``pip install kafka-eos-harness``: no pyspark (it is the
``spark`` extra, which this checkout's setup installs), every Spark feature saying in one line
how to get it when it is missing, and nothing else needing it; a pytest plugin whose module
imports only pytest and the standard library (docs/your-app.md, "The pytest plugin")."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRA = "kafka-eos-harness[spark]"


def _python(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter with this checkout's harness and pyspark unimportable,
    as in an install without the ``spark`` extra."""
    blocked = "import sys\nsys.modules['pyspark'] = None  # import pyspark: ImportError; find_spec: None\n"
    return subprocess.run(
        [sys.executable, "-c", blocked + code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pyspark_is_the_spark_extra_and_this_checkouts_setup_installs_it() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]

    def names(requirements: list[str]) -> list[str]:
        return [re.split(r"[=<>!~\[; ]", r, maxsplit=1)[0] for r in requirements]

    assert "pyspark" not in names(project["dependencies"])
    assert names(project["optional-dependencies"]["spark"]) == ["pyspark"]
    assert "-e '.[dev,spark]'" in (ROOT / "scripts" / "setup.sh").read_text()


def test_without_pyspark_everything_but_spark_works() -> None:
    done = _python(
        "import harness.cli, harness.pytest_plugin, harness.checker.check, harness.recheck, harness.provision\n"
        "import harness.runner, harness.userapps.check_app, scenarios\n"
        "from harness.pytest_plugin import APP_LINKS, ExactlyOnceViolation\n"
        "scenarios.all_scenarios()\n"
        "print(sorted(m for m, mod in sys.modules.items() if mod and m.split('.')[0] in ('pyspark', 'py4j')))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


_SPARK_FEATURES = """
from harness import provision, recheck
from harness.errors import HarnessError
from harness.jvm import spark
from harness.settings import Settings
import scenarios

def fetched(*_):
    raise AssertionError("prepare went on to fetch and build")

provision.fetch = fetched
features = {
    "run C1": lambda: provision.prepare(Settings(), [scenarios.get("C1")]),
    "check --engine spark": lambda: recheck._spark([], Settings().runs_dir, "read_committed", (), "local[1]"),
    "import the Spark engine": lambda: __import__("harness.checker.spark.engine"),
    "import a Spark job": lambda: __import__("spark_jobs.kafka_sink"),
    "a Spark session": lambda: spark.session(Settings(), "x"),
    "setup's Spark steps": lambda: spark.setup_steps(Settings()),
}
for name, use in features.items():
    try:
        use()
        print(f"{name}: no error")
    except HarnessError as exc:
        print(f"{name}: {exc}")
"""


def test_each_spark_feature_without_pyspark_says_how_to_install_it() -> None:
    done = _python(_SPARK_FEATURES)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 6, done.stdout
    assert [line for line in lines if f"needs pyspark, which is not installed: pip install '{EXTRA}'" not in line] == []
    assert "run C1: C1 (a Spark scenario) needs pyspark" in lines[0]


def test_the_plugin_module_imports_only_pytest_and_the_standard_library() -> None:
    done = _python(
        "import pytest\n"
        "before = set(sys.modules)\n"
        "import harness.pytest_plugin\n"
        "new = set(sys.modules) - before\n"
        "print(sorted(m for m in new if m.split('.')[0] not in sys.stdlib_module_names))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['harness', 'harness.pytest_plugin']"


def test_the_plugins_public_names_are_the_fixtures_modules() -> None:
    from harness import pytest_fixtures, pytest_plugin

    for name in pytest_plugin.__all__:
        assert getattr(pytest_plugin, name) is getattr(pytest_fixtures, name)
    # A failed check names the class where users import it from.
    assert pytest_fixtures.ExactlyOnceViolation.__module__ == "harness.pytest_plugin"
