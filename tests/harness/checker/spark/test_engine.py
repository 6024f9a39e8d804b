"""The Spark engine against the numpy engine: the same JSON for the same history.

Every synthetic mutation, a hand-made history full of odd ledger lines, generated histories
(``histories``: resends across incarnations, repeated offsets, values without an id, empty
views, ...), and (on the real cluster) reading the topics straight from Kafka against
``read_back``. One Spark session serves the whole module.
"""

from __future__ import annotations

import gc
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from harness.checker.check import check
from harness.checker.result import CheckOptions
from harness.checker.spark import engine as job
from harness.cluster.kafka import KafkaCluster
from harness.history import loading
from harness.history.format import ISOLATIONS
from harness.history.ledger import COLUMNS, LedgerWriter
from harness.history.records import make_id
from tests.harness.checker.histories import Spec, build, every_anomaly, write_view
from tests.harness.checker.synthetic import INPUT_TOPIC, MUTATIONS, OUTPUT_TOPIC, Mutation

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    # With the Kafka connector: test_kafka_mode_matches_read_back reads the topics through it.
    session = job.session("test-check-history")
    # These histories are tiny, so what Spark spends per query, not per row, is the time:
    # adaptive execution's re-planning after each small stage (about a third of each check),
    # compiling whole-stage code, and scheduling 4 shuffle tasks where 1 holds everything
    # (together ~20 % of the rest: 6 checks in 15-18 s against 19-24 s). Results are the
    # same; the pair tests re-check saved runs with the engine's own settings.
    for name, value in {
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.codegen.wholeStage": "false",
        "spark.sql.shuffle.partitions": "1",
    }.items():
        session.conf.set(name, value)
    yield session
    session.stop()


def _normal(doc: dict[str, Any]) -> Any:
    return json.loads(json.dumps(doc))  # tuples to lists, keys as JSON has them


def _python(paths: list[Path], reads: Path, **options: Any) -> dict[str, Any]:
    return check(loading.load(paths, reads), CheckOptions(**options)).to_json()


def _pairs(m: Mutation) -> tuple[tuple[str, str], ...]:
    return ((INPUT_TOPIC, OUTPUT_TOPIC),) if m.eos else ()


@pytest.mark.parametrize("m", MUTATIONS, ids=[m.name for m in MUTATIONS])
def test_same_json_as_python_checker(m: Mutation, spark: SparkSession, tmp_path: Path) -> None:
    paths, reads = m.build(tmp_path)
    expected = _python(paths, reads, eos_pairs=_pairs(m))
    assert expected["anomalies"] or True  # the mutation suite proves the Python side finds what it must
    assert _normal(job.check(spark, paths, reads, eos_pairs=_pairs(m))) == _normal(expected)


# The consumer reading uncommitted, and fewer examples than anomalies.
OTHER_OPTIONS = [
    ("aborted transaction read", "read_uncommitted", 2),
    ("readers disagree", "read_committed", 4),  # 3 disagreeing offsets, then 1 of 3 acknowledgements
]


@pytest.mark.parametrize(("name", "view", "n"), OTHER_OPTIONS, ids=[f"{a}-{b}-{c}" for a, b, c in OTHER_OPTIONS])
def test_same_json_with_other_options(name: str, view: str, n: int, spark: SparkSession, tmp_path: Path) -> None:
    m = next(m for m in MUTATIONS if m.name == name)
    paths, reads = m.build(tmp_path)
    expected = _python(paths, reads, view=view, max_examples=n)
    assert _normal(job.check(spark, paths, reads, view=view, max_examples=n)) == _normal(expected)


# --- generated histories -----------------------------------------------------------------------

