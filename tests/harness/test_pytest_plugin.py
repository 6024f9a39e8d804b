"""The pytest plugin (harness.pytest_plugin) as a user's project meets it: a session that asks for
none of its fixtures starts nothing, and Ctrl-C in the middle of a test leaves no container and no
app process behind; an output still growing when the wait for it ends is said to be judged as it
stands. (What its fixtures do is shown by the example project's own tests,
examples/python-app, which `make test` runs through the installed plugin.)"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from harness import pytest_plugin
from harness.cluster.kafka import KafkaCluster
from tests.harness.test_stopping import left_after_exit, processes_naming

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "harness.pytest_plugin"


def _pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """pytest in ``project`` with this checkout's harness, its plugin loaded the way it is installed."""
    installed = any(e.value == PLUGIN for e in importlib.metadata.entry_points(group="pytest11"))
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *([] if installed else ["-p", PLUGIN]), *args],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _project(tmp_path: Path, test: str) -> Path:
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (project / "tests" / "test_it.py").write_text(test)
    return project


def test_a_session_asking_for_no_fixture_starts_no_cluster(tmp_path: Path) -> None:
    project = _project(tmp_path, "def test_plain():\n    assert True\n")
    # An image that does not exist: a cluster started anyway would fail the session.
    proc = _pytest(project, "-q", env={"KEH_KAFKA_IMAGE": "kafka-eos-harness/absent:0"})
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0 and "1 passed" in out, out
    help_proc = _pytest(project, "--help")
    out, _ = help_proc.communicate(timeout=120)
    assert "--keh-kafka-version" in out and "keh_runs_dir" in out


_INTERRUPTED = """
import sys, time

APP = [sys.executable, {app!r}, "--work-ms", "50"]

def test_interrupted(kafka_cluster, eos_input, kafka_app, faults):
    orders = eos_input("orders", 400)
    out = kafka_cluster.create_topic("out")
    app = kafka_app(APP, orders, out)
    app.wait_for_outputs(5)
    print("app running", flush=True)
    time.sleep(600)
"""


@pytest.mark.cluster
def test_ctrl_c_mid_test_leaves_nothing(tmp_path: Path) -> None:
    marker = tmp_path / f"app-{uuid.uuid4().hex[:8]}"  # in the app's command line: found in /proc
    marker.mkdir()
    shutil.copy(ROOT / "examples" / "python-app" / "src" / "eos_app.py", marker)
    project = _project(tmp_path, _INTERRUPTED.format(app=str(marker / "eos_app.py")))
    proc = _pytest(project, "-s", "-q")
    lines: list[str] = []
    running = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("app running"):
                running.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert running.wait(300), "".join(lines[-30:])
        assert processes_naming(marker), "the app is not running"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        proc.wait(120)
        print(f"pytest exited {time.monotonic() - sent:.1f}s after SIGINT")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, "".join(lines[-30:])
    assert left_after_exit(proc.pid) == []
    assert processes_naming(marker) == []


@pytest.mark.parametrize("growing", [True, False])
def test_an_output_still_growing_when_the_wait_ends_is_said(
    growing: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    counter = iter(range(1_000_000))
    monkeypatch.setattr(pytest_plugin, "QUIET_S", 0.1)
    monkeypatch.setattr(pytest_plugin, "high_watermarks", lambda *_: {"out-0": next(counter) if growing else 7})
    cluster = SimpleNamespace(bootstrap_servers=lambda: "", client_config=lambda: {})
    pytest_plugin._wait_quiet(cast(KafkaCluster, cluster), "out", 1.0)
    said = capsys.readouterr().err
    assert ("out was still growing after 1s" in said) is growing
