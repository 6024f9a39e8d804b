"""The static rules over the producer's config: idempotence, acks, retries, timeouts, transactions."""

from __future__ import annotations

from collections.abc import Iterator

from harness.configcheck.rulebook import (
    BROKER,
    PRODUCER,
    B,
    Configs,
    Hit,
    J,
    L,
    Rule,
    Severity,
    explicit,
    fmt,
    line_of,
    num,
    registering_into,
    shown,
    transactional_id,
)
from harness.kafkaconfig.catalogue import ACKS_ALL, Component, ConfigFile

RULES: list[Rule] = []
rule = registering_into(RULES)

# Idempotence keeps the last 5 batches per partition; both clients refuse more in flight
# (Java ProducerConfig, librdkafka RD_KAFKA_IDEMP_MAX_INFLIGHT).
MAX_IN_FLIGHT_IDEMPOTENT = 5


@rule("producer.idempotence-disabled", Severity.ERROR, ("A1", "A2"), (PRODUCER,))
def idempotence_disabled(c: Configs) -> Iterator[Hit]:
    """Without idempotence a retried batch whose ack was lost is written twice, and retries reorder."""
    p = c.files[PRODUCER]
    for e, reader in explicit(p, "enable.idempotence"):
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
            return f"the Java client silently turns its default (true) off because of {shown(p, key, J)}"
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
    for e, reader in explicit(p, "acks"):
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
    for e, reader in explicit(p, "retries"):
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
        if not in_flight or num(in_flight.value) <= MAX_IN_FLIGHT_IDEMPOTENT:
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
        floor = num(p.value("linger.ms", J)) + num(p.value("request.timeout.ms", J))
        if num(delivery.value) < floor:
            parts = " + ".join(shown(p, key, J) for key in ("linger.ms", "request.timeout.ms"))
            yield Hit(
                p,
                delivery.line,
                f"delivery.timeout.ms={delivery.raw.strip()} is below {parts} = {fmt(floor)}: "
                f"the Java client {refused}.",
                f"set delivery.timeout.ms to at least {fmt(floor)}, or leave it out (default 120000)",
                (J,),
            )
    if L not in p.readers:
        return
    # rdkafka_conf.c; each case reproduced with librdkafka 2.16.0.
    txn = p.entry("transactional.id", L)
    idempotence = p.entry("enable.idempotence", L)
    transactional = bool(txn) and not (idempotence and idempotence.value is False)
    txn_timeout = num(p.value("transaction.timeout.ms", L))
    message = p.entry("delivery.timeout.ms", L)  # message.timeout.ms or its alias delivery.timeout.ms
    if transactional and message and num(message.value) > txn_timeout:
        yield Hit(
            p,
            message.line,
            f"{message.name}={message.raw.strip()} is above transaction.timeout.ms={fmt(txn_timeout)} "
            f"with a transactional.id: librdkafka {refused}.",
            f"set {message.name} to at most {fmt(txn_timeout)}, or leave it out (librdkafka then uses "
            "transaction.timeout.ms)",
            (L,),
        )
    socket = p.entry("socket.timeout.ms", L)
    if transactional and socket and num(socket.value) > txn_timeout + 100:
        yield Hit(
            p,
            socket.line,
            f"socket.timeout.ms={socket.raw.strip()} is above transaction.timeout.ms + 100 "
            f"({fmt(txn_timeout + 100)}) with a transactional.id: librdkafka {refused}.",
            f"set socket.timeout.ms to at most {fmt(txn_timeout + 100)}, or leave it out",
            (L,),
        )
    linger = p.entry("linger.ms", L)
    if linger:
        # Checked against the configured (or default) message timeout, and for a
        # transactional producer without one, against the transaction timeout it adopts.
        timeouts = {num(p.value("delivery.timeout.ms", L))}
        if transactional and not message:
            timeouts.add(txn_timeout)
        too_short = sorted(t for t in timeouts if 0 < t <= num(linger.value))
        if too_short:
            yield Hit(
                p,
                linger.line,
                f"{linger.name}={linger.raw.strip()} is not below the message timeout "
                f"({fmt(too_short[0])} ms): librdkafka {refused}.",
                "keep linger.ms well below message.timeout.ms",
                (L,),
            )


@rule("producer.transaction-timeout-above-broker-max", Severity.ERROR, ("B7",), (PRODUCER, BROKER))
def transaction_timeout_above_broker_max(c: Configs) -> Iterator[Hit]:
    """A transaction timeout above the broker's maximum makes initialising transactions fail."""
    if not c.transactional:
        return
    p, b = c.files[PRODUCER], c.files[BROKER]
    limit = num(b.value("transaction.max.timeout.ms", B))
    for reader in p.readers:
        if num(p.value("transaction.timeout.ms", reader)) > limit:
            yield Hit(
                p,
                line_of(p, "transaction.timeout.ms", reader),
                f"{shown(p, 'transaction.timeout.ms', reader)} is above the broker's "
                f"{shown(b, 'transaction.max.timeout.ms', B)}: initialising transactions fails with "
                "InvalidTxnTimeout (INVALID_TRANSACTION_TIMEOUT).",
                f"set transaction.timeout.ms to at most {fmt(limit)} "
                "(or raise the brokers' transaction.max.timeout.ms)",
                (reader,),
            )


@rule("producer.no-transactional-id", Severity.ERROR, ("B1",), (PRODUCER,))
def no_transactional_id(c: Configs) -> Iterator[Hit]:
    """A transactional pipeline whose producer has no transactional.id is not transactional."""
    p = c.files[PRODUCER]
    if c.transactional_flag and not transactional_id(p):
        yield Hit(
            p,
            None,
            "--transactional says this pipeline is transactional, but the producer has no transactional.id: "
            "its output is not committed together with the consumed offsets, and a restarted instance "
            "cannot fence the old one.",
            "set transactional.id to an id that stays the same across restarts of this producer instance",
            p.readers,
        )
