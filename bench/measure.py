"""What the cluster benchmarks share: one cluster, a fresh topic per run, apps run as child processes
and measured from their ledgers, repetitions interleaved, and the figures summarised with their spread.

Every run is a child process (the harness's apps, a bare client loop, Kafka's own tool): its CPU
time is its own (``wait4``), and nothing of an earlier run stays warm in it. An app's throughput
is read from its ledger: acknowledged records over the time from its first ``invoke`` line to its
last ``ok`` line (starting the interpreter or JVM and connecting are not counted, as Kafka's
``ProducerPerformance`` does not count them either).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from confluent_kafka import KafkaException

from harness.cluster.kafka import KafkaCluster
from harness.history import ledger
from harness.history.ledger import EVENTS
from harness.jvm import java_clients
from harness.kafkaconfig.catalogue import Kind
from harness.settings import Settings
from harness.workloads import clients
from harness.workloads.apps.producer import ProducerSpec
from harness.workloads.apps.transformer import TransformerSpec

ROOT = Path(__file__).resolve().parents[1]
PARTITIONS = 3  # RF 3 and min ISR 2: the cluster's defaults
CHILD_TIMEOUT_S = 300


@dataclass
class Child:
    """A finished child process: its output, exit status, CPU seconds (user + system) and wall
    seconds from its start to its exit (the whole process, as a user sees it)."""

    out: str
    status: int
    cpu_s: float
    wall_s: float


@dataclass
class Started:
    """A child process under way, and when it was started."""

    proc: subprocess.Popen[bytes]
    at: float


def run_child(cmd: Sequence[str], work: Path, name: str) -> Child:
    """Run ``cmd`` to its end with its output in ``work/name.out``; its own CPU time from ``wait4``."""
    return finish_child(start_child(cmd, work, name), work, name)


def start_child(cmd: Sequence[str], work: Path, name: str) -> Started:
    with (work / f"{name}.out").open("w") as out:
        started = time.monotonic()
        return Started(subprocess.Popen(list(cmd), stdout=out, stderr=subprocess.STDOUT, cwd=ROOT), started)


def wait_for_line(work: Path, name: str, line: str, timeout_s: float = 60) -> None:
    """Until a started child has printed ``line``."""
    deadline = time.monotonic() + timeout_s
    while f"{line}\n" not in (work / f"{name}.out").read_text():
        if time.monotonic() > deadline:
            raise SystemExit(f"{name} did not print {line!r} within {timeout_s:.0f} s")
        time.sleep(0.05)


def finish_child(child: Started, work: Path, name: str) -> Child:
    """Wait for a started child; its output, and its own CPU time from ``wait4``."""
    try:
        status, usage = _wait4(child.proc.pid, time.monotonic() + CHILD_TIMEOUT_S)
    except BaseException:
        child.proc.kill()
        child.proc.wait()
        raise
    wall_s = time.monotonic() - child.at
    out = (work / f"{name}.out").read_text()
    done = Child(out, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, wall_s)
    if done.status != 0:
        raise SystemExit(f"{name} failed (exit {done.status}):\n{done.out[-3000:]}")
    return done


def _wait4(pid: int, deadline: float) -> tuple[int, Any]:
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage
        if time.monotonic() > deadline:
            raise SystemExit(f"a benchmark child ran past {CHILD_TIMEOUT_S} s")
        time.sleep(0.02)


def bare_command(kind: str, cluster: KafkaCluster, arguments: dict[str, Any]) -> list[str]:
    """The bare client's command line (``bench/bare.py``)."""
    arguments = {"bootstrap": cluster.bootstrap_servers(), **arguments}
    return [sys.executable, str(ROOT / "bench" / "bare.py"), kind, json.dumps(arguments)]


def run_bare(kind: str, cluster: KafkaCluster, arguments: dict[str, Any], work: Path, name: str) -> dict[str, Any]:
    """The bare client run once: what it printed, its CPU microseconds per record (``cpu_us``)
    and its process's wall seconds (``wall_s``)."""
    child = run_child(bare_command(kind, cluster, arguments), work, name)
    done = json.loads(child.out.strip().splitlines()[-1])
    return {**done, "cpu_us": child.cpu_s / done["records"] * 1e6, "wall_s": child.wall_s}


@dataclass
class LedgerTimes:
    """What a run's ledger says about its speed."""

    acknowledged: int
    first_invoke_us: int
    first_ok_us: int
    done_us: int  # the last ``ok``, or the last ``txn-committed`` when that came later
    txn_durations_s: list[float] = field(default_factory=list)  # txn-begin to txn-committed, per transaction

    @property
    def records_per_s(self) -> float:
        """From the first send: what the app took, starting its client's session included."""
        return self.acknowledged / max(1e-6, (self.done_us - self.first_invoke_us) / 1e6)

    @property
    def steady_records_per_s(self) -> float:
        """From the first acknowledgement: without the client's start (an idempotent producer asks
        for its producer id at its first send; a transactional one did before it, in
        ``init_transactions``), so that the two compare."""
        return (self.acknowledged - 1) / max(1e-6, (self.done_us - self.first_ok_us) / 1e6)


def ledger_times(path: Path) -> LedgerTimes:
    table, event = ledger.read(path, ("event", "time_us")).used()
    t = table["time_us"].to_numpy()
    oks, begins, committed = (t[event == EVENTS.index(e)] for e in ("ok", "txn-begin", "txn-committed"))
    durations = ((committed - begins[: len(committed)]) / 1e6).tolist()
    done = max(int(oks.max()), int(committed.max()) if len(committed) else 0)
    return LedgerTimes(len(oks), int(t[event == EVENTS.index("invoke")].min()), int(oks.min()), done, durations)


