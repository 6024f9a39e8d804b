"""Checker benchmark: wall time and peak RSS on synthetic histories of 1M and 10M records.

The history is transactional input (10 records per transaction, every 10th aborted) plus
a consume-transform-produce app's outputs, spread over 16 producer sessions and 12
partitions, so every check has work to do; "records" counts sends (inputs and outputs).
Each size is generated once into the cache (not timed) and then checked in a fresh child
process from the files: loading the ledgers and read-backs is part of the time.
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
SENDS_PER_INPUT = 1.9  # each input, except the 10 % aborted, has one output


def shape(records: int) -> synthetic.Shape:
    return synthetic.Shape(
        records=round(records / SENDS_PER_INPUT), sessions=8, partitions=12, txn_size=10, abort_every=10, transform=True
    )


def prepare(records: int) -> Path:
    root = Settings().cache_dir / "bench-checker" / str(records)
    if not (root / "done").exists():
        started = time.monotonic()
        print(f"generating a {records:,}-record history in {root} (once) ...", file=sys.stderr, flush=True)
        synthetic.generate(shape(records)).write(root)
        (root / "done").write_text("")
        print(f"  generated in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)
    return root


def check_child(root: Path) -> None:
    started = time.monotonic()
    h = columns.load(sorted((root / "ledgers").glob("*.csv")), root / "reads")
    loaded = time.monotonic()
    result = check(h, anomalies.CheckOptions(eos_pairs=((synthetic.INPUT_TOPIC, synthetic.OUTPUT_TOPIC),)))
    done = time.monotonic()
    found = sum(f.count for f in result.anomalies.values())
    print(
        json.dumps(
            {"sent": result.stats["sent"], "load_s": loaded - started, "check_s": done - loaded, "anomalies": found}
        )
    )


def measure(root: Path) -> dict[str, float]:
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, __file__, "--check", str(root)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak RSS, not the max over all children
    wall = time.monotonic() - started
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"check failed (status {status})")
    figures = json.loads(out)
    figures["wall_s"] = wall
    figures["peak_rss_mib"] = usage.ru_maxrss / 1024
    return figures


def main() -> None:
    if sys.argv[1:2] == ["--check"]:
        check_child(Path(sys.argv[2]))
        return
    rows = []
    for records in SIZES:
        figures = measure(prepare(records))
        rows.append(figures)
        print(
            f"{figures['sent']:>11,} records: {figures['wall_s']:6.1f} s wall "
            f"(load {figures['load_s']:.1f} s, check {figures['check_s']:.1f} s), "
            f"peak RSS {figures['peak_rss_mib']:6.0f} MiB, "
            f"{figures['wall_s'] / figures['sent'] * 1e6:.2f} s per million, "
            f"anomalies {figures['anomalies']}",
            flush=True,
        )
    small, big = rows[0], rows[-1]
    print(
        f"growth: {big['sent'] / small['sent']:.1f}x records -> {big['wall_s'] / small['wall_s']:.1f}x time; "
        f"target for 10M: <= 10 s and <= 1536 MiB"
    )


if __name__ == "__main__":
    main()
