"""The Streams workload's pure parts: the client version it runs on, the last totals per key, the
sink findings from read-back files; the Java app refusing a bad configuration (no cluster); and
the app on an older kafka-streams than it was built against, on the cluster."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scenarios
from harness.cluster.kafka import KafkaCluster
from harness.history.format import SCHEMA, VALUE_SCHEMA, view_path
from harness.history.records import make_id
from harness.jvm.java_clients import STREAMS_APP, command
from harness.runner import run_variant
from harness.settings import Settings
from harness.verdict.document import FORBIDDEN
from harness.workloads.streams import (
    EXACTLY_ONCE_V2,
    StreamsResults,
    StreamsWorkload,
    client_version,
    commits_completed,
    last_totals,
    transaction_state,
)

NOWHERE = "127.0.0.1:9"  # nothing listens there


def test_kafka_4_4_runs_the_app_on_the_newest_streams_client_maven_central_has() -> None:
    assert client_version("4.4.0") == "4.3.1"
    assert client_version("4.3.1") == "4.3.1"
    assert client_version("3.9.2") == "3.9.2"


def test_a_prepared_commit_counts_as_completed_only_when_complete_commit_follows_it() -> None:
    states = {
        "app-p1-1": ["Empty", "Ongoing", "PrepareCommit", "CompleteCommit", "Ongoing", "PrepareCommit"],
        "app-p2-1": ["Ongoing", "PrepareAbort", "CompleteAbort", "Ongoing", "PrepareCommit", "CompleteCommit"],
    }
    assert commits_completed(states) == {"prepared_commits": 3, "completed_commits": 2}


def test_the_transaction_log_records_are_read_for_their_id_and_state() -> None:
    key = b"\0\0" + len(b"app-1").to_bytes(2, "big") + b"app-1"
    # Version 1 value: version, producer id, epoch, timeout, then the state (PrepareCommit), then the rest.
    value = (1).to_bytes(2, "big") + (7).to_bytes(8, "big") + (3).to_bytes(2, "big") + (10_000).to_bytes(4, "big")
    assert transaction_state(key, value + b"\x02" + b"\0" * 20) == ("app-1", 2)
    assert transaction_state(key, None) is None  # a tombstone
    assert transaction_state(b"\0\1" + key[2:], value + b"\x02") is None  # not a transaction's key


def _rows(schema: pa.Schema, rows: list[tuple[object, ...]]) -> pa.Table:
    """Columns missing from the end of the rows (a record's headers) are null."""
    return pa.table(
        {name: [r[i] if i < len(r) else None for r in rows] for i, name in enumerate(schema.names)}, schema=schema
    )


def test_the_last_total_of_a_key_is_its_highest_offset_in_its_partition() -> None:
    rows = _rows(
        VALUE_SCHEMA,
        [
            ("t", 1, 5, 2, "k1", b"2 30"),
            ("t", 1, 3, 1, "k1", b"1 10"),
            ("t", 0, 9, 1, "k0", b"1 7"),
            ("t", 0, 2, 3, "k0", b"3 99"),  # an earlier offset: not the last, whatever it says
        ],
    )
    assert last_totals(rows) == {"k1": (2, 30), "k0": (1, 7)}


def test_outputs_are_counted_per_committed_input_and_totals_against_a_recount(tmp_path: Path) -> None:
    a, b, c = (make_id(1, seq) for seq in range(3))
    (tmp_path / "reads").mkdir()
    inputs = [("in", 0, 0, a, "k0"), ("in", 0, 1, b, "k0"), ("in", 1, 0, c, "k1")]
    pq.write_table(_rows(SCHEMA, inputs), view_path(tmp_path / "reads", "read_committed"))
    (tmp_path / "sink-reads").mkdir()
    sink = [
        ("out", 0, 0, a, "k0", f"{a}|streams-1".encode()),
        ("out", 0, 1, a, "k0", f"{a}|streams-1".encode()),  # a repeat
        ("out", 1, 0, c, "k1", f"{c}|streams-1".encode()),  # b has none
        ("totals", 0, 0, 1, "k0", f"1 {a}".encode()),
        ("totals", 0, 1, 3, "k0", f"3 {2 * a + b}".encode()),  # counted a twice
        ("totals", 1, 0, 1, "k1", f"1 {c}".encode()),
    ]
    pq.write_table(_rows(VALUE_SCHEMA, sink), view_path(tmp_path / "sink-reads", "read_committed"))
    (tmp_path / "sink-reads" / "transactions.json").write_text("{}")  # at-least-once: no transactions
    found = StreamsResults("out", "totals", "app", tmp_path).findings(None, 5)  # type: ignore[arg-type]
    assert found["sink_repeated"] == {"count": 1, "examples": [{"input": a, "rows": 2}]}
    assert found["sink_missing"] == {"count": 1, "examples": [{"input": b, "rows": 0}]}
    assert found["aggregate_mismatch"] == {
        "count": 1,
        "examples": [{"key": "k0", "expected": (2, a + b), "found": (3, 2 * a + b)}],
    }


@pytest.mark.jvm
@pytest.mark.parametrize(
    ("settings", "refused"),
    [
        ({"processing_guarantee": "exactly_once_beta"}, "processing.guarantee"),  # removed in Kafka 4.0
        # Streams' own check, an IllegalArgumentException: a transaction would time out between commits.
        ({"processing_guarantee": "exactly_once_v2", "commit_interval_ms": 30_000}, "Transaction timeout"),
    ],
    ids=["unknown-guarantee", "commit-interval-above-transaction-timeout"],
)
def test_the_streams_app_reports_a_refused_configuration(
    tmp_path: Path, settings: dict[str, object], refused: str
) -> None:
    spec = {
        "app": "streams-1",
        "bootstrap_servers": NOWHERE,
        "application_id": "refused",
        "input_topic": "in",
        "output_topic": "out",
        "aggregates_topic": "totals",
        "state_dir": str(tmp_path / "state"),
        **settings,
    }
    path = tmp_path / "streams.spec.json"
    path.write_text(json.dumps(spec))
    settings = Settings()
    cmd = command(settings, client_version(settings.kafka_version), STREAMS_APP, streams=True)
    proc = subprocess.run([*cmd, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["setup_error"]["config"] is True
    assert refused in report["setup_error"]["message"]


@pytest.mark.cluster
@pytest.mark.parametrize("version", ["3.3.2", "3.7.1"])  # the oldest line the harness takes, and a later one
def test_the_streams_app_built_against_4_3_runs_exactly_once_on_older_kafka_streams(
    cluster: KafkaCluster, tmp_path: Path, version: str
) -> None:
    # A short run with no fault: the app starts, processes every input once and stops by itself.
    d1 = scenarios.get("D1")
    app = StreamsWorkload(inputs=600, processing_guarantee=EXACTLY_ONCE_V2, commit_interval_ms=500)
    clean = {"sink_repeated": FORBIDDEN, "sink_missing": FORBIDDEN, "aggregate_mismatch": FORBIDDEN}
    side = replace(d1.guarantee, workload=app, client=f"java=={version}", expect=clean, checks=())
    verdict = run_variant(cluster, replace(d1, schedule=(), guarantee=side), side, tmp_path)
    assert verdict.passed, verdict.reasons
    assert (verdict.record.client_package, verdict.record.client_version) == ("kafka-streams", version)
    assert verdict.record.client_ran == [version]
    (report,) = verdict.record.workload
    assert report["exit"] == 0 and report["outcomes"]["processed"] == 600 and report["outcomes"]["commits"] > 0