# Each with what it was chosen to show (the numpy engine's counts): the judgements the property
# tests pin down, which the Spark engine must make the same way.
GENERATED = [
    (Spec(("plain",)), {}),  # timed out and written, resent and failed: indeterminate
    (Spec(("plain",), reading="empty"), {}),  # a consumer of partitions that hold nothing
    (
        Spec(
            ("plain", "transactional"), inject=(("inconsistent_offset", 3), ("phantom", 3)), seed=4, row_order="consume"
        ),
        {"phantom": 3, "inconsistent_offset": 4},  # offsets read twice; values like -1|...
    ),
    (
        Spec(
            ("transactional", "transactional pipeline"),
            view="read_uncommitted",
            inject=(("zombie_write", 1), ("eos_repeated", 2), ("duplicate", 2)),
            seed=2,
            row_order="shuffled",
        ),
        {"duplicate": 2, "eos_repeated": 2, "zombie_write": 1},
    ),
    (
        Spec(("pipeline", "idempotent", "zombie"), inject=(("order", 2), ("lost", 2), ("eos_missing", 1))),
        {"lost": 2, "order": 2, "eos_missing": 1},  # order among records sent once, beside resent ones
    ),
    (
        Spec(
            ("transactional", "transactional"),
            inject=(("torn_transaction", 2), ("aborted_read", 2), ("partly_read", 1)),
            seed=5,
        ),
        {"aborted_read": 2, "torn_transaction": 2, "partly_read": 1},  # transactions resent across incarnations
    ),
    (
        Spec(
            ("transactional pipeline", "plain"),
            view="read_uncommitted",
            inject=(("aborted_read", 3), ("inconsistent_offset", 3)),
            garbage=4,
        ),
        {"aborted_read": 3, "inconsistent_offset": 3},
    ),
]


@pytest.mark.parametrize(("spec", "shows"), GENERATED, ids=[f"generated-{i}" for i in range(len(GENERATED))])
def test_same_json_on_generated_histories(
    spec: Spec, shows: dict[str, int], spark: SparkSession, tmp_path: Path
) -> None:
    case = build(spec)
    paths, reads = case.write(tmp_path)
    expected = _python(paths, reads, view=case.view, eos_pairs=case.eos_pairs)
    assert {k: v["count"] for k, v in expected["anomalies"].items() if v["count"]} == shows
    got = job.check(spark, paths, reads, view=case.view, eos_pairs=case.eos_pairs)
    assert _normal(got) == _normal(expected)


def test_same_json_on_a_history_with_every_anomaly(spark: SparkSession, tmp_path: Path) -> None:
    case = build(every_anomaly())  # a new anomaly is here as soon as the property tests can inject it
    paths, reads = case.write(tmp_path)
    expected = _python(paths, reads, view=case.view, eos_pairs=case.eos_pairs)
    assert {k: v["count"] for k, v in expected["anomalies"].items()} == case.expect
    got = job.check(spark, paths, reads, view=case.view, eos_pairs=case.eos_pairs)
    assert _normal(got) == _normal(expected)


# --- a history of odd lines -----------------------------------------------------------------

S1, S2, S3 = make_id(1, 0), make_id(2, 0), make_id(3, 0)
HEADER = ",".join(COLUMNS)


