"""check-app on the example apps (examples/): each fixed app passes under faults, each real
exactly-once bug is caught with its finding; an app that crashes on start, never reads, or
writes outputs without an id gets one line instead of a verdict; the command itself writes
verdict, report and JUnit XML, and leaves nothing behind, interrupted or not (its bad input:
tests/harness/cli/test_check_app.py)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from harness import commands, faults
from harness.cluster.kafka import KafkaCluster
from harness.faults import App, Step
from harness.userapps import schedules
from harness.userapps.check_app import check, run_folder
from harness.userapps.contract import ContractError
from harness.userapps.workload import APP_LINKS, UserAppWorkload
from harness.verdict.document import VariantVerdict, side_outcome
from tests.harness.test_stopping import left_after_exit, ours, processes_naming

ROOT = Path(__file__).resolve().parents[3]
PYTHON_APP = [sys.executable, str(ROOT / "examples" / "python-app" / "src" / "eos_app.py")]
INPUTS = 400


@pytest.fixture(scope="module")
def java_app(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The Java example built with its own pom (mvn package), as its README says."""
    work = tmp_path_factory.mktemp("java-app") / "java-app"
    shutil.copytree(ROOT / "examples" / "java-app", work, ignore=shutil.ignore_patterns("target"))
    commands.run(["mvn", "-B", "-q", "-f", str(work / "pom.xml"), "package"], "build the Java example", "install Maven")
    classpath = f"{work / 'target' / 'order-enricher.jar'}{os.pathsep}{work / 'target' / 'lib' / '*'}"
    return ["java", "-cp", classpath, "example.OrderEnricher"]


def _run(
    cluster: KafkaCluster,
    tmp_path: Path,
    command: list[str],
    steps: schedules.Steps | None = None,
    with_reference: bool = False,
    **more: Any,
) -> VariantVerdict:
    suffix = uuid.uuid4().hex[:6]
    app = UserAppWorkload(tuple(command), f"orders-{suffix}", f"enriched-{suffix}", **{"inputs": INPUTS, **more})
    folder = run_folder(tmp_path)
    steps = steps if steps is not None else schedules.default(app.inputs)
    verdict = check(cluster, app, steps, folder, "test", "a test", with_reference=with_reference)
    assert (folder / "report.html").exists() and (folder / "app" / "verdict.json").exists()
    return verdict


@pytest.mark.parametrize(
    ("bug", "finding", "like"),
    [
        ("", "", ""),
        # The Java consumer auto-commits in poll(), what it had read before that poll: B1 kills
        # it while that commit is on the wire, so the transactions committed since repeat.
        ("offsets-outside-txn", "sink_repeated", "B1"),
        ("read-uncommitted", "sink_aborted", ""),
        # Flush, then commitSync: B1 kills it while the commit is on the wire, three times.
        ("at-least-once", "sink_repeated", "B1"),
    ],
    ids=["fixed", "offsets outside the transaction", "read uncommitted", "at least once"],
)
def test_the_java_example_passes_and_its_bugs_are_caught(
    cluster: KafkaCluster, tmp_path: Path, java_app: list[str], bug: str, finding: str, like: str
) -> None:
    started = time.monotonic()
    steps, inputs = (schedules.like(like, 1)[0], 2000) if like else (None, INPUTS)
    verdict = _run(cluster, tmp_path, [*java_app, *(["--bug", bug] if bug else [])], steps, inputs=inputs)
    print(f"java {bug or 'fixed'}: {side_outcome(verdict)} in {time.monotonic() - started:.1f}s, {verdict.reasons}")
    if not finding:
        assert verdict.passed, verdict.reasons
        assert [f["fault"] for f in verdict.record.faults] == ["kill"]  # the schedule's kill happened
    else:
        assert not verdict.passed and verdict.count(finding) > 0, verdict.reasons
    if like:
        assert _windows_caught(verdict) == 3, verdict.record.faults


def _windows_caught(verdict: VariantVerdict) -> int:
    return sum(f.get("windows_hit", 0) for f in verdict.record.faults if f["fault"] == "crash_at_commit")


