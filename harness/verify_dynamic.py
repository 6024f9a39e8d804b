"""The dynamic half of ``verify-config``: the user's files run through scenario pairs.

Per Kafka version, one cluster of its own is started with the user's broker settings and
every chosen scenario runs on it as a pair: the scenario's own control, unchanged (so we
know the fault bites on this cluster), and the guarantee with the user's producer and
consumer settings in place of the scenario's. Each pair becomes one row per version:

- **violated**: the guarantee showed an anomaly it forbids (count and first example);
- **unavailable**: the user's producer could not deliver: its client refused the
  configuration or could not start transactions, or fewer than half of the records the
  scenario means to send were acknowledged (``MIN_ACKED_SHARE``: the app gave up, crashed
  or stalled); nothing forbidden was seen, but nothing was shown to hold either;
- **inconclusive**: the control did not show its anomaly, or a fault step failed: the
  fault did not bite, so a clean guarantee proves nothing;
- **held**: the guarantee was clean and the control showed its anomaly.

How the files become a run's configuration (``apply``):

- broker: every property the catalogue knows except the cluster's plumbing
  (``NEVER_APPLIED``: listeners, quorum, node ids, log dirs, ZooKeeper) is applied.
  Where the file is silent on a durability setting the harness cluster hardens
  (``min.insync.replicas`` and the like), Kafka's own default is applied instead of the
  harness's, because that is what the user's brokers run with.
- producer: librdkafka runs it (the workloads are confluent-kafka). Each name is
  translated to librdkafka's primary name for the setting (``delivery.timeout.ms`` ->
  ``message.timeout.ms``); Java-only settings and connection settings (the harness's
  cluster is PLAINTEXT on loopback) are dropped with a note. A file only the Java client
  reads gets Java's defaults where they differ from librdkafka's (idempotence on unless
  acks or retries conflict, 5 in flight, a 120 s delivery timeout).
- the scenario's workload settings are the user's too, except ``FAULT_TIMING``: what the
  fault is sized against (``socket.timeout.ms``: a request must time out within the
  outage), where the scenario's value wins. A scenario whose producer writes transactions
  (B3) keeps its own producer when the user's file has no ``transactional.id``: a
  non-transactional producer cannot play it, and the consumer's view is still the user's.
- consumer: only ``isolation.level`` matters to the read-back; it becomes the guarantee's
  consumer view, with the default of the client the file is for.
"""

from __future__ import annotations

import socket
import struct
import textwrap
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from harness import config_catalogue, images
from harness.config import Settings
from harness.config_catalogue import ConfigFile, Kind
from harness.config_rules import why_idempotence_is_off
from harness.errors import HarnessError
from harness.progress import say
from harness.scenario import ProducerWorkload, Scenario, SparkWorkload, Variant
from harness.verdict import FORBIDDEN, PairVerdict

DEFAULT_SCENARIOS = ("A1", "A3", "B3")
OUTCOMES = ("held", "violated", "unavailable", "inconclusive")
MIN_ACKED_SHARE = 0.5

J, L = config_catalogue.J, config_catalogue.L

# Broker properties that wire the harness's cluster together (listeners behind Toxiproxy,
# the KRaft quorum, node ids, storage): the user's values would break it.
NEVER_APPLIED = frozenset(
    {
        "listeners",
        "advertised.listeners",
        "listener.security.protocol.map",
        "inter.broker.listener.name",
        "controller.listener.names",
        "node.id",
        "broker.id",
        "process.roles",
        "log.dirs",
        "log.dir",
    }
)
_NEVER_APPLIED_PREFIXES = ("controller.quorum.", "zookeeper.")

# Client settings the harness's own connection decides: its cluster is PLAINTEXT on loopback.
_CONNECTION = ("bootstrap.servers", "security.protocol", "sasl.", "ssl.")

# Workload settings the scenario's fault is sized against: its value wins over the file's.
FAULT_TIMING = ("socket.timeout.ms",)
# Client findings that mean the producer never got going, not that a guarantee broke.
_STARTUP_FINDINGS = ("config_error", "txn_init_failed")


