"""Static rules over a user's broker, producer and consumer configs.

Each rule has an id, a severity, the scenarios (``scenarios/``, docs/scenarios.md) whose failure
it predicts, the files it needs, and a check whose docstring is the rule's reason in one
sentence. A check reports ``Hit``s; ``check_static`` stamps them with the rule into
``Finding``s, the unit of the report (the dynamic run on the cluster will report the same
way). Severities: **error** — the client refuses to start, or a guarantee is lost under a
fault the harness reproduces; **warning** — a guarantee hangs on a default, on a name
that does not do what it seems, or on availability; **info** — worth knowing.

A pipeline is *transactional* when ``--transactional`` says so or the producer has a
``transactional.id``; rules about consumer offsets and isolation apply only then (a
consumer's ``read_committed`` alone does not make it so: it may read someone else's
topic).

What each client does with a setting comes from ``harness.kafkaconfig.catalogue`` (names,
defaults) and from the client sources cited at each rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from harness.kafkaconfig.catalogue import (
    ACKS_ALL,
    Component,
    ConfigFile,
    Entry,
    Kind,
    Value,
    close_name,
    kinds_knowing,
)
from harness.settings import DEFAULT_BROKER_SETTINGS

B, J, L = Component.BROKER, Component.JAVA, Component.LIBRDKAFKA
BROKER, PRODUCER, CONSUMER = Kind.BROKER, Kind.PRODUCER, Kind.CONSUMER

# Idempotence keeps the last 5 batches per partition; both clients refuse more in flight
# (Java ProducerConfig, librdkafka RD_KAFKA_IDEMP_MAX_INFLIGHT).
MAX_IN_FLIGHT_IDEMPOTENT = 5


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: Severity
    scenarios: tuple[str, ...]
    file: str  # a file's path; for a finding on versions, where they came from ("--kafka-version 3.5.2")
    line: int | None  # None: the setting is not in the file (a default applies)
    what: str  # what is wrong and why, one sentence
    fix: str
    applies_to: tuple[Component, ...]
    on_versions: bool = False  # about the releases given, not a file's setting

    @property
    def where(self) -> str:
        """``file:line``; the file and "(not set)" when a default is the problem; where versions came from."""
        if self.line:
            return f"{self.file}:{self.line}"
        return self.file if self.on_versions else f"{self.file} (not set)"

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": str(self.severity),
            "scenarios": list(self.scenarios),
            "file": self.file,
            "line": self.line,
            "what": self.what,
            "fix": self.fix,
            "applies_to": [str(c) for c in self.applies_to],
        }


@dataclass(frozen=True)
class Hit:
    file: ConfigFile
    line: int | None
    what: str
    fix: str
    applies_to: tuple[Component, ...]


@dataclass(frozen=True)
class Configs:
    files: Mapping[Kind, ConfigFile]
    brokers: int  # brokers in the cluster the configs are for
    transactional_flag: bool  # --transactional

    @property
    def transactional(self) -> bool:
        producer = self.files.get(PRODUCER)
        return self.transactional_flag or bool(producer and _transactional_id(producer))


Check = Callable[[Configs], Iterable[Hit]]


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    scenarios: tuple[str, ...]
    needs: tuple[Kind, ...]  # the files the check reads; without one the rule is skipped
    check: Check

    @property
    def reason(self) -> str:
        return (self.check.__doc__ or "").strip()


RULES: list[Rule] = []


def rule(
    id: str, severity: Severity, scenarios: tuple[str, ...] = (), needs: tuple[Kind, ...] = ()
) -> Callable[[Check], Check]:
    def register(check: Check) -> Check:
        RULES.append(Rule(id, severity, scenarios, needs, check))
        return check

    return register


def check_static(configs: Configs) -> tuple[list[Finding], list[Rule]]:
    """Every finding of every rule whose files were given, and the rules skipped for lack of one."""
    findings: list[Finding] = []
    skipped: list[Rule] = []
    for r in RULES:
        if not all(kind in configs.files for kind in r.needs):
            skipped.append(r)
            continue
        for hit in _merged(r.check(configs)):
            findings.append(
                Finding(r.id, r.severity, r.scenarios, str(hit.file.path), hit.line, hit.what, hit.fix, hit.applies_to)
            )
    return findings, skipped


def _merged(hits: Iterable[Hit]) -> list[Hit]:
    """One hit per (file, line, what, fix), applying to every client that produced it:
    checks run per client, and both clients usually agree."""
    merged: dict[tuple[str, int | None, str, str], Hit] = {}
    for h in hits:
        key = (str(h.file.path), h.line, h.what, h.fix)
        seen = merged.get(key)
        applies = (*seen.applies_to, *h.applies_to) if seen else h.applies_to
        merged[key] = Hit(h.file, h.line, h.what, h.fix, tuple(dict.fromkeys(applies)))
    return list(merged.values())


# --- helpers ----------------------------------------------------------------------------


def _fmt(value: Value | None) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _num(value: Value | None) -> float:
    # Only numeric settings get here, and each one a rule reads has a default.
    return float(value) if isinstance(value, int | float) else 0.0


_WHOSE = {B: "Kafka's", J: "the Java client's", L: "librdkafka's"}


def _shown(cfg: ConfigFile, key: str, reader: Component) -> str:
    """``name=value`` as the file sets it, or the default and whose it is."""
    e = cfg.entry(key, reader)
    if e:
        return f"{e.name}={e.raw.strip()}"
    value = "all" if key == "acks" and cfg.value(key, reader) == ACKS_ALL else _fmt(cfg.value(key, reader))
    # Where both clients default alike, one text for both lets their findings merge.
    shared = len({cfg.value(key, r) for r in cfg.readers}) == 1 < len(cfg.readers)
    whose = "both clients'" if shared else _WHOSE[reader]
    return f"{key}={value} ({whose} default; not set)"


def _line(cfg: ConfigFile, key: str, reader: Component) -> int | None:
    e = cfg.entry(key, reader)
    return e.line if e else None


def _transactional_id(producer: ConfigFile) -> Entry | None:
    return next((e for c in producer.readers if (e := producer.entry("transactional.id", c))), None)


# --- broker -----------------------------------------------------------------------------

# What each replication factor governs.
_REPLICATED = {
    "default.replication.factor": "topics created without an explicit replication factor",
    "offsets.topic.replication.factor": "__consumer_offsets (group offsets, transactional ones included)",
    "transaction.state.log.replication.factor": "__transaction_state (the transaction coordinators' log)",
}
# Each min-ISR setting, the replication factor of the topics it governs, and their writes.
_MIN_ISR = {
    "min.insync.replicas": ("default.replication.factor", "acks=all writes"),
    "transaction.state.log.min.isr": ("transaction.state.log.replication.factor", "transaction-log writes"),
}


@rule("broker.unclean-election", Severity.ERROR, ("A3",), (BROKER,))
def unclean_election(c: Configs) -> Iterator[Hit]:
    """An out-of-sync replica may become leader and silently drop acknowledged writes."""
    b = c.files[BROKER]
    if b.value("unclean.leader.election.enable", B) is True:
        yield Hit(
            b,
            _line(b, "unclean.leader.election.enable", B),
            "unclean.leader.election.enable=true lets a replica that missed writes become leader, "
            "silently dropping writes already acknowledged to acks=all producers.",
            "set unclean.leader.election.enable=false (Kafka's default)",
            (B,),
        )


@rule("broker.min-isr-below-2", Severity.ERROR, ("A3", "B6"), (BROKER,))
def min_isr_below_2(c: Configs) -> Iterator[Hit]:
    """With one in-sync copy required, a write is acknowledged by one broker and lost with it."""
    b = c.files[BROKER]
    for key, (_, writes) in _MIN_ISR.items():
        if _num(b.value(key, B)) < 2:
            yield Hit(
                b,
                _line(b, key, B),
                f"{_shown(b, key, B)}: {writes} are acknowledged as soon as one broker has them, "
                "and lost if it fails before a follower copies them.",
                f"set {key}={DEFAULT_BROKER_SETTINGS[key]} (with a replication factor of 3)",
                (B,),
            )


@rule("broker.min-isr-equals-rf", Severity.WARNING, ("A3", "B6"), (BROKER,))
def min_isr_equals_rf(c: Configs) -> Iterator[Hit]:
    """A min ISR equal to the replication factor makes one broker down block every write."""
    b = c.files[BROKER]
    for key, (rf_key, writes) in _MIN_ISR.items():
        if 2 <= _num(b.value(key, B)) == _num(b.value(rf_key, B)):
            yield Hit(
                b,
                _line(b, key, B),
                f"{_shown(b, key, B)} equals {_shown(b, rf_key, B)}: with one broker down, {writes} "
                "are refused (NotEnoughReplicas) until it is back.",
                f"keep {key} below {rf_key} (e.g. {DEFAULT_BROKER_SETTINGS[key]} with "
                f"{DEFAULT_BROKER_SETTINGS[rf_key]})",
                (B,),
            )


@rule("broker.min-isr-above-rf", Severity.ERROR, ("A3", "B6"), (BROKER,))
def min_isr_above_rf(c: Configs) -> Iterator[Hit]:
    """A min ISR above the replication factor can never be met, so every write is refused."""
    b = c.files[BROKER]
    for key, (rf_key, writes) in _MIN_ISR.items():
        if _num(b.value(key, B)) > _num(b.value(rf_key, B)):
            yield Hit(
                b,
                _line(b, key, B),
                f"{_shown(b, key, B)} exceeds {_shown(b, rf_key, B)}: {writes} can never gather "
                "enough in-sync copies and are all refused.",
                f"keep {key} below {rf_key} (e.g. {DEFAULT_BROKER_SETTINGS[key]} with "
                f"{DEFAULT_BROKER_SETTINGS[rf_key]})",
                (B,),
            )


@rule("broker.rf-above-brokers", Severity.ERROR, ("B6",), (BROKER,))
def rf_above_brokers(c: Configs) -> Iterator[Hit]:
    """A replication factor above the broker count cannot be placed, so those topics are never created."""
    b = c.files[BROKER]
    for key, governs in _REPLICATED.items():
        if _num(b.value(key, B)) > c.brokers:
            yield Hit(
                b,
                _line(b, key, B),
                f"{_shown(b, key, B)} needs more brokers than the {c.brokers} of this cluster: {governs} "
                "cannot be created until that many brokers are up.",
                f"set {key} to at most {c.brokers} (or run more brokers; see --brokers)",
                (B,),
            )


@rule("broker.rf-single-copy", Severity.WARNING, ("A3", "B6"), (BROKER,))
def rf_single_copy(c: Configs) -> Iterator[Hit]:
    """A replication factor of 1 keeps one copy: losing its broker loses the data."""
    b = c.files[BROKER]
    for key, governs in _REPLICATED.items():
        if _num(b.value(key, B)) == 1:
            yield Hit(
                b,
                _line(b, key, B),
                f"{_shown(b, key, B)}: {governs} keep a single copy, lost with its broker.",
                f"set {key}={DEFAULT_BROKER_SETTINGS[key]} on a cluster of 3 or more brokers",
                (B,),
            )


# --- producer ---------------------------------------------------------------------------


def _explicit(p: ConfigFile, key: str) -> Iterator[tuple[Entry, Component]]:
    """The entry each client of the file takes for ``key``, where the file sets it."""
    for reader in p.readers:
        e = p.entry(key, reader)
        if e:
            yield e, reader


@rule("producer.idempotence-disabled", Severity.ERROR, ("A1", "A2"), (PRODUCER,))
def idempotence_disabled(c: Configs) -> Iterator[Hit]:
    """Without idempotence a retried batch whose ack was lost is written twice, and retries reorder."""
    p = c.files[PRODUCER]
    for e, reader in _explicit(p, "enable.idempotence"):
        if e.value is False:
            yield Hit(
                p,
                e.line,
                "enable.idempotence=false: when an acknowledgement is lost and the producer retries, the "
                "broker writes the batch again (duplicates), and retried batches can land out of order.",
                "set enable.idempotence=true (with acks=all, retries > 0, max.in.flight.requests.per.connection <= 5)",
                (reader,),
            )


def why_idempotence_is_off(p: ConfigFile, reader: Component) -> str | None:
    """Why ``reader`` runs the producer without idempotence although the file does not
    set enable.idempotence; None when it sets it, or the client turns idempotence on."""
    if p.entry("enable.idempotence", reader):
        return None
    if reader is L:
        # rdkafka_conf.c: a transactional.id turns idempotence on unless explicitly off.
        return None if p.entry("transactional.id", L) else "librdkafka's default is false"
    # ProducerConfig: the Java default (true) is silently dropped when acks or retries
    # conflict with it and enable.idempotence was not set explicitly.
    for key, conflicts in (("acks", lambda v: v != ACKS_ALL), ("retries", lambda v: v == 0)):
        if conflicts(p.value(key, J)):
            return f"the Java client silently turns its default (true) off because of {_shown(p, key, J)}"
    return None


@rule("producer.idempotence-off-by-default", Severity.WARNING, ("A1", "A2"), (PRODUCER,))
def idempotence_off_by_default(c: Configs) -> Iterator[Hit]:
    """Left unset, idempotence is off in librdkafka, and in Java whenever acks or retries conflict."""
    p = c.files[PRODUCER]
    for reader in p.readers:
        why = why_idempotence_is_off(p, reader)
        if why:
            yield Hit(
                p,
                None,
                f"enable.idempotence is not set and {why}: a retry after a lost acknowledgement "
                "writes the batch twice.",
                "set enable.idempotence=true explicitly",
                (reader,),
            )


@rule("producer.acks-not-all", Severity.ERROR, ("A3",), (PRODUCER,))
def acks_not_all(c: Configs) -> Iterator[Hit]:
    """With acks below all, a write acknowledged by the leader alone is lost if the leader dies."""
    p = c.files[PRODUCER]
    for e, reader in _explicit(p, "acks"):
        if e.value != ACKS_ALL:
            how = (
                "the producer does not wait for any acknowledgement, so it never learns of a lost write"
                if e.value == 0
                else "the leader acknowledges before any follower has the write; if it dies then, "
                "the acknowledged write is lost"
            )
            yield Hit(p, e.line, f"{e.name}={e.raw.strip()}: {how}.", "set acks=all", (reader,))


@rule("producer.retries-zero", Severity.WARNING, ("A1",), (PRODUCER,))
def retries_zero(c: Configs) -> Iterator[Hit]:
    """With no retries a transient error fails the send, and an application resend duplicates it."""
    p = c.files[PRODUCER]
    for e, reader in _explicit(p, "retries"):
        if e.value == 0:
            yield Hit(
                p,
                e.line,
                f"{e.name}=0: a send that meets a transient error (leader change, timeout) fails instead of "
                "being retried; an application that resends it can write it twice.",
                "leave retries out (both clients default to 2147483647) and bound delivery with the delivery timeout",
                (reader,),
            )


@rule("producer.idempotence-conflict", Severity.ERROR, ("A8",), (PRODUCER,))
def idempotence_conflict(c: Configs) -> Iterator[Hit]:
    """Idempotence with settings it cannot honour: the client refuses to start."""
    # Java: ProducerConfig.postProcessAndValidateIdempotenceConfigs; librdkafka:
    # rd_kafka_conf_finalize / rd_kafka_topic_conf_finalize. Reproduced with kafka-clients
    # 4.3.1 and 3.9.0 and with librdkafka 2.16.0. Refusing more than 5 in flight under the
    # Java default idempotence is new in 4.0 (KAFKA-17927).
    p = c.files[PRODUCER]
    refused = "the client refuses to start"
    for reader in p.readers:
        explicit = p.entry("enable.idempotence", reader)
        txn = p.entry("transactional.id", reader)
        if txn and explicit and explicit.value is False:
            yield Hit(
                p,
                explicit.line,
                f"a transactional.id needs idempotence, but enable.idempotence=false: {refused}.",
                "remove enable.idempotence=false",
                (reader,),
            )
            continue
        requested = bool(explicit and explicit.value) or bool(txn)
        why = "enable.idempotence=true" if explicit and explicit.value else "a transactional.id"
        acks = p.entry("acks", reader)
        if requested and acks and acks.value != ACKS_ALL:
            yield Hit(p, acks.line, f"{acks.name}={acks.raw.strip()} with {why}: {refused}.", "set acks=all", (reader,))
        retries = p.entry("retries", reader)
        if requested and retries and retries.value == 0:
            yield Hit(
                p,
                retries.line,
                f"{retries.name}=0 with {why}: {refused}.",
                "leave retries out or set it above 0",
                (reader,),
            )
        in_flight = p.entry("max.in.flight.requests.per.connection", reader)
        if not in_flight or _num(in_flight.value) <= MAX_IN_FLIGHT_IDEMPOTENT:
            continue
        shown = f"{in_flight.name}={in_flight.raw.strip()}"
        fix = f"set {in_flight.name}={MAX_IN_FLIGHT_IDEMPOTENT} or less"
        if requested:
            yield Hit(p, in_flight.line, f"{shown} with {why}: {refused}.", fix, (reader,))
        elif reader is J and not explicit:
            yield Hit(
                p,
                in_flight.line,
                f"{shown} with the Java client's default idempotence: Java clients 4.0 and later refuse to start, "
                "older ones silently turn idempotence off.",
                fix + " (or set enable.idempotence=false and accept duplicates)",
                (J,),
            )


@rule("producer.timeout-conflict", Severity.ERROR, ("A8",), (PRODUCER,))
def timeout_conflict(c: Configs) -> Iterator[Hit]:
    """Timeouts that contradict each other: the client refuses to start."""
    p = c.files[PRODUCER]
    refused = "refuses to start"
    if J in p.readers and (delivery := p.entry("delivery.timeout.ms", J)):
        # KafkaProducer.configureDeliveryTimeout: an explicit delivery.timeout.ms below
        # linger.ms + request.timeout.ms is a ConfigException (an implicit one is raised).
        # Reproduced with kafka-clients 4.3.1 and 3.9.0 (whose linger.ms default is 0).
        floor = _num(p.value("linger.ms", J)) + _num(p.value("request.timeout.ms", J))
        if _num(delivery.value) < floor:
            parts = " + ".join(_shown(p, key, J) for key in ("linger.ms", "request.timeout.ms"))
            yield Hit(
                p,
                delivery.line,
                f"delivery.timeout.ms={delivery.raw.strip()} is below {parts} = {_fmt(floor)}: "
                f"the Java client {refused}.",
                f"set delivery.timeout.ms to at least {_fmt(floor)}, or leave it out (default 120000)",
                (J,),
            )
    if L not in p.readers:
        return
    # rdkafka_conf.c; each case reproduced with librdkafka 2.16.0.
    txn = p.entry("transactional.id", L)
    idempotence = p.entry("enable.idempotence", L)
    transactional = bool(txn) and not (idempotence and idempotence.value is False)
    txn_timeout = _num(p.value("transaction.timeout.ms", L))
    message = p.entry("delivery.timeout.ms", L)  # message.timeout.ms or its alias delivery.timeout.ms
    if transactional and message and _num(message.value) > txn_timeout:
        yield Hit(
            p,
            message.line,
            f"{message.name}={message.raw.strip()} is above transaction.timeout.ms={_fmt(txn_timeout)} "
            f"with a transactional.id: librdkafka {refused}.",
            f"set {message.name} to at most {_fmt(txn_timeout)}, or leave it out (librdkafka then uses "
            "transaction.timeout.ms)",
            (L,),
        )
    socket = p.entry("socket.timeout.ms", L)
    if transactional and socket and _num(socket.value) > txn_timeout + 100:
        yield Hit(
            p,
            socket.line,
            f"socket.timeout.ms={socket.raw.strip()} is above transaction.timeout.ms + 100 "
            f"({_fmt(txn_timeout + 100)}) with a transactional.id: librdkafka {refused}.",
            f"set socket.timeout.ms to at most {_fmt(txn_timeout + 100)}, or leave it out",
            (L,),
        )
    linger = p.entry("linger.ms", L)
    if linger:
        # Checked against the configured (or default) message timeout, and for a
        # transactional producer without one, against the transaction timeout it adopts.
        timeouts = {_num(p.value("delivery.timeout.ms", L))}
        if transactional and not message:
            timeouts.add(txn_timeout)
        too_short = sorted(t for t in timeouts if 0 < t <= _num(linger.value))
        if too_short:
            yield Hit(
                p,
                linger.line,
                f"{linger.name}={linger.raw.strip()} is not below the message timeout "
                f"({_fmt(too_short[0])} ms): librdkafka {refused}.",
                "keep linger.ms well below message.timeout.ms",
                (L,),
            )


@rule("producer.transaction-timeout-above-broker-max", Severity.ERROR, ("B7",), (PRODUCER, BROKER))
def transaction_timeout_above_broker_max(c: Configs) -> Iterator[Hit]:
    """A transaction timeout above the broker's maximum makes initialising transactions fail."""
    if not c.transactional:
        return
    p, b = c.files[PRODUCER], c.files[BROKER]
    limit = _num(b.value("transaction.max.timeout.ms", B))
    for reader in p.readers:
        if _num(p.value("transaction.timeout.ms", reader)) > limit:
            yield Hit(
                p,
                _line(p, "transaction.timeout.ms", reader),
                f"{_shown(p, 'transaction.timeout.ms', reader)} is above the broker's "
                f"{_shown(b, 'transaction.max.timeout.ms', B)}: initialising transactions fails with "
                "InvalidTxnTimeout (INVALID_TRANSACTION_TIMEOUT).",
                f"set transaction.timeout.ms to at most {_fmt(limit)} "
                "(or raise the brokers' transaction.max.timeout.ms)",
                (reader,),
            )


