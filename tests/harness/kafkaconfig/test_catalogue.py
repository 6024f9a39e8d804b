"""The catalogue: which client reads which name, defaults, value types, did-you-mean."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.kafkaconfig import catalogue as cat
from harness.kafkaconfig.catalogue import ACKS_ALL, Component, Kind, Setting

J, L, B = Component.JAVA, Component.LIBRDKAFKA, Component.BROKER


def write(tmp_path: Path, text: str, name: str = "c.properties") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def resolved(tmp_path: Path, kind: Kind, text: str, client: Component | None = None) -> cat.ConfigFile:
    return cat.load(write(tmp_path, text), kind, client)


@pytest.mark.parametrize(
    ("kind", "line", "key", "readers"),
    [
        (Kind.PRODUCER, "max.in.flight.requests.per.connection=5", "max.in.flight.requests.per.connection", (J, L)),
        (Kind.PRODUCER, "max.in.flight=5", "max.in.flight.requests.per.connection", (L,)),
        (Kind.PRODUCER, "delivery.timeout.ms=1", "delivery.timeout.ms", (J, L)),
        (Kind.PRODUCER, "message.timeout.ms=1", "delivery.timeout.ms", (L,)),
        (Kind.PRODUCER, "retries=1", "retries", (J, L)),
        (Kind.PRODUCER, "message.send.max.retries=1", "retries", (L,)),
        (Kind.PRODUCER, "acks=all", "acks", (J, L)),
        (Kind.PRODUCER, "request.required.acks=all", "acks", (L,)),
        (Kind.PRODUCER, "request.timeout.ms=1", "request.timeout.ms", (J, L)),
        (Kind.PRODUCER, "socket.timeout.ms=1", "socket.timeout.ms", (L,)),
        (Kind.PRODUCER, "linger.ms=1", "linger.ms", (J, L)),
        (Kind.PRODUCER, "queue.buffering.max.ms=1", "linger.ms", (L,)),
        (Kind.PRODUCER, "enable.idempotence=true", "enable.idempotence", (J, L)),
        (Kind.PRODUCER, "transactional.id=t", "transactional.id", (J, L)),
        (Kind.PRODUCER, "transaction.timeout.ms=1", "transaction.timeout.ms", (J, L)),
        (Kind.PRODUCER, "key.serializer=x", "key.serializer", (J,)),
        (Kind.CONSUMER, "isolation.level=read_committed", "isolation.level", (J, L)),
        (Kind.CONSUMER, "enable.auto.commit=false", "enable.auto.commit", (J, L)),
        (Kind.CONSUMER, "request.timeout.ms=1", "request.timeout.ms", (J,)),
        (Kind.BROKER, "min.insync.replicas=2", "min.insync.replicas", (B,)),
    ],
)
def test_each_name_says_which_clients_read_it(
    tmp_path: Path, kind: Kind, line: str, key: str, readers: tuple[Component, ...]
) -> None:
    (entry,) = resolved(tmp_path, kind, line).entries
    assert entry.setting is not None and entry.setting.key == key
    assert entry.readers == readers


@pytest.mark.parametrize(
    ("kind", "key", "java", "librdkafka"),
    [
        (Kind.PRODUCER, "enable.idempotence", True, False),
        (Kind.PRODUCER, "acks", ACKS_ALL, ACKS_ALL),
        (Kind.PRODUCER, "max.in.flight.requests.per.connection", 5, 1_000_000),
        (Kind.PRODUCER, "delivery.timeout.ms", 120_000, 300_000),
        (Kind.PRODUCER, "transaction.timeout.ms", 60_000, 60_000),
        (Kind.CONSUMER, "isolation.level", "read_uncommitted", "read_committed"),
        (Kind.CONSUMER, "enable.auto.commit", True, True),
    ],
)
def test_defaults_per_client(kind: Kind, key: str, java: object, librdkafka: object) -> None:
    s = cat.setting(kind, key)
    assert (s.default(J), s.default(L)) == (java, librdkafka)


def test_broker_defaults_the_rules_rely_on() -> None:
    defaults = {s.key: s.default(B) for s in cat.CATALOGUE[Kind.BROKER] if s.default(B) is not None}
    assert defaults == {
        "unclean.leader.election.enable": False,
        "min.insync.replicas": 1,
        "default.replication.factor": 1,
        "offsets.topic.replication.factor": 3,
        "transaction.state.log.replication.factor": 3,
        "transaction.state.log.min.isr": 2,
        "transaction.max.timeout.ms": 900_000,
    }


@pytest.mark.parametrize(
    ("text", "readers"),
    [
        ("acks=all\nenable.idempotence=true\n", (J, L)),
        ("acks=all\nmessage.timeout.ms=60000\n", (L,)),
        ("acks=all\nkey.serializer=x\n", (J,)),
        ("key.serializer=x\nmessage.timeout.ms=60000\n", (J, L)),  # no client reads both: check both
        ("some.unknown.name=1\n", (J, L)),
    ],
)
def test_readers_are_inferred_from_the_names_used(tmp_path: Path, text: str, readers: tuple[Component, ...]) -> None:
    assert resolved(tmp_path, Kind.PRODUCER, text).readers == readers


def test_client_option_pins_the_reader(tmp_path: Path) -> None:
    assert resolved(tmp_path, Kind.PRODUCER, "message.timeout.ms=1\n", J).readers == (J,)
    assert resolved(tmp_path, Kind.BROKER, "min.insync.replicas=2\n").readers == (B,)


def test_value_takes_the_readers_name_last_one_winning_else_its_default(tmp_path: Path) -> None:
    cfg = resolved(tmp_path, Kind.PRODUCER, "linger.ms=10\nqueue.buffering.max.ms=20\n")
    assert cfg.value("linger.ms", L) == 20 and cfg.value("linger.ms", J) == 10
    cfg = resolved(tmp_path, Kind.PRODUCER, "message.timeout.ms=1000\n")
    assert cfg.value("delivery.timeout.ms", L) == 1000
    assert cfg.value("delivery.timeout.ms", J) == 120_000  # Java does not read message.timeout.ms
    assert cfg.entry("delivery.timeout.ms", J) is None


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        (Kind.PRODUCER, "acks=all", ACKS_ALL),
        (Kind.PRODUCER, "acks=-1", ACKS_ALL),
        (Kind.PRODUCER, "acks=ALL", ACKS_ALL),
        (Kind.PRODUCER, "acks=0", 0),
        (Kind.PRODUCER, "enable.idempotence=TRUE", True),
        (Kind.PRODUCER, "enable.idempotence=false  ", False),  # ConfigDef trims
        (Kind.PRODUCER, "linger.ms=0.5", 0.5),  # librdkafka reads it as a float
        (Kind.BROKER, "min.insync.replicas=2", 2),
        (Kind.CONSUMER, "isolation.level=read_committed", "read_committed"),
    ],
)
def test_values_are_typed(tmp_path: Path, kind: Kind, text: str, expected: object) -> None:
    (entry,) = resolved(tmp_path, kind, text).entries
    assert entry.value == expected and type(entry.value) is type(expected)


@pytest.mark.parametrize(
    ("kind", "text", "expected"),
    [
        (Kind.PRODUCER, "acks=maybe", "acks='maybe' is not valid: expected all, -1, 0 or 1"),
        (Kind.PRODUCER, "acks=2", "expected all, -1, 0 or 1"),
        (Kind.PRODUCER, "enable.idempotence=perhaps", "expected true or false"),
        (Kind.PRODUCER, "enable.idempotence=1", "expected true or false"),
        (
            Kind.BROKER,
            "min.insync.replicas=two",
            "min.insync.replicas='two' is not valid: expected a whole number >= 1",
        ),
        (Kind.BROKER, "min.insync.replicas=0", "expected a whole number >= 1"),
        (Kind.PRODUCER, "retries=1_000", "expected a whole number >= 0"),
        (Kind.PRODUCER, "transactional.id=", "expected a non-empty value"),
        (Kind.CONSUMER, "isolation.level=READ_COMMITTED", "expected read_committed or read_uncommitted"),
    ],
)
def test_a_wrong_type_is_one_line_with_file_and_line(tmp_path: Path, kind: Kind, text: str, expected: str) -> None:
    path = write(tmp_path, f"# comment\n{text}\n")
    with pytest.raises(HarnessError) as err:
        cat.load(path, kind)
    message = str(err.value)
    assert message.startswith(f"{path}:2: ") and expected in message and "\n" not in message


@pytest.mark.parametrize(
    ("name", "kind", "suggestion"),
    [
        ("enable.idempotance", Kind.PRODUCER, "enable.idempotence"),
        ("Acks", Kind.PRODUCER, "acks"),
        ("isolation.levle", Kind.CONSUMER, "isolation.level"),
        ("min.insync.replica", Kind.BROKER, "min.insync.replicas"),
        ("transactionalid", Kind.PRODUCER, "transactional.id"),
        ("frobnicate", Kind.PRODUCER, None),
    ],
)
def test_close_name(name: str, kind: Kind, suggestion: str | None) -> None:
    assert cat.close_name(name, kind) == suggestion


def test_kinds_knowing_a_name() -> None:
    assert cat.kinds_knowing("isolation.level") == [Kind.CONSUMER]
    assert cat.kinds_knowing("bootstrap.servers") == [Kind.PRODUCER, Kind.CONSUMER]
    assert cat.kinds_knowing("nothing.at.all") == []


def test_unknown_names_are_kept_untyped(tmp_path: Path) -> None:
    (entry,) = resolved(tmp_path, Kind.PRODUCER, "compresion.type=lz4\n").entries
    assert (entry.setting, entry.readers, entry.value, entry.raw) == (None, (), None, "lz4")


def test_a_name_may_not_stand_for_two_settings() -> None:
    a = Setting("a", cat.TEXT, {J: ("x",)}, {})
    b = Setting("b", cat.TEXT, {L: ("x",)}, {})
    with pytest.raises(ValueError, match="'x' names both 'a' and 'b'"):
        cat._index((a, b))
