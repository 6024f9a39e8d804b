"""The one catalogue of Kafka properties that ``verify-config`` knows, and how a file's
names resolve against it.

A ``Setting`` is one knob as the checker reasons about it (``key``), with the names each
component reads it under and each component's default where the checker relies on it.
The Java client and librdkafka (confluent-kafka) share most names but not all, and not
all defaults: librdkafka reads ``message.timeout.ms`` (alias ``delivery.timeout.ms``)
where Java reads ``delivery.timeout.ms``, and defaults ``enable.idempotence`` to false
where Java defaults it to true. A file's entry therefore says which clients read it.

Defaults stated here were checked, not remembered:

- Java clients: ``ProducerConfig`` / ``ConsumerConfig`` in apache/kafka trunk, and the
  values kafka-clients 4.3.1 reports (3.9.0 agrees, but for ``linger.ms``: 0 before 4.0);
- librdkafka: ``CONFIGURATION.md`` and ``src/rdkafka_conf.c`` (confluentinc/librdkafka
  4c3b017); the constraints the rules rely on were also reproduced against the
  librdkafka 2.16.0 that confluent-kafka 2.16.1 ships;
- broker: ``TransactionStateManagerConfig``, ``TransactionLogConfig``,
  ``ReplicationConfigs``, ``ServerLogConfigs``, ``GroupCoordinatorConfig`` and
  ``LogConfig`` in apache/kafka trunk.

Settings without a default here are known names only: the checker types their values but
no rule depends on their defaults.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from harness.errors import HarnessError
from harness.kafkaconfig import properties


class Kind(StrEnum):
    """Which file: the broker's, or a producer's or consumer's."""

    BROKER = "broker"
    PRODUCER = "producer"
    CONSUMER = "consumer"


class Component(StrEnum):
    """Who reads a name: the broker, the Java client or librdkafka."""

    BROKER = "broker"
    JAVA = "java"
    LIBRDKAFKA = "librdkafka"


B, J, L = Component.BROKER, Component.JAVA, Component.LIBRDKAFKA
CLIENTS = (J, L)

Value = bool | int | float | str
Parser = Callable[[str], Value]  # raises ValueError saying what was expected

ACKS_ALL = -1  # acks=all and acks=-1 are one value to both clients


def _boolean(raw: str) -> bool:
    # Java accepts only true/false (any case); librdkafka also t/f/1/0. Asking for the
    # spelling both accept keeps a file valid whichever client reads it.
    if raw.lower() not in ("true", "false"):
        raise ValueError("expected true or false")
    return raw.lower() == "true"


def _whole(minimum: int | None = None) -> Parser:
    def parse(raw: str) -> int:
        # int() alone would also take "1_000" and "+5", which Java's parseInt rejects.
        if not re.fullmatch(r"-?[0-9]+", raw) or (minimum is not None and int(raw) < minimum):
            raise ValueError("expected a whole number" + (f" >= {minimum}" if minimum is not None else ""))
        return int(raw)

    return parse


def _milliseconds(raw: str) -> float:
    # librdkafka reads linger.ms / queue.buffering.max.ms as a float (0.5 is valid there).
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", raw):
        raise ValueError("expected a number of milliseconds >= 0")
    return float(raw)


def _acks(raw: str) -> int:
    if raw.lower() in ("all", "-1"):
        return ACKS_ALL
    if raw in ("0", "1"):
        return int(raw)
    raise ValueError("expected all, -1, 0 or 1")


def _choice(*options: str) -> Parser:
    def parse(raw: str) -> str:
        if raw not in options:
            raise ValueError(f"expected {' or '.join(options)}")
        return raw

    return parse


def _text(raw: str) -> str:
    return raw


def _non_empty(raw: str) -> str:
    if not raw:
        raise ValueError("expected a non-empty value (leave the line out to unset it)")
    return raw


BOOL, TEXT, COUNT, POSITIVE, INT = _boolean, _text, _whole(0), _whole(1), _whole()