@rule("producer.no-transactional-id", Severity.ERROR, ("B1",), (PRODUCER,))
def no_transactional_id(c: Configs) -> Iterator[Hit]:
    """A transactional pipeline whose producer has no transactional.id is not transactional."""
    p = c.files[PRODUCER]
    if c.transactional_flag and not _transactional_id(p):
        yield Hit(
            p,
            None,
            "--transactional says this pipeline is transactional, but the producer has no transactional.id: "
            "its output is not committed together with the consumed offsets, and a restarted instance "
            "cannot fence the old one.",
            "set transactional.id to an id that stays the same across restarts of this producer instance",
            p.readers,
        )


# --- consumer ---------------------------------------------------------------------------


@rule("consumer.isolation-level-unset", Severity.WARNING, ("B3",), (CONSUMER,))
def isolation_level_unset(c: Configs) -> Iterator[Hit]:
    """Left unset, isolation.level is read_uncommitted in Java and read_committed in librdkafka."""
    k = c.files[CONSUMER]
    if not any(k.entry("isolation.level", r) for r in k.readers):
        yield Hit(
            k,
            None,
            "isolation.level is not set: the Java consumer then reads read_uncommitted (records of aborted and "
            "still-open transactions too), librdkafka read_committed, so the file means different things "
            "to the two clients.",
            "set isolation.level=read_committed (or read_uncommitted, if that is what you mean)",
            k.readers,
        )


