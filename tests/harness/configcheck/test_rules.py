"""Static rules: each fires on a minimal bad input, none on the safe configs, and each
finding says which client it concerns."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.configcheck.rulebook import Configs, RuleFinding, Severity
from harness.configcheck.rules import RULES, check_static
from harness.kafkaconfig import catalogue
from harness.kafkaconfig.catalogue import Component, Kind
from harness.settings import DEFAULT_BROKER_SETTINGS

J, L, B = Component.JAVA, Component.LIBRDKAFKA, Component.BROKER
EXAMPLES = Path(__file__).parents[3] / "examples" / "configs"
SCENARIO_IDS = {f"A{i}" for i in range(1, 9)} | {f"B{i}" for i in range(1, 11)}  # the A and B pairs of scenarios/


def check(
    tmp_path: Path,
    *,
    broker: str | None = None,
    producer: str | None = None,
    consumer: str | None = None,
    transactional: bool = False,
    client: Component | None = None,
    brokers: int = 3,
) -> list[RuleFinding]:
    files = {}
    for kind, text in ((Kind.BROKER, broker), (Kind.PRODUCER, producer), (Kind.CONSUMER, consumer)):
        if text is not None:
            path = tmp_path / f"{kind}.properties"
            path.write_text(text + "\n")
            files[kind] = catalogue.load(path, kind, client)
    return check_static(Configs(files, brokers, transactional))[0]


def fired(findings: list[RuleFinding], rule: str) -> list[RuleFinding]:
    return [f for f in findings if f.rule == rule]


# The smallest input that trips each rule.
TRIPS: dict[str, dict[str, Any]] = {
    "broker.unclean-election": {"broker": "unclean.leader.election.enable=true"},
    "broker.min-isr-below-2": {"broker": "default.replication.factor=3"},  # min.insync.replicas defaults to 1
    "broker.min-isr-equals-rf": {"broker": "default.replication.factor=3\nmin.insync.replicas=3"},
    "broker.min-isr-above-rf": {"broker": "transaction.state.log.min.isr=4"},  # its RF defaults to 3
    "broker.rf-above-brokers": {"broker": "offsets.topic.replication.factor=3", "brokers": 2},
    "broker.rf-single-copy": {"broker": "offsets.topic.replication.factor=1"},
    "producer.idempotence-disabled": {"producer": "enable.idempotence=false"},
    "producer.idempotence-off-by-default": {"producer": "message.timeout.ms=60000"},  # a librdkafka file
    "producer.acks-not-all": {"producer": "acks=1"},
    "producer.retries-zero": {"producer": "retries=0"},
    "producer.idempotence-conflict": {"producer": "enable.idempotence=true\nacks=0"},
    "producer.timeout-conflict": {"producer": "delivery.timeout.ms=1000"},
    "producer.transaction-timeout-above-broker-max": {
        "broker": "transaction.max.timeout.ms=30000",
        "producer": "transactional.id=app-0",
    },
    "producer.no-transactional-id": {"producer": "acks=all", "transactional": True},
    "consumer.isolation-level-unset": {"consumer": "group.id=g"},
    "consumer.reads-uncommitted": {"consumer": "isolation.level=read_uncommitted", "transactional": True},
    "consumer.auto-commit-in-transactions": {"consumer": "isolation.level=read_committed", "transactional": True},
    "consumer.read-committed-without-transactions": {
        "producer": "acks=all",
        "consumer": "isolation.level=read_committed",
    },
    "unknown-property": {"producer": "enable.idempotance=true"},
    "unchecked-property": {"producer": "frobnicate=1"},
    "property-not-for-client": {"producer": "key.serializer=x", "client": L},
    "duplicate-property": {"producer": "acks=all\nacks=all"},
}


def test_every_rule_has_a_tripping_input() -> None:
    assert sorted(TRIPS) == sorted(r.id for r in RULES)


@pytest.mark.parametrize("rule_id", sorted(TRIPS))
def test_each_rule_fires_on_its_minimal_input(tmp_path: Path, rule_id: str) -> None:
    rule = next(r for r in RULES if r.id == rule_id)
    hits = fired(check(tmp_path, **TRIPS[rule_id]), rule_id)
    assert hits, rule_id
    assert all(f.severity is rule.severity and f.scenarios == rule.scenarios for f in hits)
    assert all(f.what and f.fix and f.applies_to for f in hits)


def test_rule_metadata() -> None:
    assert len({r.id for r in RULES}) == len(RULES)
    for r in RULES:
        assert set(r.scenarios) <= SCENARIO_IDS, r.id
        assert re.fullmatch(r"[A-Z][^\n]+\.", r.reason), f"{r.id}: the reason is one sentence"
        assert isinstance(r.severity, Severity)


def safe(name: str) -> str:
    return (EXAMPLES / "safe" / name).read_text()


@pytest.mark.parametrize("client", [None, J, L])
@pytest.mark.parametrize("transactional", [False, True])
def test_the_safe_examples_have_no_findings(tmp_path: Path, client: Component | None, transactional: bool) -> None:
    findings = check(
        tmp_path,
        broker=safe("server.properties"),
        producer=safe("producer.properties"),
        consumer=safe("consumer.properties"),
        transactional=transactional,
        client=client,
    )
    assert findings == []


def test_the_harness_broker_defaults_are_safe(tmp_path: Path) -> None:
    broker = "\n".join(f"{k}={v}" for k, v in DEFAULT_BROKER_SETTINGS.items())
    assert check(tmp_path, broker=broker) == []


def test_the_safe_broker_example_follows_the_harness_defaults() -> None:
    entries = {p.key: p.value for p in catalogue.properties.parse(safe("server.properties"), "safe")}
    assert {k: v for k, v in DEFAULT_BROKER_SETTINGS.items() if k in entries} == {
        k: entries[k] for k in DEFAULT_BROKER_SETTINGS if k in entries
    }


def test_rules_skip_without_their_files(tmp_path: Path) -> None:
    path = tmp_path / "producer.properties"
    path.write_text("transactional.id=t\n")
    files = {Kind.PRODUCER: catalogue.load(path, Kind.PRODUCER)}
    _, skipped = check_static(Configs(files, 3, False))
    ids = {r.id for r in skipped}
    assert "producer.transaction-timeout-above-broker-max" in ids and "broker.unclean-election" in ids
    assert "producer.acks-not-all" not in ids and "unknown-property" not in ids


# --- broker -----------------------------------------------------------------------------


def test_broker_findings_point_at_the_line_or_at_the_default(tmp_path: Path) -> None:
    findings = check(tmp_path, broker="# c\nunclean.leader.election.enable=true")
    (unclean,) = fired(findings, "broker.unclean-election")
    assert unclean.line == 2 and unclean.applies_to == (B,)
    (min_isr,) = fired(findings, "broker.min-isr-below-2")
    assert min_isr.line is None and "min.insync.replicas=1 (Kafka's default; not set)" in min_isr.what


def test_min_isr_against_replication_factor(tmp_path: Path) -> None:
    ok = check(tmp_path, broker="default.replication.factor=3\nmin.insync.replicas=2")
    assert not [f for f in ok if f.rule.startswith("broker.min-isr")]
    equal = check(tmp_path, broker="default.replication.factor=2\nmin.insync.replicas=2")
    assert [f.rule for f in equal if f.rule.startswith("broker.min-isr")] == ["broker.min-isr-equals-rf"]
    txn = check(tmp_path, broker="transaction.state.log.replication.factor=2")  # min ISR default 2
    (f,) = fired(txn, "broker.min-isr-equals-rf")
    assert "transaction.state.log.min.isr=2 (Kafka's default; not set)" in f.what


def test_replication_factors_against_the_broker_count(tmp_path: Path) -> None:
    broker = "default.replication.factor=5\nmin.insync.replicas=2\ntransaction.state.log.replication.factor=4"
    assert len(fired(check(tmp_path, broker=broker), "broker.rf-above-brokers")) == 2
    assert fired(check(tmp_path, broker=broker, brokers=5), "broker.rf-above-brokers") == []


# --- producer ---------------------------------------------------------------------------


def test_idempotence_off_by_default_depends_on_the_client(tmp_path: Path) -> None:
    neutral = fired(check(tmp_path, producer="acks=all"), "producer.idempotence-off-by-default")
    assert [(f.applies_to, "librdkafka's default is false" in f.what) for f in neutral] == [((L,), True)]
    java = fired(check(tmp_path, producer="acks=1", client=J), "producer.idempotence-off-by-default")
    assert [f.applies_to for f in java] == [(J,)] and "because of acks=1" in java[0].what
    transactional = check(tmp_path, producer="transactional.id=t", client=L)
    assert fired(transactional, "producer.idempotence-off-by-default") == []


@pytest.mark.parametrize(
    ("producer", "line", "applies_to"),
    [
        ("enable.idempotence=true\nacks=1", 2, (J, L)),
        ("transactional.id=t\nacks=1", 2, (J, L)),
        ("enable.idempotence=true\nretries=0", 2, (J, L)),
        ("enable.idempotence=true\nmax.in.flight.requests.per.connection=6", 2, (J, L)),
        ("enable.idempotence=true\nmax.in.flight=6", 2, (L,)),
        ("transactional.id=t\nenable.idempotence=false", 2, (J, L)),
        ("max.in.flight.requests.per.connection=6", 1, (J,)),  # Java's default idempotence, 4.0+
    ],
)
def test_idempotence_conflicts_say_which_client_refuses(
    tmp_path: Path, producer: str, line: int, applies_to: tuple[Component, ...]
) -> None:
    (f,) = fired(check(tmp_path, producer=producer), "producer.idempotence-conflict")
    assert (f.line, f.applies_to) == (line, applies_to)


def test_no_idempotence_conflict_without_idempotence(tmp_path: Path) -> None:
    producer = "enable.idempotence=false\nacks=1\nretries=0\nmax.in.flight.requests.per.connection=10"
    assert fired(check(tmp_path, producer=producer), "producer.idempotence-conflict") == []
    assert fired(check(tmp_path, producer="max.in.flight=10"), "producer.idempotence-conflict") == []


@pytest.mark.parametrize(
    ("producer", "applies_to", "says"),
    [
        # Java: delivery.timeout.ms < linger.ms + request.timeout.ms (5 + 30000 by default).
        ("delivery.timeout.ms=30004", (J,), "the Java client refuses"),
        ("delivery.timeout.ms=20000\nlinger.ms=0\nrequest.timeout.ms=10000", (), ""),
        # librdkafka, transactional: the message timeout must not exceed the transaction's.
        ("transactional.id=t\ndelivery.timeout.ms=120000", (L,), "above transaction.timeout.ms=60000"),
        ("transactional.id=t\nmessage.timeout.ms=70000", (L,), "librdkafka refuses"),
        ("transactional.id=t\ntransaction.timeout.ms=120000\ndelivery.timeout.ms=120000", (), ""),
        ("transactional.id=t\nsocket.timeout.ms=60101", (L,), "transaction.timeout.ms + 100"),
        ("transactional.id=t\nsocket.timeout.ms=60100", (), ""),
        # librdkafka: an explicit linger.ms must stay below the message timeout.
        ("queue.buffering.max.ms=300000", (L,), "not below the message timeout (300000 ms)"),
        ("transactional.id=t\nlinger.ms=60000", (L,), "(60000 ms)"),
        ("message.timeout.ms=0\nlinger.ms=900000", (), ""),  # 0: no message timeout
    ],
)
def test_timeout_conflicts_per_client(
    tmp_path: Path, producer: str, applies_to: tuple[Component, ...], says: str
) -> None:
    found = fired(check(tmp_path, producer=producer), "producer.timeout-conflict")
    assert [f.applies_to for f in found] == ([applies_to] if applies_to else [])
    assert all(says in f.what for f in found)


RULE_B7 = "producer.transaction-timeout-above-broker-max"


def test_transaction_timeout_against_the_broker_maximum(tmp_path: Path) -> None:
    producer = "transactional.id=t\ntransaction.timeout.ms=600000"
    assert fired(check(tmp_path, broker="min.insync.replicas=2", producer=producer), RULE_B7) == []  # 900000
    (f,) = fired(check(tmp_path, broker="transaction.max.timeout.ms=300000", producer=producer), RULE_B7)
    assert f.line == 2 and f.applies_to == (J, L)
    assert "transaction.timeout.ms=600000 is above the broker's transaction.max.timeout.ms=300000" in f.what
    (f,) = fired(check(tmp_path, broker="transaction.max.timeout.ms=30000", producer="transactional.id=t"), RULE_B7)
    assert f.line is None and "transaction.timeout.ms=60000 (both clients' default; not set)" in f.what
    plain = check(tmp_path, broker="transaction.max.timeout.ms=1000", producer="acks=all")
    assert fired(plain, RULE_B7) == []  # not transactional


# --- consumer ---------------------------------------------------------------------------


def test_isolation_level_unset_states_both_defaults(tmp_path: Path) -> None:
    (f,) = fired(check(tmp_path, consumer="group.id=g"), "consumer.isolation-level-unset")
    assert "read_uncommitted" in f.what and "read_committed" in f.what and f.applies_to == (J, L)


def test_an_unset_isolation_level_reads_uncommitted_only_in_java(tmp_path: Path) -> None:
    (f,) = fired(check(tmp_path, consumer="group.id=g", transactional=True), "consumer.reads-uncommitted")
    assert f.applies_to == (J,) and f.line is None
    assert (
        fired(check(tmp_path, consumer="group.id=g", transactional=True, client=L), "consumer.reads-uncommitted") == []
    )


def test_auto_commit_default_is_one_finding_for_both_clients(tmp_path: Path) -> None:
    findings = check(tmp_path, producer="transactional.id=t", consumer="isolation.level=read_committed")
    (f,) = fired(findings, "consumer.auto-commit-in-transactions")
    assert f.applies_to == (J, L) and "both clients' default" in f.what
    off = check(
        tmp_path, producer="transactional.id=t", consumer="isolation.level=read_committed\nenable.auto.commit=false"
    )
    assert fired(off, "consumer.auto-commit-in-transactions") == []


def test_consumer_rules_wait_for_a_transactional_pipeline(tmp_path: Path) -> None:
    findings = check(tmp_path, producer="acks=all", consumer="isolation.level=read_uncommitted")
    assert not fired(findings, "consumer.reads-uncommitted")
    assert not fired(findings, "consumer.auto-commit-in-transactions")


# --- every file -------------------------------------------------------------------------


def test_did_you_mean(tmp_path: Path) -> None:
    (f,) = fired(
        check(tmp_path, consumer="isolation.level=read_committed\nenable.auto.comit=false"), "unknown-property"
    )
    assert "did you mean 'enable.auto.commit'?" in f.what and f.line == 2


def test_a_property_in_the_wrong_file(tmp_path: Path) -> None:
    (f,) = fired(check(tmp_path, producer="isolation.level=read_committed"), "unknown-property")
    assert "is a consumer property, not a producer one" in f.what and f.fix == "move it to the consumer file"


def test_names_for_the_other_client(tmp_path: Path) -> None:
    (java,) = fired(check(tmp_path, producer="message.timeout.ms=60000", client=J), "property-not-for-client")
    assert java.applies_to == (J,) and "ignores it" in java.what and "delivery.timeout.ms" in java.fix
    (lib,) = fired(check(tmp_path, producer="key.serializer=x", client=L), "property-not-for-client")
    assert lib.applies_to == (L,) and "librdkafka refuses to start" in lib.what
    mixed = check(tmp_path, producer="key.serializer=x\nmessage.timeout.ms=60000")
    assert {f.applies_to for f in fired(mixed, "property-not-for-client")} == {(J,), (L,)}


def test_duplicates_count_aliases_per_client(tmp_path: Path) -> None:
    (f,) = fired(check(tmp_path, producer="linger.ms=5\nqueue.buffering.max.ms=10"), "duplicate-property")
    assert f.applies_to == (L,) and "queue.buffering.max.ms=10, wins" in f.what and f.line == 2
