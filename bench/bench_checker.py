"""Checker benchmark: the numpy engine and the Spark engine side by side, on synthetic histories
of 1M, 10M and 100M records; Spark on ``local[2]`` and on a standalone cluster of a master and two
workers that the benchmark starts on this machine (127.0.0.1 only) and stops at the end.

The history is transactional input (10 records per transaction, every 10th aborted) plus a
consume-transform-produce app's outputs, spread over 16 producer sessions and 12 partitions, so
every check has work to do; "records" counts sends (inputs and outputs). Histories up to 10M
are generated once into the cache by a child process (not timed); the 100M one is written in
blocks of 10M (``synthetic.write_in_blocks``: it does not fit in memory at once) into the cache
and deleted after its checks, its size said. Each check is a fresh child process per route,
from the files: loading the ledgers and read-backs is part of the time.

Memory is each process's own high-water mark (``VmHWM``, which ``ru_maxrss`` is not: that would
count what a parent held when it forked): for numpy the checking process; for Spark on
``local[2]`` the Python driver and its JVM (which runs the tasks too: 1 GiB of heap); on the
standalone cluster the driver (1 GiB), each executor (one core and 1 GiB of heap each) and the
master and workers. A numpy check that outgrows ``NUMPY_CAP_GIB`` is killed and reported as not
fitting, rather than left to take the shared machine's memory. The 100M checks run under
``nice -n 19``, one at a time. ``SIZES`` (environment, e.g. ``SIZES="1M 10M"``) and ``ROUTES``
choose what runs; times are noisy on the shared machine, so the comparison is given as ratios.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness.checker.check import check
from harness.checker.result import CheckOptions
from harness.history import loading
from harness.settings import Settings
from tests.harness.checker import synthetic

SIZES = {"1M": 1_000_000, "10M": 10_000_000, "100M": 100_000_000}
ROUTES = ("numpy", "spark local[2]", "spark standalone")
SENDS_PER_INPUT = 1.9  # each input, except the 10 % aborted, has one output
EOS = ((synthetic.INPUT_TOPIC, synthetic.OUTPUT_TOPIC),)
BLOCK_RECORDS = 10_000_000  # larger histories are written in blocks of this size
NICE_FROM = 100_000_000  # histories this large are checked under nice -n 19
NUMPY_CAP_GIB = float(os.environ.get("NUMPY_CAP_GIB", "14"))
# This benchmark as a module of the repository (``python -m bench.bench_checker``, from its root):
# the synthetic histories are the tests' (``tests/harness/checker/synthetic.py``).
_ROOT = Path(__file__).resolve().parents[1]
_THIS = (sys.executable, "-m", "bench.bench_checker")
EXECUTOR_CONF = {"spark.executor.memory": "1g", "spark.executor.cores": "1", "spark.cores.max": "2"}


def shape(records: int) -> synthetic.Shape:
    return synthetic.Shape(
        records=round(records / SENDS_PER_INPUT), sessions=8, partitions=12, txn_size=10, abort_every=10, transform=True
    )


def prepare(records: int) -> Path:
    root = Settings().cache_dir / "bench-checker" / str(records)
    if not (root / "done").exists():
        shutil.rmtree(root, ignore_errors=True)  # a generation cut short
        started = time.monotonic()
        print(f"generating a {records:,}-record history in {root} ...", file=sys.stderr, flush=True)
        subprocess.run([*_THIS, "--generate", str(records), str(root)], check=True, cwd=_ROOT)
        print(f"  generated in {time.monotonic() - started:.0f} s, {_size_gib(root):.1f} GiB", file=sys.stderr)
    return root


def generate_child(records: int, root: Path) -> None:
    if records > BLOCK_RECORDS:
        synthetic.write_in_blocks(shape(records), -(-records // BLOCK_RECORDS), root)
    else:
        synthetic.generate(shape(records)).write(root)
    (root / "done").write_text("")


def _size_gib(root: Path) -> float:
    return sum(f.stat().st_size for f in root.rglob("*") if f.is_file()) / (1 << 30)


# --- peak memory ------------------------------------------------------------------------------


def high_water_mib(pid: int | str = "self") -> float:
    """A process's peak resident memory since it started (exec), in MiB; 0 when it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _resident_mib(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*") if Path(f"/proc/{p}").exists() else []:
            try:
                kids = [int(c) for c in (task / "children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def _processes_naming(text: str) -> list[int]:
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text.encode() in cmdline.read_bytes():
                pids.append(int(cmdline.parent.name))
        except OSError:
            continue
    return pids


# --- one check, in a child process -----------------------------------------------------------


def check_child(root: Path, route: str, master: str) -> None:
    started = time.monotonic()
    ledgers = sorted((root / "ledgers").glob("*.csv"))
    reads = root / "reads"
    memory: dict[str, float] = {}
    if route == "numpy":
        h = loading.load(ledgers, reads)
        loaded = time.monotonic()
        result = check(h, CheckOptions(eos_pairs=EOS)).to_json()
        memory["numpy process"] = high_water_mib()
    else:
        from harness.checker.spark import engine as spark_engine

        conf = EXECUTOR_CONF if master.startswith("spark://") else {}
        spark = spark_engine.session("bench-checker", master=master, kafka=False, conf=conf)
        loaded = time.monotonic()  # the JVM's start, not the history's load
        result = spark_engine.check(spark, ledgers, reads, eos_pairs=EOS)
        jvm = sum(high_water_mib(c) for c in _descendants(os.getpid()))
        memory["driver (Python + JVM)"] = high_water_mib() + jvm
        executors = _processes_naming(spark.sparkContext.applicationId)  # their command lines name the app
        for i, pid in enumerate(p for p in executors if p not in _descendants(os.getpid())):
            memory[f"executor {i + 1}"] = high_water_mib(pid)
        spark.stop()
    done = time.monotonic()
    figures = {
        "sent": result["stats"]["sent"],
        "load_s": loaded - started,
        "check_s": done - loaded,
        "anomalies": sum(f["count"] for f in result["anomalies"].values()),
        "memory_mib": memory,
    }
    print(json.dumps(figures))


@dataclass
class Outcome:
    route: str
    records: int
    figures: dict[str, object] = field(default_factory=dict)
    wall_s: float = 0.0
    failed: str = ""  # why there are no figures


def measure(root: Path, records: int, route: str, master: str) -> Outcome:
    cmd = [*_THIS, "--check", str(root), route, master]
    if records >= NICE_FROM:
        cmd = ["nice", "-n", "19", *cmd]
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True, cwd=_ROOT)
        over_cap = threading.Event()
        if route == "numpy":  # watched: a numpy check that outgrows the cap is stopped, not left to swap the machine

            def watch() -> None:
                while proc.poll() is None:
                    if _resident_mib([proc.pid, *_descendants(proc.pid)]) > NUMPY_CAP_GIB * 1024:
                        over_cap.set()
                        os.killpg(proc.pid, signal.SIGKILL)
                        return
                    time.sleep(0.2)

            threading.Thread(target=watch, daemon=True).start()
        out, _ = proc.communicate()
        wall = time.monotonic() - started
        if over_cap.is_set():
            return Outcome(route, records, wall_s=wall, failed=f"did not fit in {NUMPY_CAP_GIB:g} GiB: stopped there")
        if proc.returncode:
            err.seek(0)
            tail = [line for line in err.read().splitlines() if "Error" in line or "Exception" in line][:3]
            return Outcome(route, records, wall_s=wall, failed=f"exit {proc.returncode}: {' | '.join(tail)[:300]}")
    return Outcome(route, records, json.loads(out.strip().splitlines()[-1]), wall)


# --- the standalone cluster ------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Standalone:
    """A Spark master and two workers of one core each on 127.0.0.1, for as long as the ``with`` lasts."""

    WORKER_MEMORY = "2g"  # what a worker may give its executor (1 GiB of heap, and the JVM's own)

    def __init__(self, work: Path) -> None:
        import pyspark

        self.home = Path(pyspark.__file__).parent
        self.work = work
        self.procs: list[subprocess.Popen[bytes]] = []
        self.master = ""

    def __enter__(self) -> Standalone:
        env = {**os.environ, "SPARK_HOME": str(self.home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1"}
        env["SPARK_LOG_DIR"] = env["SPARK_WORKER_DIR"] = str(self.work)
        port = _free_port()
        self.master = f"spark://127.0.0.1:{port}"
        spark_class = str(self.home / "bin" / "spark-class")
        worker = ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--cores", "1"]
        worker += ["--memory", self.WORKER_MEMORY]
        daemons = [
            ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port)],
            *[[*worker, "--work-dir", str(self.work / f"worker-{i}"), self.master] for i in (1, 2)],
        ]
        for i, args in enumerate(daemons):
            log = (self.work / f"daemon-{i}.log").open("wb")
            web_ui = ["--webui-port", str(_free_port())]
            self.procs.append(
                subprocess.Popen([spark_class, *args, *web_ui], env=env, stdout=log, stderr=log, start_new_session=True)
            )
            time.sleep(3 if i == 0 else 0)  # the master first
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # both workers registered
            logs = (self.work / "daemon-0.log").read_text(errors="replace")
            if logs.count("Registering worker") >= 2:
                return self
            time.sleep(1)
        self.__exit__()
        raise SystemExit(f"the standalone cluster did not come up; see {self.work}")

    def high_water_mib(self) -> dict[str, float]:
        names = ("master", "worker 1", "worker 2")
        # spark-class execs the daemon's JVM; a worker's executors, its children, are counted on their own.
        return {n: high_water_mib(proc.pid) for n, proc in zip(names, self.procs, strict=True)}

    def __exit__(self, *_: object) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


# --- the table ------------------------------------------------------------------------------


def _row(o: Outcome, numpy: Outcome | None) -> str:
    size = f"{o.records // 1_000_000}M"
    if o.failed:
        return f"{size:>5}  {o.route:<17} {o.failed}"
    f = o.figures
    memory = f["memory_mib"]  # type: ignore[index]
    peak = ", ".join(f"{k} {v:,.0f}" for k, v in memory.items())  # type: ignore[union-attr]
    ratio = ""
    if numpy is not None and not numpy.failed and o is not numpy:
        ratio = f"x{o.wall_s / numpy.wall_s:.0f} time"
    return (
        f"{size:>5}  {o.route:<17} {o.wall_s:8.1f} s  {ratio:<10} "
        f"{o.wall_s / int(f['sent']) * 1e6:7.2f} s/M  peak MiB: {peak}"  # type: ignore[arg-type]
    )


def main() -> None:
    if sys.argv[1:2] == ["--generate"]:
        generate_child(int(sys.argv[2]), Path(sys.argv[3]))
        return
    if sys.argv[1:2] == ["--check"]:
        check_child(Path(sys.argv[2]), sys.argv[3], sys.argv[4])
        return
    sizes = [SIZES[s] for s in os.environ.get("SIZES", " ".join(SIZES)).split()]
    routes = [r for r in ROUTES if r in os.environ.get("ROUTES", ",".join(ROUTES)).split(",")]
    machine = f"{os.cpu_count()} cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / (1 << 30):.1f} GiB"
    print(f"machine: {machine}; load before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="bench-checker-spark-") as work:
        cluster = Standalone(Path(work)) if "spark standalone" in routes else None
        if cluster is not None:
            cluster.__enter__()
        try:
            for records in sizes:
                root = prepare(records)
                size_gib = _size_gib(root)
                numpy = None
                for route in routes:
                    master = cluster.master if route == "spark standalone" and cluster else "local[2]"
                    o = measure(root, records, route, master)
                    if route == "spark standalone" and cluster and not o.failed:
                        o.figures["memory_mib"].update(cluster.high_water_mib())  # type: ignore[union-attr]
                    numpy = o if route == "numpy" else numpy
                    outcomes.append(o)
                    print(_row(o, numpy), flush=True)
                if records > BLOCK_RECORDS:  # 100M: too big to keep
                    shutil.rmtree(root)
                    print(f"  (the {records // 1_000_000}M history, {size_gib:.1f} GiB, deleted)", flush=True)
        finally:
            if cluster is not None:
                cluster.__exit__()
    print(f"load after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(json.dumps([o.__dict__ for o in outcomes]), file=sys.stderr)


if __name__ == "__main__":
    main()
