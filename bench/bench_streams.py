"""Kafka Streams: what exactly-once and the commit interval cost (D5).

The Streams app of the D scenarios (``kafkaeos.StreamsApp``: one output per input, a per-key
count and sum in a logged store, no cache) in four configurations, ``commit.interval.ms`` 100 ms
and 30 s times ``at_least_once`` and ``exactly_once_v2``, on one cluster, no faults. Each
repetition runs every configuration once, in an order rotated per repetition, so slow phases
of the shared machine spread over all of them:

- **throughput**: a fresh application reads an input of ``THROUGHPUT_RECORDS`` records (filled
  once, read by every run from the beginning) as fast as it can; records/s is the records it
  processed over the time from its first to its last (the app's own report). At 30 s no
  commit falls inside a run this short: that is what a 30 s interval means for it.
- **read_committed latency**: a fresh application on an empty input topic, joined and
  running, then a producer writes ``LATENCY_RATE`` records/s for ``LATENCY_S`` seconds; a
  read_committed consumer of the output takes each record's arrival time minus its timestamp,
  which is the input's create time (Streams gives an output its input's timestamp): from the
  input's send to its output's visibility downstream. p50 and p99 per run.

Then, per configuration, the median and min-max over the repetitions, the exactly-once /
at-least-once ratios, and each claim (throughput: the seed's "about 3%", SCENARIOS.md's
"15-30% at 100 ms, negligible at 30 s"; latency: "read_committed adds up to the commit
interval") judged: *reproduced* only when the difference lies outside the spread, that is
when every repetition's exactly-once / at-least-once ratio lies on the same side of 1 (the
two ran in the same repetition, so the ratio cancels much of what the shared machine did to
both), *not seen* otherwise. ``REPS`` (environment, default 3) sets the repetitions.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from confluent_kafka import Consumer

from harness.cluster.kafka import KafkaCluster
from harness.jvm import java_clients
from harness.settings import HARNESS_CLIENT_LOG_LEVEL, Settings
from harness.workloads.input import INPUT_PRODUCER, fill
from harness.workloads.process import AppProcess
from harness.workloads.producer import PRODUCER_APP, ProducerWorkload, producer_spec
from harness.workloads.streams import AT_LEAST_ONCE, EXACTLY_ONCE_V2, STREAMS_APP, app_spec, client_version

REPS = int(os.environ.get("REPS", "3"))
INTERVALS_MS = (100, 30_000)
CONFIGS = [(guarantee, ms) for ms in INTERVALS_MS for guarantee in (AT_LEAST_ONCE, EXACTLY_ONCE_V2)]
THROUGHPUT_RECORDS = 150_000
LATENCY_RATE, LATENCY_S = 500, 30
PARTITIONS, KEYS = 3, 12
_RUN_TIMEOUT_S = 300
_NAMES = {AT_LEAST_ONCE: "ALOS", EXACTLY_ONCE_V2: "EOS"}


class Bench:
    def __init__(self, cluster: KafkaCluster, work: Path) -> None:
        self.cluster, self.work = cluster, work
        version = client_version(cluster.settings.kafka_version)
        self.java = java_clients.command(cluster.settings, version, STREAMS_APP, streams=True)

    def _app(self, tag: str, source: str, guarantee: str, interval_ms: int, expected: int) -> tuple[Any, Path]:
        """Start a Streams app of its own (application id, output and totals topics, state); its
        report goes to ``<tag>.json``, its log to the returned path."""
        output, totals = f"{tag}-out", f"{tag}-totals"
        for topic in (output, totals):
            self.cluster.create_topic(topic, PARTITIONS)
        # Streams refuses a transaction timeout (10 s by default) below the commit interval.
        config = {"producer.transaction.timeout.ms": max(10_000, 2 * interval_ms)}
        spec = app_spec(self.cluster, tag, (source, output, totals), guarantee, interval_ms, config, 0.0, expected)
        spec.update(app=tag, state_dir=str(self.work / "state" / tag))
        path = self.work / f"{tag}.spec.json"
        path.write_text(json.dumps(spec))
        log = self.work / f"{tag}.log"
        with (self.work / f"{tag}.json").open("wb") as out, log.open("wb") as err:
            proc = subprocess.Popen([*self.java, str(path)], stdout=out, stderr=err)
        return proc, log

    def throughput(self, source: str, guarantee: str, interval_ms: int) -> float:
        tag = f"tp-{uuid.uuid4().hex[:6]}"
        proc, log = self._app(tag, source, guarantee, interval_ms, 0)
        try:
            proc.wait(_RUN_TIMEOUT_S)
        finally:
            proc.kill()
        if proc.returncode != 0:
            raise SystemExit(f"{tag} ({guarantee}, {interval_ms} ms) did not finish: {log.read_text()[-3000:]}")
        report = json.loads((self.work / f"{tag}.json").read_text().strip().splitlines()[-1])
        return report["outcomes"]["processed"] / (report["last_processed_at"] - report["first_processed_at"])

    def latency(self, guarantee: str, interval_ms: int) -> np.ndarray:
        tag = f"lat-{uuid.uuid4().hex[:6]}"
        source, count = f"{tag}-in", LATENCY_RATE * LATENCY_S
        self.cluster.create_topic(source, PARTITIONS)
        proc, log = self._app(tag, source, guarantee, interval_ms, count)
        try:
            _wait_for(lambda: b"to RUNNING" in log.read_bytes(), 120, f"{tag} running", log)
            arrivals = _Arrivals(self.cluster, f"{tag}-out", count).start()
            w = ProducerWorkload(count=count, rate_per_s=LATENCY_RATE, keys=KEYS)
            spec_for = producer_spec(self.cluster.bootstrap_servers(), source, w, INPUT_PRODUCER, 1, {})
            producer = AppProcess("input", self.work / tag, spec_for, PRODUCER_APP)
            producer.start()
            arrivals.done.wait(LATENCY_S + 2 * interval_ms / 1000 + 60)
            producer.kill()
            arrivals.stop()
        finally:
            proc.kill()  # every output is read: what it still has to do is not measured
            proc.wait()
        if len(arrivals.latencies_ms) < count:
            raise SystemExit(f"{tag}: {len(arrivals.latencies_ms)} of {count} outputs read: {log.read_text()[-3000:]}")
        return np.array(arrivals.latencies_ms, np.float64)


class _Arrivals:
    """A read_committed consumer of an output topic noting each record's latency."""

    def __init__(self, cluster: KafkaCluster, topic: str, count: int) -> None:
        self.consumer = Consumer(
            {
                "bootstrap.servers": cluster.bootstrap_servers(),
                "group.id": f"bench-{uuid.uuid4().hex[:8]}",
                "isolation.level": "read_committed",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "fetch.wait.max.ms": 10,
                "log_level": HARNESS_CLIENT_LOG_LEVEL,
            }
        )
        self.consumer.subscribe([topic])
        self.count = count
        self.latencies_ms: list[float] = []
        self.done = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> _Arrivals:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set() and len(self.latencies_ms) < self.count:
            for msg in self.consumer.consume(1000, 0.1):
                if msg.error() is None:
                    self.latencies_ms.append(time.time() * 1000 - msg.timestamp()[1])
        self.done.set()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.consumer.close()