@dataclass
class Applied:
    """The user's files as the runs use them, with what was left out and why."""

    broker: dict[str, str] = field(default_factory=dict)
    broker_defaults: dict[str, str] = field(default_factory=dict)  # Kafka defaults over the harness's
    producer: dict[str, str] = field(default_factory=dict)  # librdkafka names
    consumer_view: str = "read_committed"
    # kind -> what happened ("ignored: why", "translated") -> the names it happened to
    notes: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def note(self, kind: Kind, what: str, name: str = "") -> None:
        names = self.notes.setdefault(str(kind), {}).setdefault(what, [])
        if name:
            names.append(name)

    def to_json(self) -> dict[str, Any]:
        return {
            "broker": self.broker,
            "broker_kafka_defaults": self.broker_defaults,
            "producer": self.producer,
            "consumer_view": self.consumer_view,
            "notes": self.notes,
        }


def _last_entries(cfg: ConfigFile) -> list[config_catalogue.Entry]:
    """One entry per name the way Properties keeps it: the last one set."""
    return list({e.name: e for e in cfg.entries}.values())


def _text(value: config_catalogue.Value) -> str:
    # Booleans in the spelling both Kafka and librdkafka accept.
    return str(value).lower() if isinstance(value, bool) else str(value)


def _raw(e: config_catalogue.Entry) -> str:
    return _text(e.value) if isinstance(e.value, bool) else e.raw.strip()


def apply(files: dict[Kind, ConfigFile]) -> Applied:
    applied = Applied()
    broker, producer, consumer = (files.get(k) for k in (Kind.BROKER, Kind.PRODUCER, Kind.CONSUMER))
    if broker:
        for e in _last_entries(broker):
            if e.setting is None:
                applied.note(Kind.BROKER, "ignored: not in the catalogue", e.name)
            elif e.name in NEVER_APPLIED or e.name.startswith(_NEVER_APPLIED_PREFIXES):
                applied.note(Kind.BROKER, "ignored: the harness's cluster plumbing", e.name)
            else:
                applied.broker[e.name] = _raw(e)
        for s in config_catalogue.CATALOGUE[Kind.BROKER]:
            default = s.default(config_catalogue.B)
            if default is not None and s.key not in applied.broker:
                applied.broker_defaults[s.key] = _text(default)
    else:
        applied.note(Kind.BROKER, "no file: the harness cluster's settings (harness/config.py)")
    if producer:
        _apply_producer(producer, applied)
    else:
        applied.note(Kind.PRODUCER, "no file: librdkafka's defaults")
    if consumer:
        reader = J if consumer.readers == (J,) else L
        applied.consumer_view = str(consumer.value("isolation.level", reader))
        why = "set" if consumer.entry("isolation.level", reader) else f"{reader}'s default"
        applied.note(Kind.CONSUMER, f"isolation.level={applied.consumer_view} ({why}); the rest is not exercised")
    else:
        applied.note(Kind.CONSUMER, "no file: read_committed (librdkafka's default)")
    return applied


def _apply_producer(p: ConfigFile, applied: Applied) -> None:
    for e in _last_entries(p):
        if e.setting is None:
            applied.note(Kind.PRODUCER, "ignored: not in the catalogue (librdkafka would refuse it)", e.name)
        elif e.name.startswith(_CONNECTION):
            applied.note(Kind.PRODUCER, "ignored: the harness connects to its own PLAINTEXT cluster", e.name)
        elif L not in e.setting.names:
            applied.note(Kind.PRODUCER, "ignored: Java-only, no librdkafka equivalent", e.name)
        else:
            name = e.setting.names[L][0]
            if name != e.name:
                applied.note(Kind.PRODUCER, "translated to librdkafka", f"{e.name} -> {name}")
            applied.producer[name] = _raw(e)
    if p.readers != (J,):
        return
    # A Java client's file: where Java's default differs from librdkafka's, Java's applies.
    for s in config_catalogue.CATALOGUE[Kind.PRODUCER]:
        name = s.names.get(L, ("",))[0]
        java, rdkafka = s.default(J), s.default(L)
        if not name or name in applied.producer or java is None or java == rdkafka:
            continue
        if s.key == "delivery.timeout.ms" and "transactional.id" in applied.producer:
            continue  # librdkafka derives it from transaction.timeout.ms, which it may not exceed
        if s.key == "enable.idempotence":
            java = why_idempotence_is_off(p, J) is None
        applied.producer[name] = _text(java)
        applied.note(Kind.PRODUCER, "the Java client's default (not set in the file)", name)


