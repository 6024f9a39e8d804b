"""EOS benchmark: the seeds' performance claims (SCENARIOS.md, "Performance claims worth
reproducing"), each measured side by side on one cluster, with a verdict per claim.

Every run is a child process on a fresh topic of 3 partitions (RF 3, min ISR 2, through
Toxiproxy), acks=all and the same batching for both clients (``batch.size`` 1,000,000 bytes,
``linger.ms`` 5). ``ROUNDS`` rounds, each running every row once in its own order, so each
comparison is between runs minutes apart at most. The clients: librdkafka (the harness's Python
producer app, or the bare client of ``bench/bare.py`` to read) and Kafka's Java client (the
harness's Java app, or Kafka's own ``ConsumerPerformance`` to read).

1. **Throughput, transactional against idempotent**, per client and record size (1000 and 100
   bytes): the producer app flat out, idempotent, and in transactions committed every 10 ms,
   100 ms, 1 s and 10 s (the apps' ``txn_ms``: a transaction ends once it has been open that
   long). A run sends ``RECORDS`` records; the 10 s row sends ``LONG_RECORDS`` (about 10 s of
   sending, so one transaction, or a second short one when the machine is slow) and is compared
   with an idempotent run of as many (``idempotent long``). Throughput: acknowledged records from the
   first ``ok`` to the last ``txn-committed`` (or ``ok``), which leaves out the client's start
   (the idempotent producer gets its producer id at its first send, the transactional one
   before it, in ``init_transactions``). The transactions' own durations (``txn-begin`` to
   ``txn-committed``) are reported beside them, and so is the cost per transaction in
   milliseconds: the run's extra time over the idempotent run of its round, per transaction.
2. **Idempotence off against on**, same acks and ``max.in.flight`` 5 (the same runs' rounds).
3. **End-to-end latency, read_committed against read_uncommitted**, by commit interval: the
   Python app sends 1 KB records at ``LATENCY_RATE``/s (no transactions, or a transaction per 10
   ms, 100 ms, 1 s), read meanwhile by two bare consumers, one per isolation level, started
   before it: latency = receipt minus the record's create time (the producing client's clock;
   one machine), p50 and p99 per run.
4. **Consumer-side cost of read_committed**: a topic of ``CONSUME_RECORDS`` 1 KB records in
   committed 100 ms transactions, read from the beginning at each isolation level by the bare
   librdkafka consumer and by ``ConsumerPerformance`` (records/s; ConsumerPerformance's fetch rate,
   without its group join).
5. **Transaction markers**: ``MARKER_TXNS`` transactions of ``MARKER_TXN_SIZE`` keyed records over
   the 3 partitions (every 5th aborted), by each client's app. Offsets: the offsets the
   read_uncommitted read-back found no record at, per (transaction, partition touched); bytes:
   the control batches in the partitions' log segments, read from a replica's data folder and
   parsed (record batch format v2: 12 bytes of offset and length, then ``batchLength`` bytes;
   attribute bit 5 marks a control batch).

Verdicts compare the rows round by round (each round's two runs minutes apart at most): a
difference is *outside the spread* when it has the same sign in every round, i.e. the min-max of
the per-round differences (or ratios) excludes none (1). *Reproduced*: the claimed difference is
outside the spread and of the claimed size; *refuted*: a difference outside the spread
contradicts the claim; *not seen* otherwise. A claim that something costs nothing is worded as the
cost it denies: *not seen* there agrees with the claim. ``--from runs/bench/eos.json`` prints the
tables and verdicts of a saved run again.
The table is printed and written to ``runs/bench/eos.json``.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import struct
import tarfile
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import measure
import numpy as np
from measure import PARTITIONS, spread

from harness.cluster.kafka import KafkaCluster
from harness.history import ledger, loading, readback
from harness.history.ledger import EVENTS
from harness.history.records import MARKER_ID
from harness.jvm import java_clients
from harness.settings import Settings
from harness.workloads import clients

ROUNDS = 5
SIZES = (1000, 100)
INTERVALS_MS = (10, 100, 1000, 10_000)
RECORDS = {1000: 60_000, 100: 200_000}  # per throughput run: 1-4 s here, depending on the machine's load
LONG_RECORDS = {1000: 400_000, 100: 1_500_000}  # the long rows': about one transaction of 10 s
BATCHING = {"batch.size": 1_000_000, "linger.ms": 5}
IDEMPOTENT = {"acks": "all", "enable.idempotence": True, "max.in.flight.requests.per.connection": 5, **BATCHING}
PLAIN = {**IDEMPOTENT, "enable.idempotence": False}
LATENCY_RATE = 2000
LATENCY_S = 2.5
LATENCY_INTERVALS_MS = (None, 10, 100, 1000)
CONSUME_RECORDS = 150_000
MARKER_TXNS = 40
MARKER_TXN_SIZE = 30
CLAIMED_OVERHEAD = 0.03  # Confluent 2017: about 3 % at 100 ms and 1 KB
CLAIMED_MARKER_BYTES = 78
CONSUMER_PERF = "org.apache.kafka.tools.ConsumerPerformance"
DATA_DIR = "/var/lib/kafka/data"  # the brokers' log.dirs (harness.cluster.kafka)
CONTROL = 0x20  # record batch attribute: a control batch (transaction marker)


Runs = dict[str, list[dict[str, Any]]]  # per row name, its runs in round order


def _txn(config: dict[str, Any]) -> dict[str, Any]:
    return {**config, "transactional.id": f"bench-eos-{uuid.uuid4().hex[:8]}"}


def _row_name(interval_ms: int | None) -> str:
    if interval_ms is None:
        return "idempotent"
    return f"txn {interval_ms} ms" if interval_ms < 1000 else f"txn {interval_ms // 1000} s"


# --- 1 and 2: producer throughput ---------------------------------------------------------

# The long rows send LONG_RECORDS and compare with each other: a short run loses more of its time,
# in proportion, to the last acknowledgements it waits for.
LONG_ROWS = ("idempotent long", _row_name(INTERVALS_MS[-1]))
THROUGHPUT_ROWS = ("plain", "idempotent", *(_row_name(i) for i in INTERVALS_MS[:-1]), *LONG_ROWS)


def _baseline(row: str) -> str:
    return LONG_ROWS[0] if row in LONG_ROWS else "idempotent"


def throughput_run(cluster: KafkaCluster, work: Path, client: str, size: int, row: str, n: int) -> dict[str, float]:
    interval_ms = next((i for i in INTERVALS_MS if _row_name(i) == row), None)
    count = (LONG_RECORDS if row in LONG_ROWS else RECORDS)[size]
    config = PLAIN if row == "plain" else _txn(IDEMPOTENT) if interval_ms else IDEMPOTENT
    topic = measure.fresh_topic(cluster, "eos-throughput")
    name = f"{client}-{size}-{row.replace(' ', '')}-{n}"
    try:
        spec = measure.app_spec(cluster, topic, work / f"{name}.csv", count, config, value_bytes=size)
        times, _ = measure.run_app(client, replace(spec, txn_size=count, txn_ms=interval_ms or 0), work, name)
    finally:
        measure.drop_topic(cluster, topic)
    seconds = (times.done_us - times.first_ok_us) / 1e6
    return {
        "records_per_s": times.steady_records_per_s,
        "seconds": seconds,
        "records": times.acknowledged,
        "transactions": len(times.txn_durations_s),
        "txn_s": statistics.mean(times.txn_durations_s) if times.txn_durations_s else 0.0,
    }


# --- 3: end-to-end latency ----------------------------------------------------------------

LATENCY_ROWS = tuple(_row_name(i) for i in LATENCY_INTERVALS_MS)
ISOLATIONS = ("read_committed", "read_uncommitted")


def latency_run(cluster: KafkaCluster, work: Path, row: str, n: int) -> dict[str, Any]:
    interval_ms = next(i for i in LATENCY_INTERVALS_MS if _row_name(i) == row)
    count = round(LATENCY_RATE * LATENCY_S)
    topic = measure.fresh_topic(cluster, "eos-latency")
    name = f"latency-{row.replace(' ', '')}-{n}"
    try:
        readers = {}
        for isolation in ISOLATIONS:
            args = {"topic": topic, "partitions": PARTITIONS, "isolation": isolation, "count": count}
            cmd = measure.bare_command("consumer", cluster, args)
            readers[isolation] = measure.start_child(cmd, work, f"{name}-{isolation}")
            measure.wait_for_line(work, f"{name}-{isolation}", "ready")
        config = _txn(IDEMPOTENT) if interval_ms else IDEMPOTENT
        spec = measure.app_spec(cluster, topic, work / f"{name}.csv", count, config, value_bytes=1000)
        spec = replace(spec, rate_per_s=LATENCY_RATE, txn_size=count, txn_ms=interval_ms or 0)
        times, _ = measure.run_app(clients.LIBRDKAFKA, spec, work, name)
        seen = {
            isolation: json.loads(measure.finish_child(reader, work, f"{name}-{isolation}").out.splitlines()[-1])
            for isolation, reader in readers.items()
        }
    finally:
        measure.drop_topic(cluster, topic)
    return {
        "records_per_s": times.records_per_s,
        "txn_s": statistics.mean(times.txn_durations_s) if times.txn_durations_s else 0.0,
        **{f"{iso}_{q}_ms": seen[iso]["latency_ms"][q] for iso in ISOLATIONS for q in ("p50", "p99", "max")},
    }


# --- 4: consumer-side cost ----------------------------------------------------------------

CONSUMERS = tuple(f"{client} {isolation}" for client in clients.CLIENTS for isolation in ISOLATIONS)


def fill_committed(cluster: KafkaCluster, work: Path) -> str:
    """A topic of ``CONSUME_RECORDS`` 1 KB records in committed 100 ms transactions."""
    topic = measure.fresh_topic(cluster, "eos-consume")
    spec = measure.app_spec(cluster, topic, work / "fill.csv", CONSUME_RECORDS, _txn(IDEMPOTENT), value_bytes=1000)
    measure.run_app(clients.LIBRDKAFKA, replace(spec, txn_size=CONSUME_RECORDS, txn_ms=100, keys=12), work, "fill")
    return topic


def consume_run(cluster: KafkaCluster, work: Path, topic: str, row: str, n: int) -> dict[str, float]:
    client, isolation = row.split()
    name = f"consume-{client}-{isolation}-{n}"
    if client == clients.LIBRDKAFKA:
        args = {"topic": topic, "partitions": PARTITIONS, "isolation": isolation, "count": CONSUME_RECORDS}
        done = measure.run_bare("consumer", cluster, args, work, name)
        return {"records_per_s": done["records_per_s"]}
    settings = Settings()
    classpath = ":".join(str(p) for p in java_clients.tools_classpath(settings, settings.kafka_version))
    cmd = [
        *("java", *java_clients.JVM_OPTIONS, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", classpath),
        *(CONSUMER_PERF, "--bootstrap-server", cluster.bootstrap_servers(), "--topic", topic),
        *("--num-records", str(CONSUME_RECORDS), "--group", f"bench-eos-{uuid.uuid4().hex[:8]}"),
        *("--command-property", f"isolation.level={isolation}"),
    ]
    out = measure.run_child(cmd, work, name).out.strip().splitlines()
    header = [h.strip() for h in next(line for line in out if line.startswith("start.time")).split(",")]
    figures = dict(zip(header, out[-1].split(","), strict=True))
    return {"records_per_s": float(figures["fetch.nMsg.sec"])}


# --- 5: transaction markers ---------------------------------------------------------------


def marker_run(cluster: KafkaCluster, work: Path, client: str, n: int) -> dict[str, float]:
    topic = measure.fresh_topic(cluster, "eos-markers")
    name = f"markers-{client}-{n}"
    try:
        spec = measure.app_spec(
            cluster, topic, work / f"{name}.csv", MARKER_TXNS * MARKER_TXN_SIZE, _txn(IDEMPOTENT), value_bytes=100
        )
        spec = replace(spec, txn_size=MARKER_TXN_SIZE, abort_every=5, keys=12)
        measure.run_app(client, spec, work, name, keep_ledger=True)
        touched = _partitions_touched(Path(spec.ledger))
        reads = readback.read_back(cluster.bootstrap_servers(), [topic], work / f"{name}-reads")
        view = loading.load([], reads).views["read_uncommitted"]
        batches = [b for p in range(PARTITIONS) for b in _control_batches(cluster, topic, p)]
    finally:
        measure.drop_topic(cluster, topic)
    return {
        "markers": touched,
        "offsets_per_marker": int(np.count_nonzero(view.id == MARKER_ID)) / touched,
        "control_batches": len(batches),
        "bytes_per_marker": statistics.mean(size for size, _ in batches),
        "records_per_control_batch": statistics.mean(records for _, records in batches),
    }


def _partitions_touched(path: Path) -> int:
    """(transaction, partition) pairs written: each must end with one marker, commit or abort."""
    table, event = ledger.read(path, ("event", "id", "txn", "partition")).used()
    ids, txn, partition = (table[c].to_pylist() for c in ("id", "txn", "partition"))  # a few thousand lines
    txn_of = {}
    pairs = set()
    for e, i, t, p in zip(event.tolist(), ids, txn, partition, strict=True):
        if e == EVENTS.index("invoke"):
            txn_of[i] = t
        elif e == EVENTS.index("ok"):
            pairs.add((txn_of[i], p))
    return len(pairs)


def _control_batches(cluster: KafkaCluster, topic: str, partition: int) -> list[tuple[int, int]]:
    """(bytes, records) of each control batch in the partition's log, read from its leader's data
    folder (replicas hold the same batches)."""
    container = cluster.broker(cluster.leader(topic, partition)).docker()
    stream, _ = container.get_archive(f"{DATA_DIR}/{topic}-{partition}")
    found = []
    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
        for member in tar.getmembers():
            if not member.name.endswith(".log"):
                continue
            log = tar.extractfile(member).read()  # type: ignore[union-attr]
            at = 0
            while at + 27 <= len(log):  # baseOffset int64, batchLength int32, ... attributes int16 at 21
                (length,) = struct.unpack_from(">i", log, at + 8)
                (attributes,) = struct.unpack_from(">h", log, at + 21)
                (last_offset_delta,) = struct.unpack_from(">i", log, at + 23)
                if attributes & CONTROL:
                    found.append((12 + length, last_offset_delta + 1))
                at += 12 + length
    return found


# --- the rounds, the tables, the verdicts -------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"repetitions of every row ({ROUNDS})")
    parser.add_argument("--from", dest="saved", type=Path, help="print a saved run's tables and verdicts again")
    args = parser.parse_args()
    groups = [(client, size) for client in clients.CLIENTS for size in SIZES]
    if args.saved:
        saved = json.loads(args.saved.read_text())
        report(saved["runs"], groups, saved["rounds"])
        print(measure.machine_text(saved["machine_before"], saved["machine_after"]))
        print(f"{saved['wall_s']} s in all")
        return
    started, before = time.monotonic(), measure.machine()
    with KafkaCluster(Settings()) as cluster, tempfile.TemporaryDirectory(prefix="bench-eos-") as tmp:
        work = Path(tmp)
        consumed = fill_committed(cluster, work)
        names = [
            *(f"throughput {c} {s} {row}" for c, s in groups for row in THROUGHPUT_ROWS),
            *(f"latency {row}" for row in LATENCY_ROWS),
            *(f"consume {row}" for row in CONSUMERS),
            *(f"markers {client}" for client in clients.CLIENTS),
        ]

        def run(name: str, n: int) -> dict[str, Any]:
            kind, rest = name.split(" ", 1)
            if kind == "throughput":
                client, size, row = rest.split(" ", 2)
                return throughput_run(cluster, work, client, int(size), row, n)
            if kind == "latency":
                return latency_run(cluster, work, rest, n)
            if kind == "consume":
                return consume_run(cluster, work, consumed, rest, n)
            return marker_run(cluster, work, rest, n)

        runs = measure.interleaved(names, args.rounds, run)
    after = measure.machine()
    doc = {
        "machine_before": before,
        "machine_after": after,
        "rounds": args.rounds,
        "settings": {
            "idempotent": IDEMPOTENT,
            "plain": PLAIN,
            "records": RECORDS,
            "long_records": LONG_RECORDS,
            "latency_rate": LATENCY_RATE,
        },
        "runs": runs,
        "claims": report(runs, groups, args.rounds),
        "wall_s": round(time.monotonic() - started),
    }
    print(measure.machine_text(before, after))
    print(f"{doc['wall_s']} s in all; figures in {measure.write_json('eos', doc)}")


def _values(runs: Runs, name: str, key: str) -> list[float]:
    return [r[key] for r in runs[name]]


def _claim(claim: str, measured: str, verdict: str) -> dict[str, str]:
    print(f"{verdict:<13} {claim}\n{'':<14}{measured}")
    return {"claim": claim, "measured": measured, "verdict": verdict}


def _difference(low: list[float], high: list[float]) -> str:
    """Whether ``high`` is above ``low`` beyond the spread, round by round: "above" when it is in
    every round (the per-round differences' min-max range lies above zero), "below" when it is
    below in every round, else "overlap"."""
    differences = [h - lo for lo, h in zip(low, high, strict=True)]
    return "above" if min(differences) > 0 else "below" if max(differences) < 0 else "overlap"


def report(runs: Runs, groups: list[tuple[str, int]], rounds: int) -> list[dict[str, str]]:
    """Print the tables and the verdicts; returns the verdicts."""
    print(f"\n1-2. producer throughput, {rounds} rounds: records/s median (min-max); per round against idempotent")
    print("(the long rows against idempotent long)")
    print(f"{'client':<11} {'size':>5} {'row':<12} {'records/s':<26} {'/ idempotent':<18} {'txn lasted s':<20} ms/txn")
    cost: dict[tuple[str, int, str], list[float]] = {}
    overhead: dict[tuple[str, int, str], list[float]] = {}
    for client, size in groups:
        for row in THROUGHPUT_ROWS:
            idem = _values(runs, f"throughput {client} {size} {_baseline(row)}", "records_per_s")
            these = runs[f"throughput {client} {size} {row}"]
            rate = [r["records_per_s"] for r in these]
            ratio = measure.ratios(rate, idem)
            overhead[(client, size, row)] = [1 - r / i for r, i in zip(rate, idem, strict=True)]
            txn_text = cost_text = ""
            if these[0]["transactions"]:
                txn_text = spread([r["txn_s"] for r in these]).text(".3f")
                cost[(client, size, row)] = [
                    (r["seconds"] - r["records"] / i) / r["transactions"] * 1000
                    for r, i in zip(these, idem, strict=True)
                ]
                cost_text = spread(cost[(client, size, row)]).text(".1f")
            print(
                f"{client:<11} {size:>5} {row:<12} {spread(rate).text():<26} {ratio.text('.3f'):<18} "
                f"{txn_text:<20} {cost_text}"
            )

    print(f"\n3. end-to-end latency (ms), {LATENCY_RATE}/s of 1 KB from the Python app; p50 and p99 per run")
    print(
        f"{'row':<12} {'read_committed p50':<22} {'read_uncommitted p50':<22} {'added p50':<20} {'rc p99':<20} ru p99"
    )
    for row in LATENCY_ROWS:
        name = f"latency {row}"
        rc, ru = _values(runs, name, "read_committed_p50_ms"), _values(runs, name, "read_uncommitted_p50_ms")
        added = spread([a - b for a, b in zip(rc, ru, strict=True)])
        print(
            f"{row:<12} {spread(rc).text('.1f'):<22} {spread(ru).text('.1f'):<22} {added.text('.1f'):<20} "
            f"{spread(_values(runs, name, 'read_committed_p99_ms')).text('.1f'):<20} "
            f"{spread(_values(runs, name, 'read_uncommitted_p99_ms')).text('.1f')}"
        )

    print(f"\n4. reading {CONSUME_RECORDS:,} committed 1 KB records from the beginning: records/s")
    for row in CONSUMERS:
        print(f"{row:<28} {spread(_values(runs, f'consume {row}', 'records_per_s')).text()}")

    print(f"\n5. markers: {MARKER_TXNS} transactions of {MARKER_TXN_SIZE} keyed records over {PARTITIONS} partitions")
    for client in clients.CLIENTS:
        these = runs[f"markers {client}"]
        print(
            f"{client:<11} (transaction, partition) pairs {spread([r['markers'] for r in these]).text()}, "
            f"control batches {spread([r['control_batches'] for r in these]).text()}, "
            f"offsets per marker {spread([r['offsets_per_marker'] for r in these]).text('.2f')}, "
            f"bytes per marker {spread([r['bytes_per_marker'] for r in these]).text('.1f')}, "
            f"records per control batch {spread([r['records_per_control_batch'] for r in these]).text('.2f')}"
        )

    print("\nverdicts")
    return [
        *_throughput_claims(runs, overhead, cost),
        *_latency_claims(runs),
        *_consumer_claims(runs),
        *_marker_claims(runs),
    ]


def _percent(fractions: list[float]) -> str:
    return f"{spread([100 * f for f in fractions]).text('.1f')} %"


def _per_round(low: list[float], high: list[float], unit: str = "") -> str:
    """The per-round difference ``high - low`` that the verdict reads (as a ratio without a unit)."""
    if unit:
        return f"per round {spread([h - lo for lo, h in zip(low, high, strict=True)]).text('+.1f')} {unit}"
    return f"per round x{spread([h / lo for lo, h in zip(low, high, strict=True)]).text('.2f')}"


def _throughput_claims(runs: Runs, overhead: dict[Any, list[float]], cost: dict[Any, list[float]]) -> list[Any]:
    claims = []
    for client in clients.CLIENTS:
        idem = _values(runs, f"throughput {client} 1000 idempotent", "records_per_s")
        txn = _values(runs, f"throughput {client} 1000 txn 100 ms", "records_per_s")
        cut = overhead[(client, 1000, "txn 100 ms")]
        where = _difference(txn, idem)
        sized = min(cut) <= CLAIMED_OVERHEAD <= max(cut)
        claims.append(
            _claim(
                f"{client}: transactions committed every 100 ms cost about 3 % of idempotent throughput (1 KB)",
                f"overhead {_percent(cut)}; idempotent {spread(idem).text()}, transactional {spread(txn).text()} "
                f"records/s",
                "not seen" if where == "overlap" else "reproduced" if where == "above" and sized else "refuted",
            )
        )
        for size in SIZES:
            short, long = overhead[(client, size, "txn 10 ms")], overhead[(client, size, "txn 1 s")]
            claims.append(
                _claim(
                    f"{client}, {size} B: more records per transaction, lower overhead (10 ms against 1 s)",
                    f"overhead at 10 ms {_percent(short)}, at 1 s {_percent(long)}; "
                    f"{_per_round([100 * x for x in long], [100 * x for x in short], 'points')}",
                    {"above": "reproduced", "below": "refuted", "overlap": "not seen"}[_difference(long, short)],
                )
            )
        for row in ("txn 10 ms", "txn 100 ms"):
            small, big = cost[(client, 100, row)], cost[(client, 1000, row)]
            claims.append(
                _claim(
                    f"{client}, {row}: the cost grows with the records in a transaction (the seed: a cost per "
                    "transaction, not per record)",
                    f"cost per transaction {spread(big).text('.1f')} ms at 1000 B, {spread(small).text('.1f')} ms "
                    f"at 100 B (more records per transaction); {_per_round(big, small, 'ms')}",
                    "refuted" if _difference(big, small) == "above" else "not seen",
                )
            )
        for size in SIZES:
            plain = _values(runs, f"throughput {client} {size} plain", "records_per_s")
            idem = _values(runs, f"throughput {client} {size} idempotent", "records_per_s")
            claims.append(
                _claim(
                    f"{client}, {size} B: idempotence costs throughput at equal acks and in-flight (KIP-679: no "
                    "significant cost)",
                    f"idempotence off {spread(plain).text()}, on {spread(idem).text()} records/s; off/on "
                    f"{_per_round(idem, plain)}",
                    "refuted" if _difference(idem, plain) == "above" else "not seen",
                )
            )
    return claims


def _latency_claims(runs: Runs) -> list[dict[str, str]]:
    claims = []
    for row in LATENCY_ROWS[1:]:
        name = f"latency {row}"
        rc, ru = _values(runs, name, "read_committed_p50_ms"), _values(runs, name, "read_uncommitted_p50_ms")
        added = [a - b for a, b in zip(rc, ru, strict=True)]
        lasted_ms = statistics.median(_values(runs, name, "txn_s")) * 1000
        where = _difference(ru, rc)
        measured = (
            f"p50 added by read_committed {spread(added).text('.1f')} ms; "
            f"a transaction lasted {lasted_ms:.0f} ms (begin to committed)"
        )
        verdict = (
            "not seen"
            if where == "overlap"
            else "reproduced"
            if where == "above" and statistics.median(added) <= lasted_ms
            else "refuted"
        )
        claims.append(
            _claim(f"read_committed adds end-to-end latency up to the commit interval ({row})", measured, verdict)
        )
    return claims


def _consumer_claims(runs: Runs) -> list[dict[str, str]]:
    claims = []
    for client in clients.CLIENTS:
        rc = _values(runs, f"consume {client} read_committed", "records_per_s")
        ru = _values(runs, f"consume {client} read_uncommitted", "records_per_s")
        measured = (
            f"read_committed {spread(rc).text()}, read_uncommitted {spread(ru).text()} records/s; "
            f"uncommitted/committed {_per_round(rc, ru)}"
        )
        verdict = "refuted" if _difference(rc, ru) == "above" else "not seen"
        claims.append(
            _claim(
                f"{client}: reading read_committed costs the consumer (the seed: no consumer-side cost)",
                measured,
                verdict,
            )
        )
    return claims


def _marker_claims(runs: Runs) -> list[dict[str, str]]:
    claims = []
    for client in clients.CLIENTS:
        these = runs[f"markers {client}"]
        offsets = spread([r["offsets_per_marker"] for r in these])
        size = spread([r["bytes_per_marker"] for r in these])
        one_each = all(r["control_batches"] == r["markers"] for r in these)
        measured = (
            f"{'one' if one_each else 'not one'} control batch per (transaction, partition); "
            f"offsets per marker {offsets.text('.2f')}, bytes per marker {size.text('.1f')}"
        )
        exact = one_each and offsets.low == offsets.high == 1 and size.low == size.high == CLAIMED_MARKER_BYTES
        claims.append(
            _claim(
                f"{client}: one control record per partition per transaction, about {CLAIMED_MARKER_BYTES} bytes, "
                "one offset",
                measured,
                "reproduced" if exact else "refuted",
            )
        )
    return claims


if __name__ == "__main__":
    main()
