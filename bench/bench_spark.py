"""Spark sink benchmark (C5): the Kafka sink against the exactly-once foreachBatch sink.

One cluster, one input topic of ``RECORDS`` records (3 partitions), read from the
beginning by each job in turn with the same micro-batch size: ``kafka_sink`` (Spark's
at-least-once Kafka sink, to an output topic) and ``sqlite_sink --mode idempotent`` (rows
keyed by input, each batch and its id in one SQLite transaction). No faults.

Per sink, from Spark's progress events: records/s over the micro-batches (rows / the sum
of their trigger durations) and the micro-batch latency (a trigger's whole duration:
plan, read, write, commit) at p50 and p99. The first micro-batch of each job is left out:
it pays for the JVM's warm-up (code generation, first connections), not for its sink.
Then the ratio of the two.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from harness.cluster.kafka import KafkaCluster
from harness.settings import Settings
from harness.workloads.apps.producer import ProducerSpec

RECORDS = 60_000
PER_BATCH = 3_000
PARTITIONS = 3
ROOT = Path(__file__).resolve().parents[1]


def fill(bootstrap: str, topic: str, work: Path) -> None:
    spec = ProducerSpec(
        bootstrap_servers=bootstrap,
        topic=topic,
        ledger=str(work / "input.csv"),
        count=RECORDS,
        rate_per_s=1e6,
        keys=PARTITIONS * 4,
        config={"acks": "all", "enable.idempotence": True, "linger.ms": 5},
    )
    subprocess.run(
        [sys.executable, "-m", "harness.workloads.apps.producer", str(spec.save(work / "input.json"))],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
    )


def run_job(job: str, bootstrap: str, topic: str, work: Path, *sink: str) -> dict[str, float]:
    started = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "spark_jobs" / f"{job}.py"),
            "--bootstrap-servers",
            bootstrap,
            "--topic",
            topic,
            "--checkpoint",
            str(work / f"{job}-checkpoint"),
            "--max-offsets-per-trigger",
            str(PER_BATCH),
            "--trigger-ms",
            "0",
            "--until-caught-up",
            *sink,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if proc.returncode != 0:
        raise SystemExit(f"{job} failed: {proc.stderr.strip().splitlines()[-1:]}")
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    _, rows, ms, _ = np.array(report["micro_batches"][1:], np.float64).T  # without the warm-up batch
    return {
        "records": report["input_rows"],
        "batches": len(rows),
        "records_per_s": rows.sum() / (ms.sum() / 1000),
        "p50_ms": float(np.percentile(ms, 50)),
        "p99_ms": float(np.percentile(ms, 99)),
        "wall_s": time.monotonic() - started,
    }


def main() -> None:
    with KafkaCluster(Settings()) as cluster, tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
        work = Path(tmp)
        bootstrap = cluster.bootstrap_servers()
        cluster.create_topic("bench-in", PARTITIONS)
        cluster.create_topic("bench-out", PARTITIONS)
        fill(bootstrap, "bench-in", work)
        results = {
            "kafka sink (at-least-once)": run_job(
                "kafka_sink", bootstrap, "bench-in", work, "--output-topic", "bench-out"
            ),
            "foreachBatch SQLite (exactly-once)": run_job(
                "sqlite_sink", bootstrap, "bench-in", work, "--db", str(work / "sink.sqlite"), "--mode", "idempotent"
            ),
        }
    print(f"{RECORDS:,} records, {PER_BATCH:,} per micro-batch, {PARTITIONS} partitions; first batch left out")
    for name, r in results.items():
        print(
            f"{name:<36} {r['records_per_s']:>9,.0f} records/s   micro-batch p50 {r['p50_ms']:6.0f} ms"
            f"  p99 {r['p99_ms']:6.0f} ms   ({r['batches']} batches, {r['wall_s']:.0f} s wall with JVM start)"
        )
    kafka, eos = results.values()
    print(
        f"ratio exactly-once / Kafka sink: throughput {eos['records_per_s'] / kafka['records_per_s']:.2f}x, "
        f"p50 latency {eos['p50_ms'] / kafka['p50_ms']:.2f}x, p99 latency {eos['p99_ms'] / kafka['p99_ms']:.2f}x"
    )


if __name__ == "__main__":
    main()