def _odd_history(root: Path) -> tuple[list[Path], Path]:
    """Every ledger quirk the ledger's reading rules handle, and every anomaly at least once, in a few dozen lines."""
    ledgers = root / "ledgers"
    ledgers.mkdir(parents=True)
    p1 = [
        HEADER,
        "session,100,1,,,,,,,,tx-a,.",
        "txn-begin,101,1,,,,,,0,,,.",
        f"invoke,102,1,{S1 + 0},k0,t1,,,0,,,.",
        f"invoke,103,1,{S1 + 1},,t1,,,0,,,.",
        f"ok,104,,{S1 + 0},,,0,0,,,,.",
        f"ok,105,,{S1 + 1},,,1,0,,,,.",
        "txn-commit,106,1,,,,,,0,,,.",
        "txn-committed,107,1,,,,,,0,,,.",
        "",  # empty: skipped, not counted
        "   ",  # blank but not empty: counted
        f"invoke,108,1,{S1 + 2},,t2,,,,,,.",
        f"ok,109,,{S1 + 2},,,0,5,,,,.",
        f"info,110,,{S1 + 2},,,,,,,TIMED_OUT,.",  # the ack is stronger
        f"invoke,111,1,{S1 + 3},,,,,,,,.",  # no topic: topic ""
        f"ok,112,,{S1 + 3},,,0,,,,,.",  # no offset: no acknowledged position
        f"fail,113,,{S1 + 4},,,,,,,ERR,.",  # outcomes of ids nobody invoked
        f"ok,114,,{S1 + 5},,,0,3,,,,.",
        "bogus,115,1,,,,,,,,,.",  # unknown event
        f"invoke,116,1,{S1 + 6},,t1,,,,,,",  # no end mark
        HEADER,  # a header again, mid-file
        "txn-unknown,117,1,,,,,,,,,.",  # no txn number
        f"invoke,118,1,{S1 + 7},,t1,,,5,,,.",  # a transaction no txn line names
        f"ok,119,,{S1 + 7},,,0,1,,,,.",
        "txn-begin,150,1,,,,,,1,,,.",
        f"invoke,151,1,{S1 + 8},,t1,,,1,,,.",
        f"ok,152,,{S1 + 8},,,0,6,,,,.",
        "txn-commit,250,1,,,,,,1,,,.",  # after session 2 fenced session 1: a zombie write
        "txn-committed,251,1,,,,,,1,,,.",
        f"invoke,252,1,{S1 + 9},,t1,,,,,,.",  # indeterminate
        f"invoke,253,1,{S1 + 10},,t1,,,,,,.",  # lost
        f"ok,254,,{S1 + 10},,,1,2,,,,.",
        f"invoke,255,1,{S1 + 11},,t1,,,,,,.",  # duplicated, across topics
        f"ok,256,,{S1 + 11},,,1,1,,,,.",
        f'invoke,257,1,{S1 + 12},"a,""quoted"" key",t1,,,,,,.',  # failed, yet read
        f"fail,258,,{S1 + 12},,,,,,,ERR,.",
        f"invoke,259,1,{S1 + 13},,t1,,,,,,.",  # stored out of order, acknowledged elsewhere
        f"ok,260,,{S1 + 13},,,0,9,,,,.",
    ]
    p2 = [
        HEADER,
        "session,200,2,,,,,,,,tx-a,.",
        "session,201,2,,,,,,,,tx-a,.",  # announced twice: the last line wins
        f"invoke,202,2,{S2 + 0},,t1,,,,,,.",
        f"ok,203,,{S2 + 0},,,0,abc,,,,.",  # not an integer: the numpy engine takes its slow path for this file
        f"ok,204,,{S2 + 0},,,0,2,,,,.",
        "",
        f"invoke,205,2,{S2 + 2},,t2,,,,{S1 + 0},,.",  # two outputs of one input
        f"ok,206,,{S2 + 2},,,0,6,,,,.",
        f"invoke,207,2,{S2 + 3},,t2,,,,{S1 + 0},,.",
        f"ok,208,,{S2 + 3},,,0,7,,,,.",
        f"invoke,209,2,{S2 + 4},,t1,,,,,,.",  # timed out, yet written; resent by the next incarnation
        f"info,210,,{S2 + 4},,,,,,,TIMED_OUT,.",
    ]
    p2_again = [  # the next incarnation: its resend surely failed, which makes no failed send of it
        HEADER,
        "session,201,2,,,,,,,,tx-a,.",  # as ready as before: fencing stays as it was
        f"invoke,301,2,{S2 + 4},,t1,,,,,,.",
        f"fail,302,,{S2 + 4},,,,,,,ERR,.",
    ]
    # Transactions over incarnations: S3 committed, then resent in an aborted transaction, and never
    # read (lost: committed by one attempt); S3 + 1 failed in a transaction of unknown end, then in
    # an aborted one, and read (an aborted_read because every attempt failed, not because all aborted).
    p3 = [
        HEADER,
        "session,400,3,,,,,,,,tx-b,.",
        "txn-begin,401,3,,,,,,0,,,.",
        f"invoke,402,3,{S3},,t1,,,0,,,.",
        f"ok,403,,{S3},,,1,4,,,,.",
        "txn-commit,404,3,,,,,,0,,,.",
        "txn-committed,405,3,,,,,,0,,,.",
        "txn-begin,406,3,,,,,,1,,,.",
        f"invoke,407,3,{S3 + 1},,t1,,,1,,,.",
        f"fail,408,,{S3 + 1},,,,,,,ERR,.",
        "txn-commit,409,3,,,,,,1,,,.",
        "txn-unknown,410,3,,,,,,1,,,.",
    ]
    p3_again = [
        HEADER,
        "session,420,3,,,,,,,,tx-b,.",
        "txn-begin,421,3,,,,,,2,,,.",
        f"invoke,422,3,{S3},,t1,,,2,,,.",
        f"ok,423,,{S3},,,1,6,,,,.",
        f"invoke,424,3,{S3 + 1},,t1,,,2,,,.",
        f"fail,425,,{S3 + 1},,,,,,,ERR,.",
        "txn-aborted,426,3,,,,,,2,,,.",
    ]
    files = {
        "p-1": "\n".join(p1) + "\n",
        "p-2": "\n".join(p2),  # no newline at the end
        "p-2.2": "\n".join(p2_again) + "\n",
        "p-6": "\n".join(p3) + "\n",
        "p-6.2": "\n".join(p3_again) + "\n",
        "p-3": "",  # empty: nothing to report
        "p-4": "not,a,ledger\n" + p1[2] + "\n",  # not a ledger: one ignored line
        "p-5": HEADER + "\n",
    }
    paths = []
    for name, text in files.items():
        paths.append(ledgers / f"{name}.csv")
        paths[-1].write_text(text)
    committed = [
        ("t1", 0, 0, S1 + 0),
        ("t1", 1, 0, S1 + 1),
        ("t2", 0, 5, S1 + 2),
        ("t1", 0, 1, S1 + 7),
        ("t1", 0, 2, S2 + 0),
        ("t1", 0, 3, 99),  # never sent, twice
        ("t1", 0, 4, 99),
        ("t9", 0, 0, S1 + 11),  # a topic no ledger names, before another one in file order
        ("t0", 0, 0, -2),  # no harness id
        ("t0", 0, 1, -1),  # the marker's id outside the one view with markers: a record without an id too
        ("t1", 0, 6, S1 + 8),
        ("t1", 1, 1, S1 + 11),
        ("t1", 0, 7, S1 + 12),
        ("t1", 0, 5, S1 + 13),
        ("t2", 0, 6, S2 + 2),
        ("t2", 0, 7, S2 + 3),
        ("t1", 1, 3, S2 + 4),
        ("t1", 1, 5, S3 + 1),
    ]
    uncommitted = [r if r[:3] != ("t1", 0, 1) else ("t1", 0, 1, S1 + 9) for r in committed] + [("t1", 0, 8, -1)]
    # Offsets read twice: the same row again, and another id at an offset (where read_uncommitted's
    # second id at t1-0@5 agrees with read_committed's only one).
    committed += [("t1", 1, 0, S1 + 1), ("t1", 0, 6, S1 + 13)]
    uncommitted += [("t1", 0, 8, -1), ("t1", 0, 5, S2 + 2)]
    reads = root / "reads"
    for isolation, rows in (("read_committed", committed), ("read_uncommitted", uncommitted[::-1])):
        write_view(reads, isolation, rows, None)
    return paths, reads