@pytest.mark.parametrize(("bug", "passes"), [("", True), ("at-least-once", False)], ids=["fixed", "at least once"])
def test_the_python_example_under_b1s_schedule(cluster: KafkaCluster, tmp_path: Path, bug: str, passes: bool) -> None:
    """B1 kills the app three times while its offsets commit is on the wire: the transactional
    app passes; the at-least-once one (flush, then a synchronous commit) repeats each batch."""
    steps, pipeline = schedules.like("B1", instances=1)
    started = time.monotonic()
    # Half of B1's input: still enough that the app commits three more times after each restart.
    command = [*PYTHON_APP, *(["--bug", bug] if bug else [])]
    half = pipeline.inputs // 2
    # As `check-app --like B1` runs it: the input written while the app runs, the reference beside it.
    more = {"inputs": half, "partitions": pipeline.partitions, "live_input": True}
    verdict = _run(cluster, tmp_path, command, steps, True, **more)
    assert any(r["app"] == "input" for r in verdict.record.workload)  # the live input's writer ran beside it
    print(f"python {bug or 'fixed'} under B1: {side_outcome(verdict)} in {time.monotonic() - started:.1f}s")
    assert _windows_caught(verdict) == 3, verdict.record.faults
    # The reference at-least-once app ran beside it under the same three windows, and repeated.
    assert verdict.record.reference["repeated"] > 0, verdict.record.reference
    folder = Path(verdict.record.run_dir).parent
    assert (folder / "reference" / "verdict.json").exists() and "reference" in (folder / "report.html").read_text()
    if passes:
        assert verdict.passed, verdict.reasons
    else:
        assert not verdict.passed and verdict.count("sink_repeated") > 0, verdict.reasons


@pytest.mark.parametrize(
    ("kind", "action", "bug"),
    [
        ("crash_in_produce", "kill", "at-least-once"),
        ("crash_in_produce", "kill", ""),
        ("crash_at_commit", "stop", "at-least-once"),
        ("crash_at_commit", "pause", "at-least-once"),
        ("crash_at_commit", "cut", "at-least-once"),
    ],
    ids=["outputs held, killed", "outputs held, killed, transactional", "stopped", "paused", "cut off"],
)
def test_each_action_in_the_app_s_window_repeats_the_at_least_once_app(
    cluster: KafkaCluster, tmp_path: Path, kind: str, action: str, bug: str
) -> None:
    """Whatever is done to the app while its commit (or its outputs) is caught on the wire, the
    at-least-once app reads the batch again (a restart, or its group moving on past a session
    timeout of 6 s) and repeats it; the transactional app's late outputs are fenced (its held
    Produce reaches the brokers after its next incarnation began)."""
    fault = getattr(faults, kind)

    steps = (Step(0.0, fault(App("app-1"), after=2, action=action, hold_s=8.0, listener=APP_LINKS), duration_s=120),)
    verdict = _run(cluster, tmp_path, [*PYTHON_APP, *(["--bug", bug] if bug else [])], steps, live_input=True)
    (caught,) = [f for f in verdict.record.faults if f["fault"] == kind]
    assert caught["windows_hit"] == 1 and caught["windows"][0]["action"] == action, caught
    if bug:
        assert not verdict.passed and verdict.count("sink_repeated") > 0, verdict.reasons
    else:
        assert verdict.passed, verdict.reasons


def test_two_instances_share_the_input_and_survive_a_kill_of_one(cluster: KafkaCluster, tmp_path: Path) -> None:
    started = time.monotonic()
    verdict = _run(cluster, tmp_path, PYTHON_APP, instances=2)
    print(f"python fixed, 2 instances: {side_outcome(verdict)} in {time.monotonic() - started:.1f}s")
    assert verdict.passed, verdict.reasons
    assert {r["app"] for r in verdict.record.workload} == {"app-1", "app-2"}


def test_the_python_example_reading_uncommitted_is_caught(cluster: KafkaCluster, tmp_path: Path) -> None:
    verdict = _run(cluster, tmp_path, [*PYTHON_APP, "--bug", "read-uncommitted"], schedules.none())
    assert verdict.count("sink_aborted") > 0 and verdict.count("sink_repeated") == 0, verdict.reasons


