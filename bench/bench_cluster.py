"""Cluster start-up benchmark: cold and warm time-to-ready, and peak memory.

- cold: the first start after the kernel's page cache is dropped (as after a reboot; needs
  root, otherwise the first start of this process is reported and labelled as such);
- warm: the next starts, images and jars already in the page cache.
Time-to-ready is from "create network" to "3 brokers registered and an RF-3 probe topic in
sync". Peak memory is each container's cgroup high-water mark (cgroup v1 max_usage; v2
reports current usage instead) plus this process's peak RSS.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time

from harness.cluster.kafka import KafkaCluster

WARM_RUNS = 3


def drop_page_cache() -> bool:
    try:
        subprocess.run(["sync"], check=True)
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return True
    except OSError:
        return False


def container_peak_mib(container) -> float:  # type: ignore[no-untyped-def]
    mem = container.get_wrapped_container().stats(stream=False).get("memory_stats", {})
    return (mem.get("max_usage") or mem.get("usage") or 0) / 2**20


def start_once() -> tuple[float, dict[str, float]]:
    started = time.monotonic()
    with KafkaCluster() as cluster:
        ready = time.monotonic() - started
        named = [(b.alias, b.container) for b in cluster.brokers.values()] + [("toxiproxy", cluster.toxiproxy)]
        peaks = {name: container_peak_mib(c) for name, c in named}
    return ready, peaks


def main() -> None:
    cold_kind = "cold (page cache dropped)" if drop_page_cache() else "first start (could not drop caches)"
    cold, cold_peaks = start_once()
    warm = [start_once() for _ in range(WARM_RUNS)]
    warm_times = [t for t, _ in warm]
    peaks = {name: max([cold_peaks[name]] + [p[name] for _, p in warm]) for name in cold_peaks}
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print("\n=== bench-cluster: 3-broker KRaft cluster + Toxiproxy ===")
    print(f"machine: {os.cpu_count()} cores")
    print(f"{cold_kind:<36} time-to-ready {cold:6.1f} s")
    print(
        f"{'warm (median of ' + str(WARM_RUNS) + ')':<36} time-to-ready {statistics.median(warm_times):6.1f} s"
        f"   (runs: {', '.join(f'{t:.1f}' for t in warm_times)})  target <= 20 s"
    )
    for name, mib in peaks.items():
        print(f"peak memory {name:<24} {mib:8.0f} MiB")
    print(f"peak memory {'all containers':<24} {sum(peaks.values()):8.0f} MiB")
    print(f"peak RSS    {'harness process':<24} {rss:8.0f} MiB")


if __name__ == "__main__":
    main()