@rule("consumer.reads-uncommitted", Severity.ERROR, ("B3",), (CONSUMER,))
def reads_uncommitted(c: Configs) -> Iterator[Hit]:
    """A read_uncommitted consumer in a transactional pipeline sees aborted and uncommitted records."""
    k = c.files[CONSUMER]
    if not c.transactional:
        return
    for reader in k.readers:
        if k.value("isolation.level", reader) == "read_uncommitted":
            yield Hit(
                k,
                _line(k, "isolation.level", reader),
                f"{_shown(k, 'isolation.level', reader)} in a transactional pipeline: the consumer sees records "
                "of aborted transactions and of transactions not yet committed.",
                "set isolation.level=read_committed",
                (reader,),
            )


@rule("consumer.auto-commit-in-transactions", Severity.ERROR, ("B1",), (CONSUMER,))
def auto_commit_in_transactions(c: Configs) -> Iterator[Hit]:
    """Auto-commit commits input offsets outside the transactions that write the output."""
    k = c.files[CONSUMER]
    if not c.transactional:
        return
    for reader in k.readers:
        if k.value("enable.auto.commit", reader) is True:
            yield Hit(
                k,
                _line(k, "enable.auto.commit", reader),
                f"{_shown(k, 'enable.auto.commit', reader)} in a transactional pipeline: the consumer commits "
                "offsets on its own, outside the producer's transactions, so after a crash inputs are "
                "skipped or processed twice.",
                "set enable.auto.commit=false and commit offsets with the producer's "
                "send_offsets_to_transaction (Java: sendOffsetsToTransaction)",
                (reader,),
            )