def guarantee_scenario(s: Scenario, applied: Applied) -> tuple[Scenario, str]:
    """``s`` with its guarantee running the user's settings on the shared cluster, and
    whose producer that is."""
    w = s.workload
    assert isinstance(w, ProducerWorkload)  # checked by choose()
    if "transactional.id" in w.config and "transactional.id" not in applied.producer:
        producer, config = s.guarantee.producer_config, w.config
        whose = "the scenario's (it writes transactions; your file has no transactional.id)"
    else:
        producer = {k: v for k, v in applied.producer.items() if k not in FAULT_TIMING}
        config = {k: v for k, v in w.config.items() if k in FAULT_TIMING}
        whose = "yours"
    g: Variant = replace(
        s.guarantee,
        producer_config=producer,
        consumer_view=applied.consumer_view,
        app={**s.guarantee.app, "config": config},
        # The user's broker settings decide, not the scenario's topic overrides.
        topic_config={},
        broker_settings={},
        kafka_version="",
    )
    return replace(s, guarantee=g, topic_config={}), whose


def choose(ids: list[str]) -> list[Scenario]:
    """The scenarios to run; a HarnessError (exit 2) for an unknown or unsuitable one."""
    from harness import scenario

    chosen = []
    for sid in ids:
        s = scenario.get(sid)
        if not isinstance(s.workload, ProducerWorkload) or s.research or s.guarantee.acls:
            why = (
                "a research scenario"
                if s.research
                else "about ACLs on a secured cluster of its own, not your files"
                if s.guarantee.acls
                else "a Spark streaming job, not a producer file"
                if isinstance(s.workload, SparkWorkload)
                else "a consume-transform-produce pipeline, not a producer file"
            )
            raise HarnessError(f"scenario {s.id} cannot run with your files: it is {why}; choose a producer scenario")
        chosen.append(s)
    return chosen


@dataclass
class Row:
    scenario: str
    title: str
    fault: str
    version: str
    outcome: str
    reason: str
    counts: dict[str, dict[str, int]]  # side -> judged anomaly -> count
    example: dict[str, Any] | None
    run_dir: str
    producer: str = "yours"  # whose producer settings the guarantee ran

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def fault_of(s: Scenario) -> str:
    steps = s.schedule("topic")
    held = [f" for {st.duration_s:g}s" if st.duration_s else "" for st in steps]
    return "; ".join(st.fault.describe() + d for st, d in zip(steps, held, strict=True)) if steps else "none"


