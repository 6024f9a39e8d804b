"""Ctrl-C (SIGINT) and SIGTERM in the middle of a pair stop everything at once: the command exits
130 / 143 within the stop's own limit (``stopping.LIMIT_S``, which holds under `make test`'s
load with room to spare), no container, network or app process of the run is left, and the
pair's report shows what it left; and no process started while the signal is handled outlives
it. How prompt a stop is, quiet and under load, is `make bench-stop`'s to measure."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import docker
import pytest

from harness.settings import LABEL_PID
from harness.stopping import LIMIT_S
from harness.waits import poll_until

# The stop waits for Docker LIMIT_S at most; then the exit itself (flushing, os._exit) comes.
EXIT_S = LIMIT_S + 1.0


def ours(pid: int) -> list[str]:
    dc = docker.from_env()
    selector = {"label": f"{LABEL_PID}={pid}"}
    return [c.name for c in dc.containers.list(all=True, filters=selector)] + [
        n.name for n in dc.networks.list(filters=selector)
    ]


def left_after_exit(pid: int, timeout_s: float = 60.0) -> list[str]:
    """What process ``pid`` still owns once Docker has had ``timeout_s`` to finish removing it: on
    a busy machine the removal goes on in a process of its own past the exit (harness.stopping)."""
    return poll_until(lambda: ours(pid), lambda left: not left, timeout_s).last


def processes_naming(folder: Path) -> list[str]:
    """Live processes whose command line names ``folder``: every app's spec is in the run folder."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            text = cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(folder) in text:
            found.append(f"{cmdline.parent.name}: {text[:120]}")
    return found


@pytest.mark.cluster
@pytest.mark.parametrize(
    ("scenario", "mid_pair", "signum"),
    [
        ("B1", "B1 control: transformer-1 on", signal.SIGINT),  # both sides at once
        ("A1", "fault: blackhole", signal.SIGTERM),  # one side after the other
    ],
    ids=["sides together, SIGINT", "one side after the other, SIGTERM"],
)
def test_a_signal_mid_pair_stops_everything_at_once(
    tmp_path: Path, scenario: str, mid_pair: str, signum: signal.Signals
) -> None:
    runs = tmp_path / "runs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", scenario, "--runs-dir", str(runs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    lines: list[str] = []
    reached = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if mid_pair in line:
                reached.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert reached.wait(180), "".join(lines[-20:])
        time.sleep(2.0)  # well inside the side: apps sending, faults pending or active
        assert processes_naming(runs), "no app running: not mid-pair"
        sent = time.monotonic()
        proc.send_signal(signum)
        proc.wait(60)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(5)
    assert proc.returncode == 128 + signum, "".join(lines[-20:])
    assert took <= EXIT_S, f"exit {took:.1f}s after {signum.name}"
    assert left_after_exit(proc.pid) == []
    assert processes_naming(runs) == []
    (folder,) = runs.iterdir()
    assert (folder / "report.html").exists()
    print(f"{scenario}: exit {took:.2f}s after {signum.name}")


# A process that restarts children over and over in other threads, as fault steps restart
# apps while the main thread waits in a system call; the test interrupts it mid-flight. Each
# thread keeps one child at a time, so a failing run cannot flood the machine.
_RESTARTS = """
import sys, threading, time
from harness import stopping

def restart_forever():
    while True:
        child = stopping.start(["sleep", sys.argv[1]])
        time.sleep(0.005)
        child.kill()
        child.wait()

stopping.install()
for _ in range(2):
    threading.Thread(target=restart_forever, daemon=True).start()
print("starting", flush=True)
time.sleep(600)
"""


def test_no_child_started_during_an_interruption_outlives_it(tmp_path: Path) -> None:
    marker = f"{time.time() % 1000 + 1000:.6f}"  # the children's sleep, unique to this test
    for attempt in range(5):  # the signal lands at a different point of a restart each time
        proc = subprocess.Popen([sys.executable, "-c", _RESTARTS, marker], stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "starting\n"
            time.sleep(0.3)
            sent = time.monotonic()
            proc.send_signal(signal.SIGINT)
            proc.wait(30)
            took = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
            left = processes_naming(Path(marker))
            for found in left:  # "pid: command line"
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(found.split(":")[0]), signal.SIGKILL)
        assert proc.returncode == 128 + signal.SIGINT
        assert left == [], f"attempt {attempt}"
        # Its main thread sleeps in a system call, which a signal handed to another thread
        # does not interrupt: the signal must not wait for it.
        assert took <= EXIT_S, f"attempt {attempt}: exit {took:.1f}s after SIGINT"


def test_a_worker_never_marks_its_run_done_once_the_stop_began(monkeypatch: pytest.MonkeyPatch) -> None:
    """A campaign's worker thread whose run failed because the stop removed the cluster waits for
    the exit instead of writing run.json: continuing the campaign runs that run again."""
    from harness import stopping

    marked: list[str] = []

    def worker() -> None:
        stopping.hold_if_stopping()
        marked.append("run.json")

    monkeypatch.setattr(stopping, "_stopping", True)
    held = threading.Thread(target=worker, daemon=True)
    held.start()
    held.join(0.5)
    assert held.is_alive() and marked == []
    monkeypatch.setattr(stopping, "_stopping", False)
    free = threading.Thread(target=worker)
    free.start()
    free.join(5)
    assert marked == ["run.json"]