def app_spec(cluster: KafkaCluster, topic: str, ledger: Path, count: int, config: dict[str, Any], **fields: Any) -> Any:
    """A producer app's spec: ``count`` records sent flat out, ``config`` in librdkafka's names."""
    return ProducerSpec(
        bootstrap_servers=cluster.bootstrap_servers(),
        topic=topic,
        ledger=str(ledger),
        count=count,
        rate_per_s=1e9,
        config=config,
        **fields,
    )


def run_app(
    client: str,
    spec: ProducerSpec | TransformerSpec,
    work: Path,
    name: str,
    expect: int = 0,
    keep_ledger: bool = False,
) -> tuple[LedgerTimes, Child]:
    """A producer or transformer app of ``client`` run to its end on ``spec`` (client settings in
    librdkafka's names, as scenarios write them and the harness translates them); its ledger's
    times and its process. A run that did not get ``expect`` records acknowledged (a producer:
    all it sent) measured something else and stops the benchmark. The ledger is deleted once
    read unless ``keep_ledger``: a long run's ledger is tens of MB."""
    producer = isinstance(spec, ProducerSpec)
    if client == clients.JAVA and isinstance(spec, ProducerSpec):
        spec = replace(spec, config=clients.java_config(spec.config, Kind.PRODUCER)[0])
    elif client == clients.JAVA:
        spec = replace(spec, producer_config=clients.java_config(spec.producer_config, Kind.PRODUCER)[0])
    doc = spec.to_json() if isinstance(spec, TransformerSpec) else asdict(spec)
    spec_path = work / f"{name}.json"
    spec_path.write_text(json.dumps(doc))
    settings = Settings()
    module, main_class = (
        ("harness.workloads.apps.producer", java_clients.PRODUCER_APP)
        if producer
        else ("harness.workloads.apps.transformer", java_clients.TRANSFORMER_APP)
    )
    version = clients.version_for(clients.ClientSpec(client), settings.kafka_version)
    command = clients.app_command(client, module, main_class, settings, version)
    child = run_child(command(spec_path, doc), work, name)
    times = ledger_times(Path(spec.ledger))
    expect = expect or (spec.count if isinstance(spec, ProducerSpec) else 0)
    if times.acknowledged != expect:
        raise SystemExit(f"{name}: {times.acknowledged} records acknowledged, not {expect}:\n{child.out[-3000:]}")
    if not keep_ledger:
        Path(spec.ledger).unlink()
    return times, child


def fresh_topic(cluster: KafkaCluster, prefix: str, partitions: int = PARTITIONS) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    cluster.create_topic(name, partitions)
    return name


def drop_topic(cluster: KafkaCluster, topic: str) -> None:
    """Delete a run's topic so that the brokers' disks and page cache do not fill up over a benchmark."""
    try:
        cluster.admin().delete_topics([topic], operation_timeout=30)[topic].result(60)
    except KafkaException as exc:
        print(f"  (could not delete {topic}: {exc.args[0].str()})", file=sys.stderr)


def interleaved(names: Sequence[str], n: int, run: Callable[[str, int], dict[str, float]]) -> dict[str, list[Any]]:
    """``n`` rounds of ``run(name, round)`` for every name, each round starting one further along: a
    slow spell of the shared machine falls on a different one each time, and each round compares
    them within the same minute or two. Per name, its results in round order."""
    results: dict[str, list[Any]] = {name: [] for name in names}
    for r in range(n):
        for i in range(len(names)):
            name = names[(r + i) % len(names)]
            results[name].append(run(name, r))
        print(f"  round {r + 1}/{n} done at {time.strftime('%H:%M:%S')}", flush=True)
    return results


@dataclass
class Spread:
    median: float
    low: float
    high: float
    n: int

    def text(self, fmt: str = ",.0f") -> str:
        return f"{self.median:{fmt}} ({self.low:{fmt}}-{self.high:{fmt}})"


def spread(values: Sequence[float]) -> Spread:
    return Spread(statistics.median(values), min(values), max(values), len(values))


def ratios(values: Sequence[float], baseline: Sequence[float]) -> Spread:
    """Per round, a value over the same round's baseline; their median and range."""
    return spread([v / b for v, b in zip(values, baseline, strict=True)])


def machine() -> dict[str, Any]:
    """The machine a benchmark ran on, and how busy it was (other sessions share it)."""
    mem_kib = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if "MemTotal" in line
    )
    containers = subprocess.run(["docker", "ps", "-q"], capture_output=True, text=True, check=False).stdout.split()
    return {
        "nproc": os.cpu_count(),
        "memory_gib": round(mem_kib / 2**20, 1),
        "load_1_5_15": [round(x, 2) for x in os.getloadavg()],
        "containers_running": len(containers),
        "at": time.strftime("%Y-%m-%d %H:%M:%S"),
    }


def machine_text(before: dict[str, Any], after: dict[str, Any]) -> str:
    return (
        f"machine: {before['nproc']} cores, {before['memory_gib']} GiB; load (1/5/15 min) "
        f"{' '.join(map(str, before['load_1_5_15']))} before, {' '.join(map(str, after['load_1_5_15']))} after; "
        f"{before['containers_running']} containers running at the start (3 brokers + Toxiproxy are this benchmark's)"
    )


def write_json(name: str, doc: dict[str, Any]) -> Path:
    path = Settings().runs_dir / "bench" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2, default=_jsonable))
    return path


def _jsonable(value: Any) -> Any:
    if isinstance(value, Spread):
        return asdict(value)
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON: {type(value)}")
