"""Checker benchmark: both engines side by side on synthetic histories of 1M and 10M records.

The history is transactional input (10 records per transaction, every 10th aborted) plus
a consume-transform-produce app's outputs, spread over 16 producer sessions and 12
partitions, so every check has work to do; "records" counts sends (inputs and outputs).
Each size is generated once into the cache by a child process (not timed), then checked
from the files by a fresh child per engine: loading the ledgers and read-backs is part of
the time. Peak memory is each checking process's own high-water mark (``VmHWM``, read by
the process itself): ``ru_maxrss`` would also count what a parent held when it forked, which
is how the generator's 3.5 GB once showed up as the checker's. For the Spark engine it is
the Python driver plus Spark's JVM.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from harness.checker import anomalies, synthetic
from harness.checker.check import check
from harness.history import columns
from harness.settings import Settings

SIZES = (1_000_000, 10_000_000)
ENGINES = ("python", "spark")
SENDS_PER_INPUT = 1.9  # each input, except the 10 % aborted, has one output
EOS = ((synthetic.INPUT_TOPIC, synthetic.OUTPUT_TOPIC),)


def shape(records: int) -> synthetic.Shape:
    return synthetic.Shape(
        records=round(records / SENDS_PER_INPUT), sessions=8, partitions=12, txn_size=10, abort_every=10, transform=True
    )


def prepare(records: int) -> Path:
    root = Settings().cache_dir / "bench-checker" / str(records)
    if not (root / "done").exists():
        started = time.monotonic()
        print(f"generating a {records:,}-record history in {root} (once) ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, __file__, "--generate", str(records), str(root)], check=True)
        print(f"  generated in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return root


def generate_child(records: int, root: Path) -> None:
    synthetic.generate(shape(records)).write(root)
    (root / "done").write_text("")


def high_water_mib(pid: str = "self") -> float:
    """A process's peak resident memory since it started (exec), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _children(pid: int) -> list[str]:
    return [c for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]


def check_child(root: Path, engine: str) -> None:
    started = time.monotonic()
    ledgers = sorted((root / "ledgers").glob("*.csv"))
    reads = root / "reads"
    if engine == "python":
        h = columns.load(ledgers, reads)
        loaded = time.monotonic()
        result = check(h, anomalies.CheckOptions(eos_pairs=EOS)).to_json()
        jvm = 0.0
    else:
        from harness.checker.spark import engine as spark_engine

        spark = spark_engine.session("bench-checker", kafka=False)
        loaded = time.monotonic()  # the JVM's start, not the history's load
        result = spark_engine.check(spark, ledgers, reads, eos_pairs=EOS)
        jvm = sum(high_water_mib(c) for c in _children(os.getpid()))
        spark.stop()
    done = time.monotonic()
    found = sum(f["count"] for f in result["anomalies"].values())
    figures = {
        "engine": engine,
        "sent": result["stats"]["sent"],
        "load_s": loaded - started,
        "check_s": done - loaded,
        "anomalies": found,
        "peak_rss_mib": high_water_mib() + jvm,
    }
    print(json.dumps(figures))


def measure(root: Path, engine: str) -> dict[str, float]:
    started = time.monotonic()
    out = subprocess.run(
        [sys.executable, __file__, "--check", str(root), engine], capture_output=True, text=True, check=False
    )
    if out.returncode:
        raise SystemExit(f"{engine} check failed (exit {out.returncode}): {out.stderr[-2000:]}")
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    figures["wall_s"] = time.monotonic() - started
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--generate"]:
        generate_child(int(sys.argv[2]), Path(sys.argv[3]))
        return
    if sys.argv[1:2] == ["--check"]:
        check_child(Path(sys.argv[2]), sys.argv[3])
        return
    rows = {engine: [] for engine in ENGINES}
    print(f"{'records':>11}  {'engine':<7} {'wall':>8} {'stages':<28} {'peak RSS':>10}  {'s/M':>6}  anomalies")
    for records in SIZES:
        root = prepare(records)
        for engine in ENGINES:
            f = measure(root, engine)
            rows[engine].append(f)
            stages = (
                f"load {f['load_s']:.1f} s, check {f['check_s']:.1f} s"
                if engine == "python"
                else f"JVM {f['load_s']:.1f} s, check {f['check_s']:.1f} s"
            )
            print(
                f"{f['sent']:>11,}  {engine:<7} {f['wall_s']:6.1f} s {stages:<28} {f['peak_rss_mib']:6.0f} MiB"
                f"  {f['wall_s'] / f['sent'] * 1e6:6.2f}  {f['anomalies']}",
                flush=True,
            )
    for engine, (small, big) in rows.items():
        print(
            f"{engine}: {big['sent'] / small['sent']:.1f}x records -> {big['wall_s'] / small['wall_s']:.1f}x time",
            flush=True,
        )
    python_10m, spark_10m = rows["python"][-1], rows["spark"][-1]
    print(
        f"at {python_10m['sent']:,}: spark / python = {spark_10m['wall_s'] / python_10m['wall_s']:.1f}x time, "
        f"{spark_10m['peak_rss_mib'] / python_10m['peak_rss_mib']:.1f}x memory; "
        "target for the python engine: <= 10 s and <= 1536 MiB"
    )


if __name__ == "__main__":
    main()
