"""The static rules over the broker's config: replication factors, min ISR, unclean elections."""

from __future__ import annotations

from collections.abc import Iterator

from harness.configcheck.rulebook import (
    BROKER,
    B,
    Configs,
    Hit,
    Rule,
    Severity,
    line_of,
    num,
    registering_into,
    shown,
)
from harness.settings import DEFAULT_BROKER_SETTINGS

RULES: list[Rule] = []
rule = registering_into(RULES)


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
            line_of(b, "unclean.leader.election.enable", B),
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
        if num(b.value(key, B)) < 2:
            yield Hit(
                b,
                line_of(b, key, B),
                f"{shown(b, key, B)}: {writes} are acknowledged as soon as one broker has them, "
                "and lost if it fails before a follower copies them.",
                f"set {key}={DEFAULT_BROKER_SETTINGS[key]} (with a replication factor of 3)",
                (B,),
            )


@rule("broker.min-isr-equals-rf", Severity.WARNING, ("A3", "B6"), (BROKER,))
def min_isr_equals_rf(c: Configs) -> Iterator[Hit]:
    """A min ISR equal to the replication factor makes one broker down block every write."""
    b = c.files[BROKER]
    for key, (rf_key, writes) in _MIN_ISR.items():
        if 2 <= num(b.value(key, B)) == num(b.value(rf_key, B)):
            yield Hit(
                b,
                line_of(b, key, B),
                f"{shown(b, key, B)} equals {shown(b, rf_key, B)}: with one broker down, {writes} "
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
        if num(b.value(key, B)) > num(b.value(rf_key, B)):
            yield Hit(
                b,
                line_of(b, key, B),
                f"{shown(b, key, B)} exceeds {shown(b, rf_key, B)}: {writes} can never gather "
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
        if num(b.value(key, B)) > c.brokers:
            yield Hit(
                b,
                line_of(b, key, B),
                f"{shown(b, key, B)} needs more brokers than the {c.brokers} of this cluster: {governs} "
                "cannot be created until that many brokers are up.",
                f"set {key} to at most {c.brokers} (or run more brokers; see --brokers)",
                (B,),
            )


@rule("broker.rf-single-copy", Severity.WARNING, ("A3", "B6"), (BROKER,))
def rf_single_copy(c: Configs) -> Iterator[Hit]:
    """A replication factor of 1 keeps one copy: losing its broker loses the data."""
    b = c.files[BROKER]
    for key, governs in _REPLICATED.items():
        if num(b.value(key, B)) == 1:
            yield Hit(
                b,
                line_of(b, key, B),
                f"{shown(b, key, B)}: {governs} keep a single copy, lost with its broker.",
                f"set {key}={DEFAULT_BROKER_SETTINGS[key]} on a cluster of 3 or more brokers",
                (B,),
            )
