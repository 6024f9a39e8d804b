"""Stop benchmark: how promptly Ctrl-C (SIGINT) or SIGTERM ends a pair in the middle of its run,
on a quiet machine and under load, side by side.

Each run is the command line a user types (``kafka-harness run X``, its own cluster) interrupted
two seconds after a line that says the pair is well under way: B1 with both sides at once (SIGINT),
A1 one side after the other (SIGTERM), as tests/harness/test_stopping.py does. Timed from the
signal to the process's exit; the harness's own last line says when each stage of the stop was
done (apps killed, containers and networks removed, last words: the pair's report written), in
seconds after the signal. *Loaded* runs have ``BURNERS`` busy processes beside them, one per core,
which is about what `make test`'s two workers put on this machine. Every run is checked to have
left nothing behind (no container or network of its process, no process naming its run folder).
``REPS`` (environment, default 2) runs per case and load, interleaved.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from harness.settings import LABEL_PID
from harness.stopping import LIMIT_S

CASES = (("B1", "B1 control: transformer-1 on", signal.SIGINT), ("A1", "fault: blackhole", signal.SIGTERM))
BURNERS = os.cpu_count() or 2
REPS = int(os.environ.get("REPS", "2"))
_STAGES = re.compile(r"stopped in ([\d.]+) s \(([^)]*)\)")  # the harness's last line: stage -> s after the signal


def _left_behind(pid: int, runs: Path) -> list[str]:
    docker = [
        subprocess.run([*cmd, "--filter", f"label={LABEL_PID}={pid}", "-q"], capture_output=True, text=True).stdout
        for cmd in (["docker", "ps", "-a"], ["docker", "network", "ls"])
    ]
    alive = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(runs).encode() in cmdline.read_bytes():
                alive.append(cmdline.parent.name)
        except OSError:
            continue
    return [*" ".join(docker).split(), *alive]


def one_stop(scenario: str, mid_pair: str, signum: signal.Signals) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="bench-stop-") as tmp:
        runs = Path(tmp) / "runs"
        cmd = [sys.executable, "-m", "harness.cli", "run", scenario, "--runs-dir", str(runs)]
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        reached = threading.Event()

        def read() -> None:
            for line in proc.stderr:  # type: ignore[union-attr]
                lines.append(line)
                if mid_pair in line:
                    reached.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            if not reached.wait(300):
                raise SystemExit(f"{scenario} never got under way:\n{''.join(lines[-20:])}")
            time.sleep(2.0)
            sent = time.monotonic()
            proc.send_signal(signum)
            proc.wait(120)
            took = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
        reader.join(5)
        stages = next((m for line in reversed(lines) if (m := _STAGES.search(line))), None)
        found = dict(s.rsplit(" ", 1) for s in stages.group(2).split(", ")) if stages else {}
        if stages:
            found["stopped"] = stages.group(1)  # the handler's own time: the rest of exit_s is the process ending
        return {
            "exit_s": took,
            "code": proc.returncode,
            **{k: float(v) for k, v in found.items()},
            "left": _left_behind(proc.pid, runs),
            "report": any(runs.glob("*/report.html")),
        }


def main() -> None:
    results: dict[tuple[str, str], list[dict[str, object]]] = {}
    for rep in range(REPS):
        for scenario, mid_pair, signum in CASES:
            for load in ("quiet", "loaded"):
                burners = []
                if load == "loaded":
                    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
                try:
                    r = one_stop(scenario, mid_pair, signum)
                finally:
                    for b in burners:
                        b.kill()
                        b.wait()
                results.setdefault((scenario, load), []).append(r)
                print(f"{scenario} {load} run {rep + 1}: {json.dumps(r)}", file=sys.stderr, flush=True)
    stage_names = ("apps", "containers", "last words", "stopped")
    print(f"{'case':<16} {'exit s (median, max)':<22} " + " ".join(f"{s + ' s':>12}" for s in stage_names) + "  clean")
    for (scenario, load), runs in results.items():
        exits = [float(r["exit_s"]) for r in runs]  # type: ignore[arg-type]
        medians = [statistics.median(float(r.get(s, float("nan"))) for r in runs) for s in stage_names]  # type: ignore[arg-type]
        clean = all(not r["left"] and r["report"] and r["code"] in (130, 143) for r in runs)
        print(
            f"{scenario + ' ' + load:<16} {statistics.median(exits):6.2f} {max(exits):6.2f}{'':9} "
            + " ".join(f"{m:12.2f}" for m in medians)
            + f"  {'yes' if clean else 'NO'}"
        )
    for scenario, _, _ in CASES:
        quiet = statistics.median(float(r["exit_s"]) for r in results[(scenario, "quiet")])  # type: ignore[arg-type]
        loaded = statistics.median(float(r["exit_s"]) for r in results[(scenario, "loaded")])  # type: ignore[arg-type]
        print(f"{scenario}: loaded / quiet = {loaded / quiet:.2f}x; the stop waits {LIMIT_S:g} s at most")


if __name__ == "__main__":
    main()