def row(pair: PairVerdict, s: Scenario, version: str, producer: str) -> Row:
    """The pair's outcome, first match of violated, unavailable, inconclusive, held: a
    forbidden anomaly counts however badly the producer did, and a producer that could not
    deliver makes a clean result meaningless even when the control showed its anomaly."""
    g, c = pair.guarantee, pair.control
    counts = {side.variant: {a: side.count(a) for a in side.expect} for side in (c, g)}
    broken = [a for a, rule in g.expect.items() if rule == FORBIDDEN and a not in _STARTUP_FINDINGS and g.count(a)]
    stats = g.result.stats
    planned = s.workload.count if isinstance(s.workload, ProducerWorkload) else stats["sent"]
    setup = [r["setup_error"] for r in g.context.get("workload", []) if "setup_error" in r]
    example = None
    if broken:
        a = broken[0]
        found = g.result.anomalies.get(a)
        example = found.examples[0] if found and found.examples else None
        outcome, reason = "violated", ", ".join(f"{g.count(x)} {x}" for x in broken)
    elif setup:
        e = setup[0]
        kind = "refused the configuration" if e["config"] else f"failed at {e['stage']}"
        outcome, reason = "unavailable", f"the client {kind}: {e['error']}: {e['message']}"
    elif stats["acknowledged"] < MIN_ACKED_SHARE * planned:
        stopped = [f"{r['app']} exited {r.get('exit')}" for r in g.context.get("workload", []) if "outcomes" not in r]
        outcome = "unavailable"
        reason = f"only {stats['acknowledged']} of {planned} records acknowledged ({stats['sent']} sent)"
        reason += "".join(f"; {x} before finishing" for x in stopped)
    elif pair.outcome == "inconclusive" or not g.passed:
        errors = [*c.context.get("fault_errors", []), *g.context.get("fault_errors", [])]
        outcome, reason = "inconclusive", "; ".join(errors or c.reasons or g.reasons)
    else:
        outcome, reason = "held", ", ".join(f"{n} {a} in the control" for a, n in counts["control"].items() if n)
    run_dir = str(g.context.get("run_dir", ""))
    return Row(s.id, s.title, fault_of(s), version, outcome, reason, counts, example, run_dir, producer)


# --- the transaction protocol in use, asked from the cluster --------------------------