@rule("consumer.read-committed-without-transactions", Severity.INFO, ("B1", "B3"), (PRODUCER, CONSUMER))
def read_committed_without_transactions(c: Configs) -> Iterator[Hit]:
    """With a producer that is not transactional, read_committed changes nothing for the pipeline's own writes."""
    k = c.files[CONSUMER]
    if c.transactional:
        return
    for e, reader in _explicit(k, "isolation.level"):
        if e.value == "read_committed":
            yield Hit(
                k,
                e.line,
                "isolation.level=read_committed, but the producer has no transactional.id and --transactional "
                "was not given: this pipeline's own writes are not transactional.",
                "if the pipeline should be exactly-once, give the producer a transactional.id and pass --transactional",
                (reader,),
            )


# --- every file -------------------------------------------------------------------------


def _unknown(c: Configs) -> Iterator[tuple[ConfigFile, Entry, str | None, list[Kind]]]:
    for cfg in c.files.values():
        for e in cfg.entries:
            if not e.setting:
                yield cfg, e, close_name(e.name, cfg.kind), kinds_knowing(e.name)


@rule("unknown-property", Severity.WARNING)
def unknown_property(c: Configs) -> Iterator[Hit]:
    """A misspelt or misplaced name does nothing: the setting meant keeps its default."""
    for cfg, e, close, elsewhere in _unknown(c):
        if elsewhere:
            other = " or ".join(elsewhere)
            yield Hit(
                cfg,
                e.line,
                f"{e.name} is a {other} property, not a {cfg.kind} one: a {cfg.kind} does not use it.",
                f"move it to the {other} file",
                cfg.readers,
            )
        elif close:
            yield Hit(
                cfg,
                e.line,
                f"unknown {cfg.kind} property {e.name!r}: did you mean {close!r}? As written, {close} keeps "
                "its default.",
                f"rename it to {close}",
                cfg.readers,
            )


