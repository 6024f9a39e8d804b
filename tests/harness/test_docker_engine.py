"""Whatever the harness creates is gone after SIGINT and SIGTERM, and `clean` removes
what a SIGKILLed harness left behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import docker
import pytest

from harness.settings import LABEL_PID

pytestmark = pytest.mark.cluster


def ours(pid: int) -> list[str]:
    dc = docker.from_env()
    selector = {"label": f"{LABEL_PID}={pid}"}
    return [c.name for c in dc.containers.list(all=True, filters=selector)] + [
        n.name for n in dc.networks.list(filters=selector)
    ]


def start_up() -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "--verbose", "up"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # printed once the cluster is ready
    assert line.startswith("bootstrap.servers=127.0.0.1:"), line
    assert len(ours(proc.pid)) == 5  # 3 brokers, toxiproxy, network
    return proc


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_removes_every_container_and_the_network(signum: int) -> None:
    proc = start_up()
    proc.send_signal(signum)
    assert proc.wait(timeout=120) != 0
    assert ours(proc.pid) == []


def test_clean_removes_what_a_killed_harness_left() -> None:
    proc = start_up()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert ours(proc.pid), "a SIGKILLed harness cannot clean up after itself"
    out = subprocess.run([sys.executable, "-m", "harness.cli", "clean"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert ours(proc.pid) == []