def _wait_for(check: Any, timeout_s: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}: {log.read_text()[-3000:]}")
        time.sleep(0.2)


def _spread(values: list[float]) -> str:
    return f"{np.median(values):>9,.0f} ({min(values):,.0f}-{max(values):,.0f})"


def _apart(a: list[float], b: list[float]) -> bool:
    """A difference beyond the spread: in every repetition the two configurations, run next to
    each other under the same load, differ the same way (every ratio b/a on one side of 1)."""
    ratios = [y / x for x, y in zip(a, b, strict=True)]
    return max(ratios) < 1 or min(ratios) > 1


def main() -> None:
    rates: dict[tuple[str, int], list[float]] = {c: [] for c in CONFIGS}
    p50s: dict[tuple[str, int], list[float]] = {c: [] for c in CONFIGS}
    p99s: dict[tuple[str, int], list[float]] = {c: [] for c in CONFIGS}
    started = time.monotonic()
    with KafkaCluster(Settings()) as cluster, tempfile.TemporaryDirectory(prefix="bench-streams-") as tmp:
        work = Path(tmp)
        bench = Bench(cluster, work)
        cluster.create_topic("bench-in", PARTITIONS)
        fill(cluster, work, "bench-in", ProducerWorkload(count=THROUGHPUT_RECORDS, keys=KEYS), INPUT_PRODUCER)
        for rep in range(REPS):
            for guarantee, interval in CONFIGS[rep % len(CONFIGS) :] + CONFIGS[: rep % len(CONFIGS)]:
                rates[(guarantee, interval)].append(bench.throughput("bench-in", guarantee, interval))
                lat = bench.latency(guarantee, interval)
                p50s[(guarantee, interval)].append(float(np.percentile(lat, 50)))
                p99s[(guarantee, interval)].append(float(np.percentile(lat, 99)))
                print(
                    f"rep {rep + 1} {_NAMES[guarantee]:<4} {interval:>6} ms: "
                    f"{rates[(guarantee, interval)][-1]:,.0f} records/s, "
                    f"p50 {p50s[(guarantee, interval)][-1]:,.0f} ms, p99 {p99s[(guarantee, interval)][-1]:,.0f} ms",
                    flush=True,
                )
    print(
        f"\n{THROUGHPUT_RECORDS:,} records per throughput run; {LATENCY_RATE} records/s for {LATENCY_S} s per"
        f" latency run; {PARTITIONS} partitions; {REPS} interleaved repetitions; median (min-max);"
        f" {time.monotonic() - started:.0f} s in all"
    )
    print(f"{'config':<16}{'throughput records/s':>30}{'read_committed p50 ms':>32}{'p99 ms':>28}")
    for guarantee, interval in CONFIGS:
        c = (guarantee, interval)
        name = f"{_NAMES[guarantee]} {interval} ms"
        print(f"{name:<16}{_spread(rates[c]):>30}{_spread(p50s[c]):>32}{_spread(p99s[c]):>28}")
    for interval in INTERVALS_MS:
        alos, eos = rates[(AT_LEAST_ONCE, interval)], rates[(EXACTLY_ONCE_V2, interval)]
        ratios = [e / a for e, a in zip(eos, alos, strict=True)]
        cost = 1 - float(np.median(eos) / np.median(alos))
        slower = np.median(p50s[(EXACTLY_ONCE_V2, interval)]) / np.median(p50s[(AT_LEAST_ONCE, interval)])
        print(
            f"EOS / ALOS at {interval} ms: throughput {np.median(eos) / np.median(alos):.2f}x"
            f" (per repetition {min(ratios):.2f}-{max(ratios):.2f}x), cost {cost:+.1%},"
            f" {'outside' if _apart(alos, eos) else 'within'} the spread; p50 latency {slower:.1f}x"
        )
    print(_claims(rates, p50s, p99s))


