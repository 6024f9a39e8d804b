"""What a side offers a drawn schedule: the roles its faults may aim at, the progress its
steps may wait for, and the timeouts around which durations are drawn.

Only the workloads whose apps write the harness's ledgers are explored: the producer and the
consume-transform-produce pipeline. Roles name the parts of the side's plan (``INPUT``,
``TransactionalId("transformer-1")``: harness.faults.plan), bound to each run's fresh names.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.faults import INPUT, MAIN, OUTPUT, OWN_LINKS, AppSent, Committed, Condition, Topic, TransactionalId
from harness.faults.kinds.base import DrawContext
from harness.faults.roles import App, Brokers, Controller, Followers, Leader, Node, Target, TxnCoordinator
from harness.scenario import Scenario
from harness.workloads.pipeline import BatchUncommitted, PipelineWorkload, transformer
from harness.workloads.producer import PRODUCER, ProducerWorkload

# librdkafka's defaults of the timeouts that matter (scenarios write client settings in its
# names; the Java apps get them translated), and the transformer app's session timeout.
_REQUEST_TIMEOUT_MS = 60_000  # socket.timeout.ms: how long the client waits for an answer
_TRANSACTION_TIMEOUT_MS = 60_000  # transaction.timeout.ms
_SESSION_TIMEOUT_MS = 6_000  # session.timeout.ms, as harness.workloads.apps.transformer sets it
# A batch's time beyond its pause before the commit, for an estimate of the busy time.
_BATCH_S = 0.1
# The Kafka APIs each kind of app sends, where a drawn protocol fault can find them.
_PRODUCING = ("Metadata", "Produce")
_IDEMPOTENT = (*_PRODUCING, "InitProducerId")
_TRANSACTIONAL = (*_IDEMPOTENT, "FindCoordinator", "AddPartitionsToTxn", "EndTxn")
_CONSUMING = ("Metadata", "FindCoordinator", "Fetch", "JoinGroup", "SyncGroup", "Heartbeat", "OffsetFetch")
# A consume-transform-produce app's, in a transaction: its offsets go through the producer.
TRANSFORMING = (*_CONSUMING, *_TRANSACTIONAL, "AddOffsetsToTxn", "TxnOffsetCommit")

Trigger = Callable[[random.Random], Condition]


@dataclass(frozen=True)
class Reach:
    """One side as a drawn schedule sees it."""

    faults: DrawContext
    triggers: tuple[Trigger, ...]  # conditions keyed to the workload's progress
    span_s: float  # about how long the workload is busy: times are drawn within it


def reach(scenario: Scenario) -> Reach:
    workload = scenario.guarantee.workload or scenario.workload
    config = scenario.guarantee.config
    if isinstance(workload, PipelineWorkload):
        return _pipeline(workload, {**workload.producer_config, **config})
    if isinstance(workload, ProducerWorkload):
        return _producer(workload, {**workload.config, **config})
    raise HarnessError(
        f"explore draws schedules for producer and pipeline workloads, whose apps write the harness's ledgers; "
        f"{scenario.id}'s guarantee runs a {type(workload).__name__}"
    )


def broker_roles(
    topics: list[tuple[str | Topic, int]], transactional_ids: list[str | TransactionalId]
) -> tuple[Target, ...]:
    """Roles resolved when the fault fires: who leads or follows each partition, who coordinates
    each transactional.id, the quorum's leader, each node, all of them."""
    roles: list[Target] = []
    for topic, partitions in topics:
        for p in range(partitions):
            roles += [Leader(topic, p), Followers(topic, p)]
    roles += [TxnCoordinator(t) for t in transactional_ids]
    roles += [Controller(), *(Node(i) for i in range(1, KafkaCluster.size + 1)), Brokers()]
    return tuple(roles)


def _timeouts(config: dict[str, Any], session_ms: int) -> dict[str, int]:
    return {
        "request_timeout_ms": int(config.get("socket.timeout.ms", _REQUEST_TIMEOUT_MS)),
        "session_timeout_ms": session_ms,
        "transaction_timeout_ms": int(config.get("transaction.timeout.ms", _TRANSACTION_TIMEOUT_MS)),
    }


def _producing(config: dict[str, Any]) -> tuple[str, ...]:
    if "transactional.id" in config:
        return _TRANSACTIONAL
    return _IDEMPOTENT if str(config.get("enable.idempotence", "")).lower() == "true" else _PRODUCING


def _progress(apps: list[str], sends: int, commits: int, batches: bool) -> tuple[Trigger, ...]:
    """After the n-th send, with a batch in hand (a pipeline's), at the k-th commit."""

    def sent(rng: random.Random) -> Condition:
        return AppSent(rng.choice(apps), rng.randint(1, max(1, int(sends * 0.8))))

    def batch(rng: random.Random) -> Condition:
        return BatchUncommitted(rng.choice(apps), after=rng.randint(0, max(0, int(sends * 0.8))))

    def commit(rng: random.Random) -> Condition:
        return Committed(rng.choice(apps), rng.randint(1, max(1, int(commits * 0.8))))

    return (sent, *((batch,) if batches else ()), *((commit,) if commits else ()))


def _pipeline(w: PipelineWorkload, config: dict[str, Any]) -> Reach:
    apps = [transformer(i) for i in range(1, w.instances + 1)]
    transactional = w.mode == "transactional" and w.sink == "kafka"
    # A transactional.id shared by every instance is one coordinator's: the first app's.
    ids: list[str | TransactionalId] = [TransactionalId(a) for a in apps[: 1 if w.shared_transactional_id else None]]
    topics: list[tuple[str | Topic, int]] = [(INPUT, w.partitions)] + (
        [(OUTPUT, w.partitions)] if w.sink == "kafka" else []
    )
    session_ms = int(w.consumer_config.get("session.timeout.ms", _SESSION_TIMEOUT_MS))
    context = DrawContext(
        brokers=broker_roles(topics, ids if transactional else []),
        apps=tuple(App(a) for a in apps),
        partitions=tuple((t, p) for t, n in topics for p in range(n)),
        client_listener=OWN_LINKS if w.own_links else "client",
        transactional_ids=tuple(ids) if transactional else (),
        **_timeouts(config, session_ms),
        apis=TRANSFORMING if transactional else (*_CONSUMING, "OffsetCommit", *_producing(config)),
    )
    sends = w.inputs // w.instances
    commits = sends // w.batch_size
    span_s = commits * (w.pause_before_commit_ms / 1000 + _BATCH_S)
    return Reach(context, _progress(apps, sends, commits, batches=True), span_s)


def _producer(w: ProducerWorkload, config: dict[str, Any]) -> Reach:
    transactional_id = TransactionalId(PRODUCER) if "transactional.id" in config else None
    context = DrawContext(
        brokers=broker_roles([(MAIN, w.partitions)], [transactional_id] if transactional_id else []),
        apps=(App(PRODUCER),),
        partitions=tuple((MAIN, p) for p in range(w.partitions)),
        client_listener=OWN_LINKS if w.own_links else "client",
        transactional_ids=(transactional_id,) if transactional_id else (),
        **_timeouts(config, _SESSION_TIMEOUT_MS),
        apis=_producing(config),
    )
    commits = w.count // w.txn_size if transactional_id else 0
    return Reach(context, _progress([PRODUCER], w.count, commits, batches=False), w.count / w.rate_per_s)
