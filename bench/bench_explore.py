"""Explore's cost: a warm cluster start (with and without the brokers' class archive), the
overhead of a run on a reused cluster beyond its workload's own time, what one worker uses of
the machine, and the throughput of one worker against two, side by side.

- warm start: time from "create network" to ready, rounds interleaved so the machine's load
  falls on both alike (the first start of the process, which may build the archive, is not
  counted);
- overhead: a run's wall time minus its workload's (first app start to the later of the last
  app exit and the last heal): topics, input, read-back, check, judgement, trimming, health;
- one worker: CPU seconds of its cluster's containers, the harness process and the apps, over
  the wall time of its runs; peak memory of its containers;
- workers: the same runs (same seed) on one worker and on two, runs per minute.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.cluster import broker_archive
from harness.cluster.kafka import KafkaCluster
from harness.explore import run
from harness.explore.subject import Subject
from harness.settings import Settings

ROUNDS = 3
RUNS = 4
SEED = 1
LIKE = "B1"


def start_s(settings: Settings, archive: bool) -> float:
    original = broker_archive.ensure
    if not archive:
        broker_archive.ensure = lambda s: None  # type: ignore[assignment]
    try:
        started = time.monotonic()
        with KafkaCluster(settings):
            return time.monotonic() - started
    finally:
        broker_archive.ensure = original  # type: ignore[assignment]


def _cpu_ns(container: Any) -> int:
    return int(container.get_wrapped_container().stats(stream=False)["cpu_stats"]["cpu_usage"]["total_usage"])


def _peak_mib(container: Any) -> float:
    mem = container.get_wrapped_container().stats(stream=False).get("memory_stats", {})
    return float(mem.get("max_usage") or mem.get("usage") or 0) / 2**20


def _own_cpu_s() -> float:
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def one_worker(settings: Settings, runs_dir: Path) -> dict[str, Any]:
    exploration = run.Exploration(Subject(LIKE), SEED, RUNS)
    with KafkaCluster(settings) as cluster:
        containers = [b.container for b in cluster.brokers.values()] + [cluster.toxiproxy]
        cpu_before, own_before, started = [_cpu_ns(c) for c in containers], _own_cpu_s(), time.monotonic()
        _, trials = run.explore(exploration, settings, runs_dir, cluster=cluster)
        wall = time.monotonic() - started
        cpu = sum(_cpu_ns(c) - b for c, b in zip(containers, cpu_before, strict=True)) / 1e9
        peak = sum(_peak_mib(c) for c in containers)
    own = _own_cpu_s() - own_before
    return {"trials": trials, "wall": wall, "cpu": cpu + own, "containers_cpu": cpu, "own_cpu": own, "peak_mib": peak}


def workers_wall(settings: Settings, runs_dir: Path, workers: int) -> float:
    started = time.monotonic()
    run.explore(run.Exploration(Subject(LIKE), SEED, RUNS, workers=workers), settings, runs_dir)
    return time.monotonic() - started


def main() -> None:
    settings = Settings()
    runs_dir = Path(tempfile.mkdtemp(prefix="bench-explore-"))
    try:
        start_s(settings, archive=True)  # may build the archive: not counted
        starts: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(ROUNDS):
            for archive in (False, True):
                starts[archive].append(start_s(settings, archive))
        one = one_worker(settings, runs_dir)
        trials = one["trials"]
        passing = [_bytes(t.folder) for t in trials if not t.failed]
        failing = [_bytes(t.folder) for t in trials if t.failed]
        two = workers_wall(settings, runs_dir, 2)
    finally:
        shutil.rmtree(runs_dir, ignore_errors=True)
    overhead = [t.overhead_s for t in trials]
    print("\n=== bench-explore: explore's cost on this machine ===")
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at the end")
    for archive, label in ((False, "without"), (True, "with")):
        times = starts[archive]
        print(
            f"warm cluster start {label:<7} the class archive: median {statistics.median(times):5.1f} s "
            f"(runs: {', '.join(f'{t:.1f}' for t in times)})"
        )
    print(
        f"per-run overhead on a reused cluster ({len(trials)} runs of {LIKE}'s guarantee, seed {SEED}): "
        f"median {statistics.median(overhead):.1f} s, max {max(overhead):.1f} s "
        f"(runs: {', '.join(f'{o:.1f}' for o in overhead)}); a fresh cluster per run would add "
        f"{statistics.median(starts[True]):.1f} s more"
    )
    print(
        f"one worker: {one['cpu'] / one['wall']:.2f} cores busy on average over {one['wall']:.0f} s "
        f"(containers {one['containers_cpu']:.0f} CPU s, harness and apps {one['own_cpu']:.0f} CPU s); "
        f"its containers' peak memory {one['peak_mib']:.0f} MiB"
    )
    print(
        f"throughput: 1 worker {60 * RUNS / one['wall']:.2f} runs/min, 2 workers {60 * RUNS / two:.2f} runs/min "
        f"(the same {RUNS} runs: {one['wall']:.0f} s vs {two:.0f} s)"
    )
    if passing:
        print(f"disk kept: a run that did not fail {statistics.median(passing) / 1024:.0f} KiB", end="")
    if failing:
        print(f", a failing run {statistics.median(failing) / 2**20:.1f} MiB", end="")
    print()


if __name__ == "__main__":
    main()