def _uvarint(buf: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def finalized_features(host: str, port: int, timeout_s: float = 10) -> dict[str, int]:
    """The cluster's finalized feature levels from an ApiVersions v3 response.

    confluent-kafka has no describe_features and the broker image has no kafka-tools, but
    every broker reports the finalized features in ApiVersions' tagged field 2 (KIP-584).
    """
    header = struct.pack(">hhih", 18, 3, 1, 13) + b"kafka-harness" + b"\x00"  # api key 18, v3, no tags
    body = b"\x0ekafka-harness" + b"\x020" + b"\x00"  # client software name and version, no tags
    request = header + body
    with socket.create_connection((host, port), timeout_s) as conn:
        conn.sendall(struct.pack(">i", len(request)) + request)
        size = struct.unpack(">i", _read(conn, 4))[0]
        buf = _read(conn, size)
    at = 4 + 2  # correlation id, error code
    n, at = _uvarint(buf, at)
    for _ in range(n - 1):  # api keys: key, min, max, then their tags
        at += 6
        at = _skip_tags(buf, at)
    at += 4  # throttle time
    tags, at = _uvarint(buf, at)
    features: dict[str, int] = {}
    for _ in range(tags):
        tag, at = _uvarint(buf, at)
        size, at = _uvarint(buf, at)
        if tag == 2:  # FinalizedFeatures: [name, max level, min level, tags]
            inner = at
            count, inner = _uvarint(buf, inner)
            for _ in range(count - 1):
                length, inner = _uvarint(buf, inner)
                name = buf[inner : inner + length - 1].decode()
                inner += length - 1
                features[name] = struct.unpack(">h", buf[inner : inner + 2])[0]
                inner = _skip_tags(buf, inner + 4)
        at += size
    return features


def _skip_tags(buf: bytes, at: int) -> int:
    n, at = _uvarint(buf, at)
    for _ in range(n):
        _, at = _uvarint(buf, at)
        size, at = _uvarint(buf, at)
        at += size
    return at


def _read(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise OSError("connection closed mid-response")
        data += chunk
    return data


def transaction_protocol(bootstrap: str) -> dict[str, Any]:
    """Which transaction protocol the brokers run: v2 (KIP-890 part 2) from
    transaction.version 2, else v1."""
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    try:
        level = finalized_features(host, int(port)).get("transaction.version", 0)
    except (OSError, IndexError, struct.error) as exc:
        return {"protocol": None, "transaction.version": None, "source": f"not queried: {exc}"}
    return {"protocol": 2 if level >= 2 else 1, "transaction.version": level, "source": "queried (ApiVersions)"}


# --- the run ------------------------------------------------------------------------


@dataclass
class Dynamic:
    applied: Applied
    versions: dict[str, dict[str, Any]]  # version -> transaction protocol, wall time
    rows: list[Row]

    def violated(self) -> bool:
        return any(r.outcome == "violated" for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": self.applied.to_json(),
            "versions": self.versions,
            "rows": [r.to_json() for r in self.rows],
        }

    def table(self, width: int) -> list[str]:
        """The terminal form: what was applied, then a row per scenario with a column per
        version, and under it the title, the fault and each version's reason."""
        versions = list(self.versions)
        lines = ["", "dynamic checks (guarantee x fault; each against its own control on the same cluster)"]

        def wrap(text: str, indent: str = "  ") -> list[str]:
            return textwrap.wrap(
                text, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False
            )

        for v, info in self.versions.items():
            tp = info["transaction_protocol"]
            proto = f"v{tp['protocol']} (transaction.version={tp['transaction.version']})" if tp["protocol"] else "?"
            lines += wrap(f"Kafka {v}: transaction protocol {proto}, {tp['source']}; {info['wall_s']:.0f}s")
        a = self.applied
        lines += wrap("broker applied: " + (", ".join(f"{k}={v}" for k, v in a.broker.items()) or "nothing"))
        if a.broker_defaults:
            lines += wrap(
                "Kafka defaults (not set in the file): " + ", ".join(f"{k}={v}" for k, v in a.broker_defaults.items())
            )
        lines += wrap("producer (librdkafka): " + (", ".join(f"{k}={v}" for k, v in a.producer.items()) or "defaults"))
        lines.append(f"  consumer view: {a.consumer_view}")
        for kind, notes in a.notes.items():
            for what, names in notes.items():
                lines += wrap(f"{kind} {what}" + (f": {', '.join(names)}" if names else ""))
        by_scenario: dict[str, dict[str, Row]] = {}
        for r in self.rows:
            by_scenario.setdefault(r.scenario, {})[r.version] = r
        head = ("SCENARIO", *(f"Kafka {v}" for v in versions))
        cells = [(sid, *(rs[v].outcome if v in rs else "-" for v in versions)) for sid, rs in by_scenario.items()]
        widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
        lines += ["", "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
        indent = " " * (widths[0] + 2)
        for rs, values in zip(by_scenario.values(), cells, strict=True):
            lines.append("  ".join(c.ljust(w) for c, w in zip(values, widths, strict=True)).rstrip())
            first = next(iter(rs.values()))
            for text in (first.title, f"fault: {first.fault}", f"producer: {first.producer}"):
                lines += wrap(text, indent)
            for v, r in rs.items():
                lines += wrap(f"{v}: {r.reason}" + (f"; e.g. {r.example}" if r.example else ""), indent)
        return lines


def check_versions(versions: list[str], base: Settings) -> list[Settings]:
    """One Settings per version, each with its images present: a HarnessError before any
    container starts otherwise."""
    settings = []
    for v in versions:
        images.check_kafka_version(v)
        s = base.with_overrides(kafka_version=v)
        images.require_present(s)
        settings.append(s)
    return settings


def run(files: dict[Kind, ConfigFile], chosen: list[Scenario], settings: list[Settings]) -> Dynamic:
    from harness.cluster import KafkaCluster
    from harness.runner import run_pair

    if Kind.PRODUCER not in files:
        raise HarnessError("the dynamic run needs --producer FILE (the scenarios run your producer); or --static-only")
    applied = apply(files)
    broker = {**applied.broker_defaults, **applied.broker}
    rows: list[Row] = []
    versions: dict[str, dict[str, Any]] = {}
    for s in settings:
        started = time.monotonic()
        with KafkaCluster(s).with_broker_properties(broker) as cluster:
            protocol = transaction_protocol(cluster.bootstrap_servers())
            for sc in chosen:
                scenario, producer = guarantee_scenario(sc, applied)
                rows.append(row(run_pair(cluster, scenario, s.runs_dir), sc, s.kafka_version, producer))
                say(f"{sc.id} on Kafka {s.kafka_version}: {rows[-1].outcome}")
        versions[s.kafka_version] = {"transaction_protocol": protocol, "wall_s": round(time.monotonic() - started, 1)}
    return Dynamic(applied, versions, rows)