@pytest.mark.parametrize("view", ISOLATIONS)
def test_odd_history(view: str, spark: SparkSession, tmp_path: Path) -> None:
    paths, reads = _odd_history(tmp_path)
    expected = _python(paths, reads, view=view, eos_pairs=(("t1", "t2"),), max_examples=3)
    # The history is only a test if it shows what it was made to show.
    counts = {k: v["count"] for k, v in expected["anomalies"].items()}
    for anomaly in ("duplicate", "lost", "aborted_read", "phantom", "order", "inconsistent_offset", "eos_missing"):
        assert counts[anomaly] > 0, (anomaly, counts)
    assert counts["zombie_write"] == 1 and counts["eos_repeated"] == 1, counts
    assert expected["ledger_problems"] == {"p-1": 4, "p-2": 1, "p-4": 1}
    failed = [(e["id"], e["why"]) for e in expected["anomalies"]["aborted_read"]["examples"]]
    assert failed == [(S1 + 12, "send failed"), (S3 + 1, "send failed")]  # not S2 + 4
    assert {e["id"]: e["committed"] for e in expected["anomalies"]["lost"]["examples"]}[S3] is True
    got = job.check(spark, paths, reads, view=view, eos_pairs=[("t1", "t2")], max_examples=3)
    assert _normal(got) == _normal(expected)


