"""The Java-client apps (java/, harness.jvm.java_clients): the same ledger and report as the Python
apps, judged clean by the same checker on the real cluster."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from harness.checker.check import check
from harness.checker.result import CheckOptions, CheckResult
from harness.cluster.kafka import KafkaCluster
from harness.history import columns, ledger, loading, readback
from harness.jvm.java_clients import (
    OLDEST_FOR_APP,
    PRODUCER_APP,
    TRANSFORMER_APP,
    app_jar,
    artifact_version,
    client_classpath,
    command,
)
from harness.settings import KNOWN_KAFKA_VERSIONS, Settings
from harness.workloads.apps.producer import ProducerSpec
from harness.workloads.resume import SessionSoFar
from tests.harness.history import golden

pytestmark = pytest.mark.jvm  # java and the apps' jars, built by mvn

REPO = Path(__file__).resolve().parents[2]
# A client older than every tested broker: the apps, built against 4.3.1, run on it too; and
# the oldest each app runs on (docs/versions.md).
OLD_CLIENT = "3.7.1"
PRODUCER_FLOOR, TRANSFORMER_FLOOR = OLDEST_FOR_APP[PRODUCER_APP][0], OLDEST_FOR_APP[TRANSFORMER_APP][0]
NOWHERE = "127.0.0.1:9"  # nothing listens there: a client that needs no broker, or finds none
APP_TIMEOUT_S = 180


def _spec(path: Path, spec: dict[str, Any]) -> Path:
    spec_path = path.with_suffix(".spec.json")
    spec_path.write_text(json.dumps(spec, indent=2))
    return spec_path


def _run(main_class: str, spec: dict[str, Any], path: Path, version: str = "") -> tuple[int, dict[str, Any]]:
    """Run a Java app to its end; its exit status and report (the last line of its output)."""
    settings = Settings()
    cmd = command(settings, version or settings.kafka_version, main_class)
    proc = subprocess.run([*cmd, str(_spec(path, spec))], capture_output=True, text=True, timeout=APP_TIMEOUT_S)
    path.with_suffix(".err").write_text(proc.stderr)
    lines = proc.stdout.strip().splitlines()
    assert lines, f"{main_class} printed no report (exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    return proc.returncode, json.loads(lines[-1])


def _producer(bootstrap: str, topic: str, path: Path, **fields: Any) -> dict[str, Any]:
    return {
        "bootstrap_servers": bootstrap,
        "topic": topic,
        "ledger": str(path),
        "session": 1,
        "count": 2000,
        "rate_per_s": 4000,
        "keys": 10,
        **fields,
    }


def _replay(writer: ledger.LedgerWriter, row: list[str]) -> None:
    """Write one parsed ledger line again with Python's writer."""
    f = dict(zip(ledger.COLUMNS, row, strict=True))
    n = {c: int(f[c]) if f[c] else None for c in ledger.INT_COLUMNS}
    event, detail = f["event"], f["detail"] or None
    if event == "session":
        writer.session(n["session"], detail)
    elif event == "invoke":
        writer.invokes(n["session"], [n["id"]], f["topic"], [f["key"] or None], n["txn"], [n["source"]], n["partition"])
    elif event == "ok":
        writer.ok(n["id"], n["partition"], n["offset"])
    elif event in ("fail", "info"):
        getattr(writer, event)(n["id"], f["detail"])
    elif event == "fenced":
        writer.fenced(n["session"], f["detail"])
    elif event == "offsets-commit":
        writer.offsets_commit(n["session"])
    elif event == "offsets-committed":
        writer.offsets_committed(n["session"])
    else:
        writer.txn(event.removeprefix("txn-"), n["session"], n["txn"], detail)


