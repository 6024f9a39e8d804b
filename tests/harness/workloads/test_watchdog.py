"""The apps' watchdog on client calls (``harness.workloads.apps.transactions.bounded``): a call
that outlives its timeout ends the app with a ``stuck`` report; time the process spent stopped
(SIGSTOP) is not the call's, so a paused app resumes and carries on."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from harness.workloads.apps.transactions import STUCK_EXIT

_CALL = """
import sys, time
from harness.workloads.apps import transactions
transactions.STUCK_GRACE_S = 0.0
print("calling", flush=True)
with transactions.bounded("a_call", float(sys.argv[1])):
    for _ in range(int(float(sys.argv[2]) * 10)):  # a call that still has work when it resumes
        time.sleep(0.1)
print("answered", flush=True)
"""


def _start(timeout_s: float, takes_s: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CALL, str(timeout_s), str(takes_s)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "calling"
    return proc


def test_a_call_past_its_timeout_ends_the_app_with_a_stuck_report() -> None:
    proc = _start(timeout_s=1, takes_s=30)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == STUCK_EXIT
    stuck = json.loads(out.strip().splitlines()[-1])["stuck"]
    assert stuck["call"] == "a_call" and 1 <= stuck["waited_s"] < 5


def test_a_pause_longer_than_the_timeout_is_not_a_stuck_call() -> None:
    proc = _start(timeout_s=2, takes_s=1)
    time.sleep(0.3)  # inside the call
    proc.send_signal(signal.SIGSTOP)
    time.sleep(4)  # past the call's allowance: its deadline has gone by when the process resumes
    proc.send_signal(signal.SIGCONT)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0 and out.strip().endswith("answered"), out
