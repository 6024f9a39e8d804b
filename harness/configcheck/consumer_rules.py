"""The static rules over the consumer's config: isolation level and offset commits in a transactional pipeline."""

from __future__ import annotations

from collections.abc import Iterator

from harness.configcheck.rulebook import (
    CONSUMER,
    PRODUCER,
    Configs,
    Hit,
    Rule,
    Severity,
    explicit,
    line_of,
    registering_into,
    shown,
)

RULES: list[Rule] = []
rule = registering_into(RULES)


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
                line_of(k, "isolation.level", reader),
                f"{shown(k, 'isolation.level', reader)} in a transactional pipeline: the consumer sees records "
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
                line_of(k, "enable.auto.commit", reader),
                f"{shown(k, 'enable.auto.commit', reader)} in a transactional pipeline: the consumer commits "
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
    for e, reader in explicit(k, "isolation.level"):
        if e.value == "read_committed":
            yield Hit(
                k,
                e.line,
                "isolation.level=read_committed, but the producer has no transactional.id and --transactional "
                "was not given: this pipeline's own writes are not transactional.",
                "if the pipeline should be exactly-once, give the producer a transactional.id and pass --transactional",
                (reader,),
            )
