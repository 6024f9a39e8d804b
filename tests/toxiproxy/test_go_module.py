"""The Go side of the protocol faults (``toxiproxy/``): its own tests on recorded frames (framing,
headers, fields, every action of the toxics) run with ``go test``, race detector on."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from harness.cluster.images import TOXIPROXY_SOURCES


def test_go_tests_pass_on_the_recorded_frames() -> None:
    if shutil.which("go") is None:
        pytest.fail("go not found: `make setup` installs it (the Toxiproxy image is built with it)")
    proc = subprocess.run(
        ["go", "test", "-race", "-count=1", "./..."],
        cwd=TOXIPROXY_SOURCES,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