@dataclass(frozen=True)
class Setting:
    key: str  # how rules name it: the Java name where Java has one
    parse: Parser
    names: Mapping[Component, tuple[str, ...]]  # per reader, every name it accepts (aliases too)
    defaults: Mapping[Component, Value]  # per reader, where a rule relies on it

    def default(self, reader: Component) -> Value | None:
        return self.defaults.get(reader)


def _shared(
    key: str, parse: Parser, readers: tuple[Component, ...], defaults: Mapping[Component, Value] | None = None
) -> Setting:
    """A setting every one of ``readers`` reads under the same name."""
    return Setting(key, parse, dict.fromkeys(readers, (key,)), defaults or {})


_BROKER = (
    _shared("unclean.leader.election.enable", BOOL, (B,), {B: False}),
    _shared("min.insync.replicas", POSITIVE, (B,), {B: 1}),
    _shared("default.replication.factor", POSITIVE, (B,), {B: 1}),
    _shared("offsets.topic.replication.factor", POSITIVE, (B,), {B: 3}),
    _shared("transaction.state.log.replication.factor", POSITIVE, (B,), {B: 3}),
    _shared("transaction.state.log.min.isr", POSITIVE, (B,), {B: 2}),
    _shared("transaction.max.timeout.ms", POSITIVE, (B,), {B: 900_000}),
    # Names of a typical KRaft server.properties, so that they are not reported unknown.
    *(
        _shared(key, parse, (B,))
        for key, parse in (
            ("process.roles", TEXT),
            ("node.id", COUNT),
            ("broker.id", INT),
            ("controller.quorum.voters", TEXT),
            ("controller.quorum.bootstrap.servers", TEXT),
            ("controller.listener.names", TEXT),
            ("listeners", TEXT),
            ("advertised.listeners", TEXT),
            ("inter.broker.listener.name", TEXT),
            ("listener.security.protocol.map", TEXT),
            ("log.dirs", TEXT),
            ("log.dir", TEXT),
            ("num.partitions", POSITIVE),
            ("auto.create.topics.enable", BOOL),
            ("auto.leader.rebalance.enable", BOOL),
            ("replica.lag.time.max.ms", COUNT),
            ("offsets.topic.num.partitions", POSITIVE),
            ("transaction.state.log.num.partitions", POSITIVE),
            ("transactional.id.expiration.ms", POSITIVE),
            ("producer.id.expiration.ms", POSITIVE),
            ("transaction.partition.verification.enable", BOOL),
            ("group.initial.rebalance.delay.ms", COUNT),
            ("num.network.threads", POSITIVE),
            ("num.io.threads", POSITIVE),
            ("num.recovery.threads.per.data.dir", POSITIVE),
            ("socket.send.buffer.bytes", INT),
            ("socket.receive.buffer.bytes", INT),
            ("socket.request.max.bytes", POSITIVE),
            ("log.retention.hours", INT),
            ("log.retention.bytes", INT),
            ("log.segment.bytes", POSITIVE),
            ("log.retention.check.interval.ms", POSITIVE),
        )
    ),
)

# Read by producers and consumers alike.
_CLIENT = (
    _shared("bootstrap.servers", TEXT, CLIENTS),
    _shared("client.id", TEXT, CLIENTS),
    _shared("security.protocol", TEXT, CLIENTS),
    Setting("sasl.mechanism", TEXT, {J: ("sasl.mechanism",), L: ("sasl.mechanisms", "sasl.mechanism")}, {}),
    _shared("sasl.jaas.config", TEXT, (J,)),
    _shared("sasl.username", TEXT, (L,)),
    _shared("sasl.password", TEXT, (L,)),
    _shared("ssl.truststore.location", TEXT, (J,)),
    _shared("ssl.ca.location", TEXT, (L,)),
    _shared("retry.backoff.ms", COUNT, CLIENTS),
    # librdkafka's network timeout; with a transactional.id it must stay within
    # transaction.timeout.ms + 100 (rdkafka_conf.c).
    _shared("socket.timeout.ms", POSITIVE, (L,), {L: 60_000}),
)

