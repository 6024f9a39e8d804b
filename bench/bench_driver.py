"""Driver benchmark: the harness's apps against the bare client they drive, and Kafka's own tool.

One cluster. Every producer sends ``RECORDS`` records of 1 KB (1000 bytes) to a fresh topic
of 3 partitions (RF 3, min ISR 2, all through Toxiproxy) with acks=all, idempotence on and
equal batching: ``batch.size`` 1,000,000 bytes and ``linger.ms`` 5 for every client
(librdkafka's defaults; the Java client's default batch is 16 KB). Each is a child process,
``ROUNDS`` rounds interleaved, every round in another order, and each is **timed as a process**,
as a user sees it: records acknowledged over the seconds from its start to its exit (the
interpreter's or JVM's start, the connections, the last flush and the exit included):

- **bare, protocol idle**: the same bare client while a protocol fault is configured on every
  broker's client links but matches nothing it sends (``delay_response`` of ``EndTxn``): both Kafka
  toxics read every request and answer (harness/faults/kinds/protocol.py); its ratio to **bare**
  in the same round is the cost of the protocol path when it does not act, and the Toxiproxy
  container's CPU per record beside the bare client's (a steadier figure on a busy machine).
- **bare** (``bench/bare.py producer``): confluent-kafka doing what any application must:
  ``produce()`` of each record (one constant 1000-byte value) with a delivery callback that counts
  the acknowledgements, on ``BufferError`` ``poll(0.1)`` and again, ``poll(0)`` after every
  ``CHUNK`` records (as the app polls once per chunk), ``flush()`` at the end.
- **python app**: ``harness.workloads.apps.producer`` at an unlimited rate: ids, values
  ``<id>|<padding>``, its ledger (``invoke`` lines per chunk before the records reach the client,
  ``ok`` lines per poll).
- **java app**: ``kafkaeos.ProducerApp`` on Kafka's Java client, same spec and ledger.
- **ProducerPerformance**: ``org.apache.kafka.tools.ProducerPerformance --throughput -1`` (kafka-tools
  of the cluster's version), the same producer properties. Both JVMs run with the apps' flags
  (``java_clients.JVM_OPTIONS``).

Then the consume-transform-produce apps (timed from inside, as they say below: a transformer
app waits ``idle_exit_s`` after its last input before it exits): an input topic of ``TRANSFORM_RECORDS`` records is
read by a fresh group per run, and every input becomes one 1 KB output, in plain mode (batches of
``TRANSFORM_BATCH``: produce the batch, ``flush()``, commit the offsets):

- **bare** (``bench/bare.py transformer``): a confluent-kafka consumer and producer doing exactly
  that, with the counting delivery callback and ``poll(0)`` per batch; timed from the first
  ``produce()`` to the last ``flush()``;
- **python transformer** / **java transformer**: ``harness.workloads.apps.transformer`` and
  ``kafkaeos.TransformerApp``, timed from their ledgers.

Printed per contender: records/s (median and min-max over the rounds), the ratio to the bare
client of the same round (median and min-max), and CPU time per record of its process (user +
system, all its threads, starting the interpreter or JVM included; a steadier figure than
throughput on a shared machine); for the producers also the Toxiproxy container's CPU time
per record (its cgroup's count: what the links cost). The figures also go to ``runs/bench/driver.json``.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import measure

from harness.cluster.kafka import KafkaCluster
from harness.faults import Brokers, Faults, protocol
from harness.jvm import java_clients
from harness.settings import Settings
from harness.workloads import clients
from harness.workloads.apps.producer import ProducerSpec
from harness.workloads.apps.transformer import TransformerSpec

RECORDS = 500_000
VALUE_BYTES = 1000
ROUNDS = 5
CHUNK = ProducerSpec.chunk
BATCHING = {"batch.size": 1_000_000, "linger.ms": 5}
PRODUCER = {"acks": "all", "enable.idempotence": True, **BATCHING}  # librdkafka's names (Java's too)
TRANSFORM_RECORDS = 100_000
TRANSFORM_BATCH = 1000
PERF_TOOL = "org.apache.kafka.tools.ProducerPerformance"


# --- one run of each contender ----------------------------------------------------------

PRODUCERS = ("bare", "bare, protocol idle", "python app", "java app", "ProducerPerformance")
# Configured on every broker's client links, acting on nothing a plain producer sends.
IDLE_PROTOCOL_FAULT = protocol(Brokers(), "EndTxn", "delay_response", duration_ms=1000)
TRANSFORMERS = ("bare", "python transformer", "java transformer")


def run_producer(name: str, cluster: KafkaCluster, work: Path, records: int, n: int) -> dict[str, float]:
    topic = measure.fresh_topic(cluster, "driver")
    faults = Faults(cluster)
    proxy_before = _proxy_cpu_ns(cluster)
    try:
        figures = _produce(name, cluster, faults, topic, work, records, n)
        return {**figures, "proxy_cpu_us": (_proxy_cpu_ns(cluster) - proxy_before) / 1000 / records}
    finally:
        faults.heal_all()
        measure.drop_topic(cluster, topic)


def _proxy_cpu_ns(cluster: KafkaCluster) -> int:
    """CPU time the Toxiproxy container has used so far (its cgroup's count): what the links
    cost, apart from the client's own process."""
    assert cluster.toxiproxy is not None
    stats = cluster.toxiproxy.get_wrapped_container().stats(stream=False)
    return int(stats["cpu_stats"]["cpu_usage"]["total_usage"])


def _produce(
    name: str, cluster: KafkaCluster, faults: Faults, topic: str, work: Path, records: int, n: int
) -> dict[str, float]:
    if name.startswith("bare"):
        if name == "bare, protocol idle":
            faults.inject(IDLE_PROTOCOL_FAULT)
        bare = {"topic": topic, "count": records, "poll_every": CHUNK, "value_bytes": VALUE_BYTES}
        run_name = f"{name.replace(', ', '-').replace(' ', '-')}-{n}"
        done = measure.run_bare("producer", cluster, {**bare, "config": PRODUCER}, work, run_name)
        return {"records_per_s": done["records"] / done["wall_s"], "cpu_us": done["cpu_us"]}
    if name == "ProducerPerformance":
        child = measure.run_child(_perf_tool(cluster, topic, records), work, f"perf-{n}")
        sent = int(re.findall(r"(\d+) records sent", child.out)[-1])
        return {"records_per_s": sent / child.wall_s, "cpu_us": child.cpu_s / sent * 1e6}
    client = clients.LIBRDKAFKA if name == "python app" else clients.JAVA
    spec = measure.app_spec(cluster, topic, work / f"{client}-{n}.csv", records, PRODUCER, value_bytes=VALUE_BYTES)
    times, child = measure.run_app(client, spec, work, f"{client}-{n}")
    return {"records_per_s": times.acknowledged / child.wall_s, "cpu_us": child.cpu_s / times.acknowledged * 1e6}


def _perf_tool(cluster: KafkaCluster, topic: str, records: int) -> list[str]:
    settings = Settings()
    classpath = ":".join(str(p) for p in java_clients.tools_classpath(settings, settings.kafka_version))
    props = {"bootstrap.servers": cluster.bootstrap_servers(), **PRODUCER}
    return [
        "java",
        *java_clients.JVM_OPTIONS,
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        "-cp",
        classpath,
        PERF_TOOL,
        *("--topic", topic, "--num-records", str(records), "--record-size", str(VALUE_BYTES), "--throughput", "-1"),
        "--producer-props",
        *(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in props.items()),
    ]


def run_transformer(name: str, cluster: KafkaCluster, work: Path, source: str, n: int) -> dict[str, float]:
    sink = measure.fresh_topic(cluster, "driver-out")
    group = f"driver-{n}-{name.replace(' ', '-')}"
    bootstrap = cluster.bootstrap_servers()
    try:
        if name == "bare":
            bare = {
                "source": source,
                "sink": sink,
                "group": group,
                "count": TRANSFORM_RECORDS,
                "batch": TRANSFORM_BATCH,
            }
            bare |= {"value_bytes": VALUE_BYTES, "config": PRODUCER}
            return measure.run_bare("transformer", cluster, bare, work, f"bare-transformer-{n}")
        client = clients.LIBRDKAFKA if name.startswith("python") else clients.JAVA
        spec = TransformerSpec(
            bootstrap_servers=bootstrap,
            input_topic=source,
            input_partitions=measure.PARTITIONS,
            output_topic=sink,
            group_id=group,
            ledger=str(work / f"transformer-{client}-{n}.csv"),
            session=n + 1,
            mode="plain",
            batch_size=TRANSFORM_BATCH,
            value_bytes=VALUE_BYTES,
            idle_exit_s=1.0,  # after the last input: outside the timing (first invoke to last ok)
            producer_config=PRODUCER,
        )
        times, child = measure.run_app(client, spec, work, f"transformer-{client}-{n}", TRANSFORM_RECORDS)
        return {"records_per_s": times.records_per_s, "cpu_us": child.cpu_s / times.acknowledged * 1e6}
    finally:
        measure.drop_topic(cluster, sink)


# --- the table --------------------------------------------------------------------------


def table(title: str, names: tuple[str, ...], runs: dict[str, list[dict[str, float]]]) -> list[dict[str, Any]]:
    """Print one table (figures per contender, ratios to the bare client) and return its rows."""
    bare = [r["records_per_s"] for r in runs["bare"]]
    print(f"\n{title}")
    proxy = "proxy_cpu_us" in runs["bare"][0]
    header = f"{'contender':<22} {'records/s median (min-max)':<30} {'/ bare, per round':<24} {'CPU us/record':<18}"
    print(header + (f" {'Toxiproxy CPU us/record':<24}" if proxy else ""))
    rows = []
    for name in names:
        rate = [r["records_per_s"] for r in runs[name]]
        cpu = measure.spread([r["cpu_us"] for r in runs[name]])
        ratio = measure.ratios(rate, bare)
        row = {"contender": name, "records_per_s": measure.spread(rate), "ratio_to_bare": ratio, "cpu_us": cpu}
        line = f"{name:<22} {row['records_per_s'].text():<30} {ratio.text('.2f'):<24} {cpu.text('.1f'):<18}"
        if proxy:
            row["proxy_cpu_us"] = measure.spread([r["proxy_cpu_us"] for r in runs[name]])
            line += f" {row['proxy_cpu_us'].text('.2f'):<24}"
        rows.append(row)
        print(line, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"repetitions of every contender ({ROUNDS})")
    parser.add_argument("--records", type=int, default=RECORDS, help=f"records per producer run ({RECORDS:,})")
    args = parser.parse_args()
    started, before = time.monotonic(), measure.machine()
    with KafkaCluster(Settings()) as cluster, tempfile.TemporaryDirectory(prefix="bench-driver-") as tmp:
        work = Path(tmp)
        print(f"producers, {args.records:,} records each:")
        producers = measure.interleaved(
            PRODUCERS, args.rounds, lambda name, n: run_producer(name, cluster, work, args.records, n)
        )
        # Printed at once: the transformers' rounds take as long again.
        producer_rows = table(
            f"producers: {args.records:,} records of {VALUE_BYTES} B per run, {args.rounds} rounds interleaved",
            PRODUCERS,
            producers,
        )
        source = measure.fresh_topic(cluster, "driver-in")
        fill = measure.app_spec(cluster, source, work / "fill.csv", TRANSFORM_RECORDS, PRODUCER, keys=12)
        measure.run_app(clients.LIBRDKAFKA, replace(fill, value_bytes=VALUE_BYTES), work, "fill")
        print(f"transformers, {TRANSFORM_RECORDS:,} inputs each:")
        transformers = measure.interleaved(
            TRANSFORMERS, args.rounds, lambda name, n: run_transformer(name, cluster, work, source, n)
        )
    after = measure.machine()
    doc = {
        "machine_before": before,
        "machine_after": after,
        "records": args.records,
        "value_bytes": VALUE_BYTES,
        "rounds": args.rounds,
        "producer_settings": PRODUCER,
        "producers": producer_rows,
        "transformers": table(
            f"consume-transform-produce (plain, batches of {TRANSFORM_BATCH}): {TRANSFORM_RECORDS:,} inputs per run",
            TRANSFORMERS,
            transformers,
        ),
        "wall_s": round(time.monotonic() - started),
    }
    print(measure.machine_text(before, after))
    print(f"{doc['wall_s']} s in all; figures in {measure.write_json('driver', doc)}")


if __name__ == "__main__":
    main()
