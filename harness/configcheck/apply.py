"""How the files become a run's configuration (``apply``):

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

from dataclasses import dataclass, field, replace
from typing import Any

from harness.errors import HarnessError
from harness.kafkaconfig import catalogue
from harness.kafkaconfig.catalogue import Component, ConfigFile, Kind
from harness.scenario import Scenario, Variant
from harness.workloads.clients import JAVA, LIBRDKAFKA, ClientSpec
from harness.workloads.producer import ProducerWorkload

J, L = catalogue.J, catalogue.L

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

# Workload settings the scenario's fault is sized against: its value wins over the file's
# (librdkafka's name, and the Java client's for the same knob).
FAULT_TIMING = ("socket.timeout.ms",)
_JAVA_FAULT_TIMING = ("request.timeout.ms",)
# The Java producer app's own: it sends bytes.
_JAVA_APP_OWN = ("key.serializer", "value.serializer")


@dataclass
class Applied:
    """The user's files as the runs use them, with what was left out and why."""

    broker: dict[str, str] = field(default_factory=dict)
    broker_defaults: dict[str, str] = field(default_factory=dict)  # Kafka defaults over the harness's
    producer: dict[str, str] = field(default_factory=dict)  # the client's own names
    client: str = LIBRDKAFKA  # which client runs the producer (harness.workloads.clients)
    client_version: str = ""  # its release, from --client librdkafka==X / java==X; "": the default
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
            "client": self.client,
            "client_version": self.client_version,
            "consumer_view": self.consumer_view,
            "notes": self.notes,
        }


def _last_entries(cfg: ConfigFile) -> list[catalogue.Entry]:
    """One entry per name the way Properties keeps it: the last one set."""
    return list({e.name: e for e in cfg.entries}.values())


def _text(value: catalogue.Value) -> str:
    # Booleans in the spelling both Kafka and librdkafka accept.
    return str(value).lower() if isinstance(value, bool) else str(value)


def _raw(e: catalogue.Entry) -> str:
    return _text(e.value) if isinstance(e.value, bool) else e.raw.strip()


def apply(files: dict[Kind, ConfigFile], spec: ClientSpec | None = None) -> Applied:
    """The files as a run's settings. The producer runs on the Java client, verbatim, when
    ``spec`` says so or the file is one only Java reads; otherwise on librdkafka, its
    names translated; on ``spec``'s release if it names one."""
    client = Component(spec.name) if spec else None
    applied = Applied(client_version=spec.version if spec else "")
    broker, producer, consumer = (files.get(k) for k in (Kind.BROKER, Kind.PRODUCER, Kind.CONSUMER))
    if broker:
        for e in _last_entries(broker):
            if e.setting is None:
                applied.note(Kind.BROKER, "ignored: not in the catalogue", e.name)
            elif e.name in NEVER_APPLIED or e.name.startswith(_NEVER_APPLIED_PREFIXES):
                applied.note(Kind.BROKER, "ignored: the harness's cluster plumbing", e.name)
            else:
                applied.broker[e.name] = _raw(e)
        for s in catalogue.CATALOGUE[Kind.BROKER]:
            default = s.default(catalogue.B)
            if default is not None and s.key not in applied.broker:
                applied.broker_defaults[s.key] = _text(default)
    else:
        applied.note(Kind.BROKER, "no file: the harness cluster's settings (harness/config.py)")
    if producer and client == L and producer.only() == J:
        names = [e.name for e in producer.entries if e.readers == (J,)]
        raise HarnessError(
            f"{producer.path}: {', '.join(names[:4])} are the Java client's names only, so the file cannot run on "
            "librdkafka; give --client java (it then runs verbatim on the Java client) or leave --client out"
        )
    if producer and (client == J or (client is None and producer.readers == (J,))):
        _apply_java_producer(producer, applied)
    elif producer:
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


def _apply_java_producer(p: ConfigFile, applied: Applied) -> None:
    """The file as the Java producer app takes it: every setting verbatim but the connection
    (the harness's own) and the serializers (the app's own: its records are bytes)."""
    applied.client = JAVA
    applied.note(Kind.PRODUCER, "runs on Kafka's Java client, verbatim")
    for e in _last_entries(p):
        if e.name.startswith(_CONNECTION) or e.name in _JAVA_APP_OWN:
            applied.note(Kind.PRODUCER, "ignored: the harness's own (connection, serializers)", e.name)
        else:
            applied.producer[e.name] = _raw(e)


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


def guarantee_scenario(s: Scenario, applied: Applied) -> tuple[Scenario, str]:
    """``s`` with its guarantee running the user's settings on the shared cluster, and
    whose producer that is."""
    w = s.guarantee.workload or s.workload
    assert isinstance(w, ProducerWorkload)  # checked by choose()
    if "transactional.id" in w.config and "transactional.id" not in applied.producer:
        producer, config = s.guarantee.config, w.config
        whose = "the scenario's (it writes transactions; your file has no transactional.id)"
        checks = s.guarantee.checks
    elif applied.client == JAVA:
        producer, config = {}, {k: v for k, v in w.config.items() if k in FAULT_TIMING}
        verbatim = {k: v for k, v in applied.producer.items() if k not in _JAVA_FAULT_TIMING}
        w = replace(w, client=JAVA, client_version=applied.client_version, java_config=verbatim)
        whose = "yours, on the Java client"
        checks = ()
    else:
        producer = {k: v for k, v in applied.producer.items() if k not in FAULT_TIMING}
        config = {k: v for k, v in w.config.items() if k in FAULT_TIMING}
        w = replace(w, client=LIBRDKAFKA, client_version=applied.client_version)
        whose = "yours"
        checks = ()  # they describe the scenario's own producer; your settings are judged by the findings
    g: Variant = replace(
        s.guarantee,
        config=producer,
        consumer_view=applied.consumer_view,
        workload=replace(w, config=config),
        checks=checks,
        # The user's broker settings decide, not the scenario's topic overrides.
        topic_config={},
        broker_settings={},
        kafka_version="",
    )
    return replace(s, guarantee=g, topic_config={}), whose