_PRODUCER = (
    *_CLIENT,
    _shared("enable.idempotence", BOOL, CLIENTS, {J: True, L: False}),
    Setting("acks", _acks, {J: ("acks",), L: ("request.required.acks", "acks")}, {J: ACKS_ALL, L: ACKS_ALL}),
    Setting(
        "retries", COUNT, {J: ("retries",), L: ("message.send.max.retries", "retries")}, {J: 2**31 - 1, L: 2**31 - 1}
    ),
    Setting(
        "max.in.flight.requests.per.connection",
        POSITIVE,
        {J: ("max.in.flight.requests.per.connection",), L: ("max.in.flight.requests.per.connection", "max.in.flight")},
        {J: 5, L: 1_000_000},
    ),
    Setting(
        "delivery.timeout.ms",
        COUNT,
        {J: ("delivery.timeout.ms",), L: ("message.timeout.ms", "delivery.timeout.ms")},
        {J: 120_000, L: 300_000},
    ),
    # Java: the client-side timeout of any request. librdkafka: the produce request's ack
    # timeout, enforced by the broker (its client-side one is socket.timeout.ms).
    _shared("request.timeout.ms", POSITIVE, CLIENTS, {J: 30_000, L: 30_000}),
    Setting("linger.ms", _milliseconds, {J: ("linger.ms",), L: ("queue.buffering.max.ms", "linger.ms")}, {J: 5, L: 5}),
    _shared("transactional.id", _non_empty, CLIENTS),
    _shared("transaction.timeout.ms", POSITIVE, CLIENTS, {J: 60_000, L: 60_000}),
    Setting("compression.type", TEXT, {J: ("compression.type",), L: ("compression.codec", "compression.type")}, {}),
    _shared("batch.size", COUNT, CLIENTS),
    _shared("key.serializer", TEXT, (J,)),
    _shared("value.serializer", TEXT, (J,)),
    _shared("max.block.ms", COUNT, (J,)),
    _shared("buffer.memory", COUNT, (J,)),
    _shared("partitioner.class", TEXT, (J,)),
    _shared("partitioner", TEXT, (L,)),
    _shared("queue.buffering.max.messages", COUNT, (L,)),
    _shared("queue.buffering.max.kbytes", POSITIVE, (L,)),
    _shared("enable.gapless.guarantee", BOOL, (L,)),
)

_CONSUMER = (
    *_CLIENT,
    _shared("group.id", TEXT, CLIENTS),
    _shared("group.instance.id", TEXT, CLIENTS),
    _shared("group.protocol", TEXT, CLIENTS),
    _shared(
        "isolation.level",
        _choice("read_committed", "read_uncommitted"),
        CLIENTS,
        {J: "read_uncommitted", L: "read_committed"},
    ),
    _shared("enable.auto.commit", BOOL, CLIENTS, {J: True, L: True}),
    _shared("auto.commit.interval.ms", COUNT, CLIENTS),
    _shared("auto.offset.reset", TEXT, CLIENTS),
    _shared("enable.auto.offset.store", BOOL, (L,)),
    _shared("session.timeout.ms", POSITIVE, CLIENTS),
    _shared("heartbeat.interval.ms", POSITIVE, CLIENTS),
    _shared("max.poll.interval.ms", POSITIVE, CLIENTS),
    _shared("partition.assignment.strategy", TEXT, CLIENTS),
    _shared("fetch.min.bytes", COUNT, CLIENTS),
    _shared("fetch.max.bytes", COUNT, CLIENTS),
    _shared("fetch.max.wait.ms", COUNT, (J,)),
    _shared("fetch.wait.max.ms", COUNT, (L,)),
    _shared("max.poll.records", POSITIVE, (J,)),
    # librdkafka's request.timeout.ms is a producer property its consumer ignores.
    _shared("request.timeout.ms", COUNT, (J,)),
    _shared("key.deserializer", TEXT, (J,)),
    _shared("value.deserializer", TEXT, (J,)),
)

CATALOGUE: dict[Kind, tuple[Setting, ...]] = {Kind.BROKER: _BROKER, Kind.PRODUCER: _PRODUCER, Kind.CONSUMER: _CONSUMER}