_WRITES_HELLO = (
    "import os, time\n"
    "from confluent_kafka import Producer\n"
    "p = Producer({'bootstrap.servers': os.environ['KEH_BOOTSTRAP_SERVERS']})\n"
    "p.produce(os.environ['KEH_OUTPUT_TOPIC'], b'hello')\n"
    "p.flush(10)\n"
    "time.sleep(600)\n"
)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("import sys; print('no KEH_BROKERS'); sys.exit(3)", "exited with status 3 .* \\(it crashed on start\\)"),
        ("import time; time.sleep(600)", "ran \\d+s but never read"),
        (_WRITES_HELLO, "output enriched-.* names no input \\(value b'hello'\\)"),
    ],
    ids=["crashes on start", "never reads", "outputs without an id"],
)
def test_an_app_breaking_the_contract_gets_one_line(
    cluster: KafkaCluster, tmp_path: Path, code: str, said: str
) -> None:
    with pytest.raises(ContractError, match=said) as caught:
        _run(cluster, tmp_path, [sys.executable, "-c", code], schedules.none(), inputs=50, idle_timeout_s=5)
    assert "\n" not in str(caught.value)
    assert processes_naming(Path(code)) == []


def _cli(*args: str, **popen: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "check-app", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,  # type: ignore[call-overload]
    )


@pytest.mark.cluster
def test_the_command_judges_writes_its_files_and_leaves_nothing(tmp_path: Path, java_app: list[str]) -> None:
    junit = tmp_path / "junit.xml"
    command = " ".join([*java_app, "--bug", "read-uncommitted"])
    started = time.monotonic()
    proc = _cli("--cmd", command, "--input-topic", "orders", "--output-topic", "enriched", "--inputs", str(INPUTS),
                "--runs-dir", str(tmp_path / "runs"), "--junit", str(junit))  # fmt: skip
    out, err = proc.communicate(timeout=600)
    print(f"check-app (java, read uncommitted): exit {proc.returncode} in {time.monotonic() - started:.1f}s")
    assert proc.returncode == 1, err[-2000:]
    assert ": FAILED" in out and "sink_aborted=" in out and "e.g. sink_aborted" in out
    (folder,) = (tmp_path / "runs").iterdir()
    assert f"report: {folder / 'report.html'}" in out
    assert (folder / "app" / "verdict.json").exists() and (folder / "report.html").exists()
    case = ET.parse(junit).getroot().find("testsuite/testcase")
    assert case is not None and case.find("failure").get("type") == "violated"  # type: ignore[union-attr]
    assert ours(proc.pid) == [] and processes_naming(Path(command)) == []


@pytest.mark.cluster
def test_an_app_crashing_on_start_is_one_line_exit_2_and_nothing_left(tmp_path: Path) -> None:
    marker = tmp_path / f"app-{uuid.uuid4().hex[:8]}"
    marker.mkdir()
    (marker / "app.py").write_text("import os\nprint(os.environ['KEH_BROKERS'])\n")  # not a variable it is given
    proc = _cli("--cmd", f"{sys.executable} {marker / 'app.py'}", "--input-topic", "in", "--output-topic", "out",
                "--inputs", "20", "--no-faults", "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 2, err[-2000:]
    (line,) = [line for line in err.splitlines() if line.startswith("kafka-harness: error:")]
    assert "app-1 exited with status 1" in line and "(it crashed on start): KeyError: 'KEH_BROKERS'" in line
    assert out == "" and ours(proc.pid) == [] and processes_naming(marker) == []


@pytest.mark.cluster
def test_ctrl_c_mid_run_leaves_nothing(tmp_path: Path) -> None:
    marker = tmp_path / f"app-{uuid.uuid4().hex[:8]}"  # in the app's command line: found in /proc
    marker.mkdir()
    shutil.copy(PYTHON_APP[1], marker)
    command = f"{sys.executable} {marker / 'eos_app.py'} --work-ms 50"  # slow: still running when interrupted
    proc = _cli("--cmd", command, "--input-topic", "in", "--output-topic", "out", "--no-faults",
                "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
    lines: list[str] = []
    running = threading.Event()

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append(line)
            if "APP app: app-1 on" in line:
                running.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert running.wait(300), "".join(lines[-20:])
        time.sleep(2.0)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGINT, "".join(lines[-20:])
    assert left_after_exit(proc.pid) == []
    assert processes_naming(marker) == []
    (folder,) = (tmp_path / "runs").iterdir()
    assert (folder / "report.html").exists()