def assert_python_writes_the_same(java_ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Python's LedgerWriter, given the same events at the same times, writes the same bytes."""
    with java_ledger.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == list(ledger.COLUMNS)
    python_ledger = java_ledger.with_name("python-" + java_ledger.name)
    writer = ledger.LedgerWriter(python_ledger)
    for row in rows[1:]:
        monkeypatch.setattr(ledger, "now_us", lambda t=int(row[1]): t)
        _replay(writer, row)
        if row[0] == "ok":  # an ok line is stamped when it is written: here, at its own time
            writer.flush()
    writer.close()
    assert python_ledger.read_bytes() == java_ledger.read_bytes()


def _anomalies(result: CheckResult) -> dict[str, int]:
    return {name: f.count for name, f in result.anomalies.items() if f.count}


def _history(cluster: KafkaCluster, topics: list[str], ledgers: list[Path], tmp_path: Path) -> columns.History:
    login = cluster.client_config()
    reads = readback.read_back(cluster.bootstrap_servers(), topics, tmp_path / "reads", login=login)
    return loading.load(ledgers, reads)


def _fresh_topic(cluster: KafkaCluster, partitions: int = 3) -> str:
    name = f"java-{uuid.uuid4().hex[:8]}"
    cluster.create_topic(name, partitions)
    return name


# --- without a cluster ------------------------------------------------------------------


def test_streams_and_tools_are_the_clusters_own_up_to_the_newest_on_maven_central() -> None:
    assert artifact_version("kafka-tools", "3.9.2") == "3.9.2"
    assert artifact_version("kafka-streams", "4.3.1") == "4.3.1"
    assert artifact_version("kafka-streams", "4.4.0") == "4.3.1"
    assert artifact_version("kafka-tools", "4.10.0") == "4.3.1"  # numbers, not strings: "4.10" < "4.3"
    assert artifact_version("kafka-clients", "4.4.0") == "4.4.0"


@pytest.mark.parametrize("streams", [False, True], ids=["clients", "streams"])
def test_every_app_jvm_maps_the_class_archive_setup_made(streams: bool) -> None:
    settings = Settings()
    version = artifact_version("kafka-streams", settings.kafka_version) if streams else settings.kafka_version
    cmd = command(settings, version, PRODUCER_APP, streams=streams)
    (archive,) = [o.removeprefix("-XX:SharedArchiveFile=") for o in cmd if o.startswith("-XX:SharedArchiveFile=")]
    assert Path(archive).is_file(), "make setup makes it"
    # -Xshare:on: the JVM fails instead of starting without the archive (another class path, a
    # damaged file).
    mapped = subprocess.run([*cmd[:-1], "-Xshare:on", "-version"], capture_output=True, text=True)
    assert mapped.returncode == 0, mapped.stderr


def test_the_java_ledger_is_byte_for_byte_what_python_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No broker: every send times out (info); the topic name needs quoting in every invoke.
    path = tmp_path / "producer.csv"
    spec = _producer(NOWHERE, 'odd,"topic"\nname', path, count=3, config={"max.block.ms": 300}, flush_timeout_s=5)
    code, report = _run(PRODUCER_APP, spec, path)
    assert code == 0
    assert report["outcomes"] == {"ok": 0, "fail": 0, "info": 3, "unfinished": 0}
    assert report["errors"] == {"REQUEST_TIMED_OUT": 3}
    assert b'"odd,""topic""\nname"' in path.read_bytes()
    assert_python_writes_the_same(path, monkeypatch)


@pytest.fixture(scope="module")
def ledger_script(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """``java -cp ... kafkaeos.LedgerScript``: tests/harness/jvm/LedgerScript.java compiled against the
    app jar (it plays a golden ledger script on the apps' own Ledger class)."""
    settings = Settings()
    classpath = [app_jar(settings), *client_classpath(settings, settings.kafka_version)]
    out = tmp_path_factory.mktemp("ledger-script")
    cp = os.pathsep.join(map(str, classpath))
    source = Path(__file__).with_name("LedgerScript.java")
    subprocess.run(["javac", "-d", str(out), "-cp", cp, str(source)], check=True, timeout=APP_TIMEOUT_S)
    return ["java", "-cp", os.pathsep.join([str(out), cp]), "kafkaeos.LedgerScript"]


@pytest.mark.parametrize("kind", golden.KINDS)
def test_the_java_writer_writes_the_golden_ledger(kind: str, ledger_script: list[str], tmp_path: Path) -> None:
    path = tmp_path / f"{kind}.csv"
    cmd = [*ledger_script, str(golden.script(kind)), str(golden.CLOCK_START), str(path)]
    subprocess.run(cmd, check=True, timeout=APP_TIMEOUT_S)
    assert path.read_bytes() == golden.expected(kind)


@pytest.mark.parametrize(
    ("config", "error", "stage", "refused"),
    [
        ({"enable.idempotence": "true", "acks": "1"}, "ConfigException", "create", True),
        (
            {"transactional.id": "nobody-answers", "max.block.ms": "500"},
            "REQUEST_TIMED_OUT",
            "init_transactions",
            False,
        ),
    ],
    ids=["idempotence-with-acks-1", "no-coordinator"],
)
def test_a_producer_that_cannot_start_reports_a_setup_error(
    tmp_path: Path, config: dict[str, str], error: str, stage: str, refused: bool
) -> None:
    code, report = _run(PRODUCER_APP, _producer(NOWHERE, "t", tmp_path / "p.csv", config=config), tmp_path / "p.csv")
    assert code == 2
    assert report["setup_error"]["error"] == error
    assert report["setup_error"]["stage"] == stage
    assert report["setup_error"]["config"] is refused


def test_the_java_transformer_refuses_a_database_sink(tmp_path: Path) -> None:
    spec = {
        "bootstrap_servers": NOWHERE,
        "input_topic": "in",
        "output_topic": "out",
        "group_id": "g",
        "ledger": str(tmp_path / "t.csv"),
        "session": 2,
        "sink_db": str(tmp_path / "sink.db"),
    }
    code, report = _run(TRANSFORMER_APP, spec, tmp_path / "t.csv")
    assert code == 2
    assert report["setup_error"]["config"] is True
    assert "sink_db" in report["setup_error"]["message"]


# --- on the cluster ---------------------------------------------------------------------


@pytest.mark.cluster
@pytest.mark.parametrize("version", [*KNOWN_KAFKA_VERSIONS, OLD_CLIENT, PRODUCER_FLOOR])
def test_an_idempotent_java_producer_writes_every_record_once(
    cluster: KafkaCluster, tmp_path: Path, version: str
) -> None:
    topic = _fresh_topic(cluster)
    path = tmp_path / "producer.csv"
    config = {"enable.idempotence": "true", "acks": "all"}
    spec = _producer(cluster.bootstrap_servers(), topic, path, config=config, login=cluster.client_config())
    code, report = _run(PRODUCER_APP, spec, path, version)
    assert code == 0, report
    assert report["outcomes"]["ok"] == 2000
    assert report["client_version"] == version  # the jar on the class path, not the build's 4.3.1
    result = check(_history(cluster, [topic], [path], tmp_path))
    assert _anomalies(result) == {}
    assert result.stats["acknowledged"] == 2000
    assert result.ledger_problems == {}


@pytest.mark.cluster
@pytest.mark.parametrize("version", [*KNOWN_KAFKA_VERSIONS, OLD_CLIENT])
def test_a_transactional_java_producer_hides_its_aborted_transactions_from_read_committed(
    cluster: KafkaCluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: str
) -> None:
    topic = _fresh_topic(cluster)
    path = tmp_path / "producer.csv"
    # A transactional.id that needs quoting in the ledger's session line.
    config = {"transactional.id": f'java,"txn"-{uuid.uuid4().hex[:6]}'}
    login = cluster.client_config()
    spec = _producer(
        cluster.bootstrap_servers(), topic, path, count=600, config=config, txn_size=20, abort_every=2, login=login
    )
    code, report = _run(PRODUCER_APP, spec, path, version)
    assert code == 0, report
    assert report["client_version"] == version
    h = _history(cluster, [topic], [path], tmp_path)
    committed = check(h)
    assert _anomalies(committed) == {}
    assert committed.stats["transactions_committed"] == committed.stats["transactions_aborted"] == 15
    assert committed.ledger_problems == {}
    uncommitted = check(h, CheckOptions(view="read_uncommitted"))
    assert uncommitted.count("aborted_read") == 300
    assert_python_writes_the_same(path, monkeypatch)


def _resume_plan(ledger_path: Path, session: int) -> tuple[dict[str, Any], int]:
    """What the harness gives a restarted transactional producer, and how many seqs it may resend.

    Besides the transactions whose commit really went unanswered, the last committed one is
    declared in doubt too, as if its answer had been lost: the app must find it in the log and
    not send it again.
    """
    so_far = SessionSoFar.read([str(ledger_path)], session)
    assert len(so_far.committed_txns), "killed before any transaction committed"
    done = np.isin(so_far.txn, so_far.committed_txns)
    in_doubt = so_far.invoked & (
        (np.isin(so_far.txn, so_far.unanswered_txns) & ~done) | (so_far.txn == so_far.committed_txns.max())
    )
    plan = {
        "resend": np.flatnonzero(so_far.invoked & (~done | in_doubt)).tolist(),
        "in_doubt": np.flatnonzero(in_doubt).tolist(),
        "next_seq": so_far.next_seq,
        "next_txn": so_far.next_txn,
    }
    return plan, int(np.count_nonzero(so_far.invoked & ~done))


@pytest.mark.cluster
def test_a_killed_transactional_java_producer_resumes_without_duplicates_or_loss(
    cluster: KafkaCluster, tmp_path: Path
) -> None:
    topic = _fresh_topic(cluster)
    first, second = tmp_path / "producer.csv", tmp_path / "producer.2.csv"
    config = {"transactional.id": f"java-resume-{uuid.uuid4().hex[:6]}"}
    spec = _producer(
        cluster.bootstrap_servers(),
        topic,
        first,
        count=3000,
        rate_per_s=1500,
        config=config,
        txn_size=100,  # a commit costs tens of milliseconds here: fewer of them keep the test short
        login=cluster.client_config(),
    )
    settings = Settings()
    cmd = command(settings, settings.kafka_version, PRODUCER_APP)
    with (tmp_path / "producer.err").open("w") as err:
        proc = subprocess.Popen([*cmd, str(_spec(first, spec))], stdout=err, stderr=err)
    try:
        deadline = time.monotonic() + 60
        while (not first.exists() or first.read_bytes().count(b"\ninvoke,") < 800) and time.monotonic() < deadline:
            assert proc.poll() is None, "the first incarnation ended before it was killed"
            time.sleep(0.05)
    finally:
        proc.kill()
        proc.wait()
    plan, at_most = _resume_plan(first, 1)
    assert plan["next_seq"] < 3000
    code, report = _run(PRODUCER_APP, {**spec, "ledger": str(second), "resume": plan}, second)
    assert code == 0, report
    assert report["resent"] <= at_most  # the committed "in doubt" transaction was found, not resent
    result = check(_history(cluster, [topic], [first, second], tmp_path))
    assert _anomalies(result) == {}
    assert result.stats["sent"] == 3000
    assert result.stats["read_committed_records"] == 3000


@pytest.mark.cluster
@pytest.mark.parametrize("version", ["", TRANSFORMER_FLOOR])
def test_the_java_transformer_writes_exactly_one_output_per_input(
    cluster: KafkaCluster, tmp_path: Path, version: str
) -> None:
    source, sink = _fresh_topic(cluster), _fresh_topic(cluster)
    login = cluster.client_config()
    inputs = tmp_path / "producer.csv"
    spec = ProducerSpec(
        cluster.bootstrap_servers(),
        source,
        str(inputs),
        count=2000,
        rate_per_s=4000,
        keys=10,
        config={"enable.idempotence": True, "acks": "all"},
        login=login,
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    python = subprocess.run(
        [sys.executable, "-m", "harness.workloads.apps.producer", str(spec.save(tmp_path / "producer.spec.json"))],
        capture_output=True,
        text=True,
        timeout=APP_TIMEOUT_S,
        env=env,
    )
    assert python.returncode == 0, python.stdout[-3000:]
    outputs = tmp_path / "transformer.csv"
    transformer = {
        "bootstrap_servers": cluster.bootstrap_servers(),
        "input_topic": source,
        "output_topic": sink,
        "group_id": f"java-{uuid.uuid4().hex[:6]}",
        "ledger": str(outputs),
        "session": 2,
        "mode": "transactional",
        "batch_size": 50,
        "abort_every": 4,
        "idle_exit_s": 3,
        "login": login,
    }
    code, report = _run(TRANSFORMER_APP, transformer, outputs, version)
    assert code == 0, report
    assert report["outcomes"]["aborted"] > 0
    assert report["outcomes"]["consumed"] >= 2000
    h = _history(cluster, [source, sink], [inputs, outputs], tmp_path)
    result = check(h, CheckOptions(eos_pairs=((source, sink),)))
    assert _anomalies(result) == {}
    assert result.stats["read_committed_records"] == 4000