def _index(settings: tuple[Setting, ...]) -> dict[str, tuple[Setting, tuple[Component, ...]]]:
    """Name -> (its setting, who reads it under that name)."""
    index: dict[str, tuple[Setting, tuple[Component, ...]]] = {}
    for s in settings:
        for reader, names in s.names.items():
            for name in names:
                known, readers = index.get(name, (s, ()))
                if known is not s:
                    raise ValueError(f"catalogue: {name!r} names both {known.key!r} and {s.key!r}")
                index[name] = (s, (*readers, reader))
    return index


_NAMES = {kind: _index(settings) for kind, settings in CATALOGUE.items()}
_SETTINGS = {kind: {s.key: s for s in settings} for kind, settings in CATALOGUE.items()}


def setting(kind: Kind, key: str) -> Setting:
    return _SETTINGS[kind][key]


def kinds_knowing(name: str) -> list[Kind]:
    return [kind for kind in Kind if name in _NAMES[kind]]


def close_name(name: str, kind: Kind) -> str | None:
    """The catalogue name of this kind that ``name`` most likely misspells, if any."""
    names = list(_NAMES[kind])
    by_case = [n for n in names if n.lower() == name.lower()]
    if by_case:
        return by_case[0]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.8)
    return close[0] if close else None


@dataclass(frozen=True)
class Entry:
    name: str  # as written
    raw: str
    line: int
    setting: Setting | None  # None: a name this kind's catalogue does not know
    readers: tuple[Component, ...]  # who reads this name; empty when unknown
    value: Value | None  # typed; None when unknown


@dataclass(frozen=True)
class ConfigFile:
    kind: Kind
    path: Path
    entries: tuple[Entry, ...]
    # Who is assumed to read the file: the broker, or the clients every known name in it
    # fits (a file using message.timeout.ms is a librdkafka one), unless --client says.
    readers: tuple[Component, ...]

    def entry(self, key: str, reader: Component) -> Entry | None:
        """The entry ``reader`` takes for ``key``: the last one set under a name it reads."""
        found = [e for e in self.entries if e.setting and e.setting.key == key and reader in e.readers]
        return found[-1] if found else None

    def only(self) -> Component | None:
        """The one client whose names the file uses, whatever --client says (None: both read
        every name it knows)."""
        fits = _fits(self.entries)
        return fits.pop() if len(fits) == 1 else None

    def value(self, key: str, reader: Component) -> Value | None:
        """What ``reader`` uses for ``key``: the file's value, else its default (None: neither)."""
        e = self.entry(key, reader)
        return e.value if e else setting(self.kind, key).default(reader)


def load(path: Path, kind: Kind, client: Component | None = None) -> ConfigFile:
    """Parse and type-check ``path`` as a ``kind`` file; ``client`` pins who reads it."""
    entries = tuple(_entry(p, kind, path) for p in properties.load(path).properties)
    if kind is Kind.BROKER:
        return ConfigFile(kind, path, entries, (B,))
    # Names that no single client reads together: check against both.
    fits = _fits(entries)
    readers = (client,) if client else tuple(c for c in CLIENTS if c in fits) or CLIENTS
    return ConfigFile(kind, path, entries, readers)


def _fits(entries: tuple[Entry, ...]) -> set[Component]:
    """The clients that read every known name of ``entries``."""
    fits = set(CLIENTS)
    for e in entries:
        if e.readers:
            fits &= set(e.readers)
    return fits


def _entry(p: properties.Property, kind: Kind, path: Path) -> Entry:
    if p.key not in _NAMES[kind]:
        return Entry(p.key, p.value, p.line, None, (), None)
    s, readers = _NAMES[kind][p.key]
    try:
        # Kafka's ConfigDef trims typed values; Properties keeps trailing blanks.
        value = s.parse(p.value.strip())
    except ValueError as exc:
        raise HarnessError(f"{path}:{p.line}: {p.key}={p.value!r} is not valid: {exc}; fix the value") from None
    return Entry(p.key, p.value, p.line, s, readers, value)