@rule("unchecked-property", Severity.INFO)
def unchecked_property(c: Configs) -> Iterator[Hit]:
    """A name the catalogue does not know is passed through unchecked."""
    for cfg, e, close, elsewhere in _unknown(c):
        if not close and not elsewhere:
            yield Hit(
                cfg,
                e.line,
                f"{e.name} is not in this checker's catalogue, so it was not checked.",
                "nothing, if the name is right (librdkafka refuses to start on names it does not know)",
                cfg.readers,
            )


# What a client does with a name it does not read (librdkafka: "No such configuration
# property"; Java: logged as "supplied but are not used yet").
_IGNORED = {J: "the Java client ignores it", L: "librdkafka refuses to start"}


@rule("property-not-for-client", Severity.WARNING)
def property_not_for_client(c: Configs) -> Iterator[Hit]:
    """A name only one client reads does nothing, or stops the other client, in a file both may read."""
    for cfg in c.files.values():
        for e in cfg.entries:
            if not e.setting:
                continue
            for reader in cfg.readers:
                if reader in e.readers:
                    continue
                names = e.setting.names.get(reader, ())
                yield Hit(
                    cfg,
                    e.line,
                    f"{e.name} is read only by {', '.join(e.readers)}: {_IGNORED[reader]}.",
                    f"use {' or '.join(names)} for {reader}" if names else f"leave it out of {reader}'s configuration",
                    (reader,),
                )


@rule("duplicate-property", Severity.WARNING)
def duplicate_property(c: Configs) -> Iterator[Hit]:
    """A setting given twice takes the last value, which may not be the one reviewed."""
    for cfg in c.files.values():
        for reader in cfg.readers:
            groups: dict[str, list[Entry]] = {}
            for e in cfg.entries:
                if not e.setting or reader in e.readers:
                    groups.setdefault(e.setting.key if e.setting else e.name, []).append(e)
            for key, entries in groups.items():
                if len(entries) > 1:
                    last = entries[-1]
                    lines = ", ".join(str(e.line) for e in entries)
                    yield Hit(
                        cfg,
                        last.line,
                        f"{key} is set {len(entries)} times (lines {lines}); the last, "
                        f"{last.name}={last.raw.strip()}, wins.",
                        "keep one",
                        (reader,),
                    )
