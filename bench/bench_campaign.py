"""A campaign's pace on this machine by worker count, and where a run's time goes.

The same small matrix (A5 and B1 on Kafka 4.4.0, their own client, every fault family, RUNS runs
per cell, so the same schedules) runs into a fresh folder once per worker count. For each: runs
per hour, and the workers' time split into the workloads' own time (apps running, faults held),
each run's overhead (topics, input, read-back, check, judgement, trimming) and the time between
runs (preparing the cells, starting clusters, health checks).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

from harness.campaign import run
from harness.campaign.plan import Campaign, Shard
from harness.settings import Settings

WORKERS = (1, 2, 4)
RUNS = 2
CAMPAIGN = Campaign.of(["A5", "B1"], kafka=["4.4.0"], runs=RUNS)


def measure(settings: Settings, folder: Path, workers: int) -> dict[str, float]:
    started = time.monotonic()
    trials = run.run(CAMPAIGN, folder, settings, Shard(1, 1), workers, hours=2.0)
    wall = time.monotonic() - started
    busy = workers * wall
    workload = sum(t.workload_s for t in trials.values())
    overhead = sum(t.overhead_s for t in trials.values())
    return {
        "runs": len(trials),
        "wall": wall,
        "per_hour": 3600 * len(trials) / wall,
        "workload": workload / busy,
        "overhead": overhead / busy,
        "between": max(0.0, busy - workload - overhead) / busy,
    }


def main() -> None:
    settings = Settings()
    root = Path(tempfile.mkdtemp(prefix="bench-campaign-"))
    try:
        found = {w: measure(settings, root / f"workers-{w}", w) for w in WORKERS}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    cells = len(CAMPAIGN.cells())
    print("\n=== bench-campaign: a campaign's pace by worker count ===")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end")
    print(
        f"matrix: A5, B1 on Kafka 4.4.0, every fault family: {cells} cells x {RUNS} runs, the same schedules each time"
    )
    print("| workers | runs | wall | runs per hour | workloads' own time | runs' overhead | between runs |")
    print("|---|---|---|---|---|---|---|")
    for w, f in found.items():
        print(
            f"| {w} | {f['runs']:.0f} | {f['wall']:.0f} s | {f['per_hour']:.0f} | {100 * f['workload']:.0f} % "
            f"| {100 * f['overhead']:.0f} % | {100 * f['between']:.0f} % |"
        )
    one, last = found[WORKERS[0]], found[WORKERS[-1]]
    print(f"{WORKERS[-1]} workers against 1: {last['per_hour'] / one['per_hour']:.2f}x the runs per hour")


if __name__ == "__main__":
    main()