# --- straight from Kafka ----------------------------------------------------------------------


def _transactional_history(bootstrap: str, topic: str, ledger_path: Path) -> None:
    """Six transactions of five records over two partitions, every third aborted, each send in the ledger;
    then two records no ledger sent (one with a harness id, one without)."""
    from confluent_kafka import Producer

    from harness.history.records import encode_value

    txid = f"spark-check-{uuid.uuid4().hex[:6]}"
    ledger = LedgerWriter(ledger_path)
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": txid, "linger.ms": 5})
    producer.init_transactions(30)
    ledger.session(1, txid)

    def delivered(record_id: int, err: Any, msg: Any) -> None:
        if err is None:
            ledger.ok(record_id, msg.partition(), msg.offset())
        else:
            ledger.fail(record_id, err.name())

    seq = 0
    for txn in range(6):
        producer.begin_transaction()
        ledger.txn("begin", 1, txn)
        for _ in range(5):
            record_id = make_id(1, seq)
            ledger.invokes(1, [record_id], topic, txn=txn)
            producer.produce(
                topic,
                encode_value(record_id, 40),
                partition=seq % 2,
                on_delivery=lambda err, msg, record_id=record_id: delivered(record_id, err, msg),
            )
            seq += 1
        if txn % 3 == 2:
            producer.flush(30)
            producer.abort_transaction(30)
            ledger.txn("aborted", 1, txn)
        else:
            ledger.txn("commit", 1, txn)
            producer.commit_transaction(30)
            ledger.txn("committed", 1, txn)
    ledger.close()
    producer.close()
    plain = Producer({"bootstrap.servers": bootstrap})
    plain.produce(topic, encode_value(make_id(77, 0), 40), partition=0)
    plain.produce(topic, b"no id here", partition=1)
    left = plain.flush(30)
    plain.close()  # every client closed before the test can fail: none outlives the cluster
    assert left == 0


@pytest.mark.cluster
def test_kafka_mode_matches_read_back(cluster: KafkaCluster, spark: SparkSession, tmp_path: Path) -> None:
    from harness.history.readback import read_back

    bootstrap = cluster.bootstrap_servers()
    topic = f"spark-check-{uuid.uuid4().hex[:6]}"
    cluster.create_topic(topic, partitions=2)
    ledger_path = tmp_path / "ledgers" / "producer-1.csv"
    _transactional_history(bootstrap, topic, ledger_path)
    gc.collect()  # the producers go now, not after the cluster (their threads would log refused connections)

    reads = read_back(bootstrap, [topic], tmp_path / "reads")
    for view in ISOLATIONS:
        expected = _python([ledger_path], reads, view=view)
        assert expected["stats"]["transactions_aborted"] == 2 and expected["anomalies"]["phantom"]["count"] == 2
        got = job.check(spark, [ledger_path], bootstrap=bootstrap, topics=[topic], view=view)
        assert _normal(got) == _normal(expected), view
