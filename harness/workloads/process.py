"""A workload app as OS processes, so faults can kill, stop, pause and restart it for real.

Each start is an *incarnation* with its own spec, ledger file and output file: a killed
incarnation's torn ledger is never appended to, and the ledgers read back in incarnation
order tell the whole story. Incarnations after the first get the earlier ledgers
(their spec says where to resume: harness.workloads.resume) and carry on the same work.

An app reports by printing one JSON object as its last line of output; ``reports()``
collects them (a killed incarnation has none), with each incarnation's wall-clock
``started_at`` and ``ended_at`` (null while it runs).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import stopping
from harness.history import ledger
from harness.waits import Deadline

# Builds incarnation n's spec (a JSON-able dict) from its ledger and the earlier ones.
SpecFor = Callable[[Path, list[Path]], dict[str, Any]]
# The command line of an incarnation, from the path its spec was written to and the spec.
Command = Callable[[Path, dict[str, Any]], list[str]]
_SOURCE = Path(__file__).resolve().parents[2]  # the folder holding this harness package


def python_app(module: str, path: Sequence[Path] = ()) -> Command:
    """A Python app of this harness: ``python -m MODULE SPEC.json`` with this interpreter; with
    ``path``, those folders come first on its import path (another confluent-kafka), then this
    harness's own source, then this interpreter's packages."""
    # `env` replaces itself with the app: the process the harness signals is the app's own.
    prefix = ["env", f"PYTHONPATH={os.pathsep.join(map(str, [*path, _SOURCE]))}"] if path else []
    return lambda spec_path, spec: [*prefix, sys.executable, "-m", module, str(spec_path)]


@dataclass
class Incarnation:
    number: int
    ledger: Path
    out: Path
    proc: subprocess.Popen[bytes]
    started_at: float  # wall clock
    ended_at: float | None = None

    def _watch(self) -> None:
        """Notes when the process ends, however it ends (exit, kill, signal)."""
        self.proc.wait()
        self.ended_at = time.time()


class AppProcess:
    def __init__(
        self,
        name: str,
        run_dir: Path,
        spec_for: SpecFor,
        command: Command,
        env: dict[str, str] | None = None,
        group: str = "",
    ) -> None:
        """``env``: variables every incarnation gets over the harness's own environment (a
        user's app reads its topics and servers there: harness.userapps.contract). ``group``:
        the consumer group it commits its input offsets to, if any (what a fault at its commit
        recognises on the wire)."""
        self.name, self.run_dir, self.spec_for, self.command = name, run_dir, spec_for, command
        self.group = group
        self.env = {**os.environ, **env} if env else None
        self.incarnations: list[Incarnation] = []
        self._lock = threading.Lock()

    def _ledger(self, n: int) -> Path:
        return self.run_dir / "ledgers" / (f"{self.name}.csv" if n == 1 else f"{self.name}.{n}.csv")

    def start(self) -> None:
        with self._lock:
            n = len(self.incarnations) + 1
            ledger_path = self._ledger(n)
            ledger_path.parent.mkdir(parents=True, exist_ok=True)
            spec_path = self.run_dir / f"{self.name}.{n}.spec.json"
            spec = self.spec_for(ledger_path, [i.ledger for i in self.incarnations])
            # Whole or not at all: a fault's condition may read it the moment it appears (a
            # half-written spec once made C2's second kill fail on an empty file).
            staged = spec_path.with_name(f".{spec_path.name}")
            staged.write_text(json.dumps(spec, indent=2))
            os.replace(staged, spec_path)
            out = self.run_dir / f"{self.name}.{n}.out"
            with out.open("wb") as sink:
                # A session of its own: only the harness decides when an app stops (harness.stopping).
                proc = stopping.start(
                    self.command(spec_path, spec), stdout=sink, stderr=subprocess.STDOUT, env=self.env
                )
            incarnation = Incarnation(n, ledger_path, out, proc, time.time())
            threading.Thread(target=incarnation._watch, name=f"{self.name}.{n}-exit", daemon=True).start()
            self.incarnations.append(incarnation)

    @property
    def current(self) -> Incarnation:
        return self.incarnations[-1]

    def running(self) -> bool:
        return bool(self.incarnations) and self.current.proc.poll() is None

    def signal(self, signum: int) -> None:
        self.current.proc.send_signal(signum)

    def restart(self) -> None:
        """Start the next incarnation once the current one is gone (a stopped one gets 30 s)."""
        proc = self.current.proc
        if proc.poll() is None:
            proc.send_signal(signal.SIGCONT)  # a paused process cannot exit on SIGTERM
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.start()

    def wait(self, timeout_s: float) -> bool:
        """Until the current incarnation exits (following restarts); False on timeout (the
        caller says what it does about it)."""
        # A Deadline, not poll_until: proc.wait does the waiting; one deadline across restarts.
        deadline = Deadline(timeout_s)
        while self.incarnations:  # an app never launched has nothing to wait for
            incarnation = self.current
            try:
                incarnation.proc.wait(deadline.remaining())
            except subprocess.TimeoutExpired:
                return False
            if incarnation is self.current:
                return True
        return True

    def kill(self) -> None:
        for i in self.incarnations:
            if i.proc.poll() is None:
                i.proc.kill()
                i.proc.wait()

    def ledgers(self) -> list[Path]:
        return [i.ledger for i in self.incarnations if i.ledger.exists()]

    def sent(self) -> int:
        """Sends invoked so far, by every incarnation (its ledgers' ``invoke`` lines)."""
        return sum(ledger.count(path.read_bytes(), "invoke") for path in self.ledgers())

    def acknowledged(self) -> int:
        """Sends acknowledged so far, by every incarnation (``ok`` lines)."""
        return sum(ledger.count(path.read_bytes(), "ok") for path in self.ledgers())

    def commits(self) -> int:
        """Commits asked for so far, by every incarnation: transactions (``txn-commit`` lines)
        and, outside transactions, consumer offsets (``offsets-commit``)."""
        return sum(
            data.count(b"\ntxn-commit,") + data.count(b"\noffsets-commit,")
            for data in (path.read_bytes() for path in self.ledgers())
        )

    def reports(self) -> list[dict[str, Any]]:
        return [
            {
                "app": self.name,
                "incarnation": i.number,
                "exit": i.proc.poll(),
                "started_at": i.started_at,
                "ended_at": i.ended_at,
                **_last_json(i.out),
            }
            for i in self.incarnations
        ]


def _last_json(out: Path) -> dict[str, Any]:
    for line in reversed(out.read_text(errors="replace").splitlines()) if out.exists() else []:
        if line.startswith("{"):
            try:
                found = json.loads(line)
            except ValueError:
                continue
            return found if isinstance(found, dict) else {}
    return {}