def _claims(
    rates: dict[tuple[str, int], list[float]],
    p50s: dict[tuple[str, int], list[float]],
    p99s: dict[tuple[str, int], list[float]],
) -> str:
    lines = ["claims:"]
    for interval, claim, low, high in (
        (100, "seed: EOS costs about 3% (100 ms)", 0.01, 0.06),
        (100, "SCENARIOS: 15-30% lower throughput at 100 ms", 0.15, 0.30),
    ):
        alos, eos = rates[(AT_LEAST_ONCE, interval)], rates[(EXACTLY_ONCE_V2, interval)]
        cost = 1 - float(np.median(eos) / np.median(alos))
        apart = _apart(alos, eos)
        seen = apart and low <= cost <= high
        why = "" if seen else " (no difference outside the spread)" if not apart else f" (cost {cost:.0%})"
        lines.append(f"  {claim}: {'reproduced' if seen else 'not seen'}, measured {cost:+.1%}{why}")
    alos, eos = rates[(AT_LEAST_ONCE, 30_000)], rates[(EXACTLY_ONCE_V2, 30_000)]
    cost = 1 - float(np.median(eos) / np.median(alos))
    # A claim of no difference: borne out while none shows beyond the spread.
    apart = _apart(alos, eos)
    verdict = "not seen (a difference outside the spread)" if apart else "consistent (none outside the spread)"
    lines.append(f"  SCENARIOS: negligible at 30 s: {verdict}, measured {cost:+.1%}")
    for interval in INTERVALS_MS:
        # Reproduced: exactly-once readers wait longer, beyond the spread, and by no more than the
        # interval even at p99.
        alos, eos = p50s[(AT_LEAST_ONCE, interval)], p50s[(EXACTLY_ONCE_V2, interval)]
        added = float(np.median(eos) - np.median(alos))
        tail = float(np.median(p99s[(EXACTLY_ONCE_V2, interval)]) - np.median(p99s[(AT_LEAST_ONCE, interval)]))
        apart = _apart(alos, eos)
        seen = apart and tail <= interval
        why = "" if seen else " (more than the interval)" if apart else " (no difference outside the spread)"
        lines.append(
            f"  SCENARIOS: read_committed adds latency up to the commit interval ({interval} ms):"
            f" {'reproduced' if seen else 'not seen'}, p50 {added:+,.0f} ms, p99 {tail:+,.0f} ms{why}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
