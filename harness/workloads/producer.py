"""The producer workload: one app sending uniquely identified records to a fresh topic, plain,
idempotent or transactional as its configuration says, optionally with a foreign producer
(``Hijacker``) that takes its transactional.id.

The app is ``harness.workloads.apps.producer`` on librdkafka, or ``kafkaeos.ProducerApp`` on
the Java client (``client``, harness.workloads.clients); its ledger is the history.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

from harness.faults.plan import RunNames
from harness.faults.roles import TxnCoordinator
from harness.jvm import java_clients
from harness.kafkaconfig.catalogue import Kind
from harness.workloads import clients
from harness.workloads.apps.producer import ProducerSpec
from harness.workloads.base import Plan, SideSetup
from harness.workloads.process import AppProcess, SpecFor
from harness.workloads.resume import producer_resume

PRODUCER = "producer-1"  # the scenario's producer app: fault target ``App(PRODUCER)``, ledger file stem
HIJACKER = "hijacker"  # a ``ProducerWorkload.hijacker``: fault target ``App(HIJACKER)``, ledger file stem
PYTHON_APP = "harness.workloads.apps.producer"
# Time an app may take beyond its records' share of the rate: start, flush, slow acks under faults.
_SLACK_S = 180


@dataclass(frozen=True)
class Hijacker:
    """A foreign producer app (``HIJACKER``) with the scenario producer's transactional.id,
    started by a ``launch`` step: its ``init_transactions`` takes the id over (fencing the
    producer) unless an ACL stops it; then it sends ``count`` records."""

    user: str  # its SASL login on a secured cluster (settings.SASL_USERS)
    count: int = 0


@dataclass(frozen=True)
class ProducerWorkload:
    count: int = 2000
    rate_per_s: float = 200.0
    value_bytes: int = 100
    keys: int = 0
    partitions: int = 1  # of the topic
    config: dict[str, Any] = field(default_factory=dict)  # shared by both variants
    txn_size: int = 10  # used when the config has a transactional.id
    txn_ms: float = 0  # ... and a transaction also ends once open this long (0: by size only)
    abort_every: int = 0
    duplicate_every: int = 0  # an application bug: produce() every n-th record twice
    # What the app does when a commit fails with a retriable error: "retry" (as the clients'
    # docs say) or "resend" (an application bug: the records again, from a fresh producer).
    on_commit_error: str = "retry"
    commit_timeout_s: float = 60.0
    pause_after_abort_ms: int = 0  # the app backs off this long after a transaction failed and was aborted
    source_header: bool = False  # every record's id in a header too (the input of a user's app)
    user: str = ""  # the producer's SASL login on a secured cluster; "": the harness's own
    hijacker: Hijacker | None = None
    client: str = clients.LIBRDKAFKA  # or clients.JAVA
    # confluent-kafka's release (librdkafka) or kafka-clients' (java); "": the default
    # (clients.version_for: the harness's own confluent-kafka, the cluster's Kafka version)
    client_version: str = ""
    # Java client settings in its own names, over the translated ones: a user's Java file,
    # verbatim (verify-config --client java).
    java_config: dict[str, Any] = field(default_factory=dict)
    # The apps reach the brokers through links of their own (the side's own-link listener),
    # so a link fault on them (listener=harness.faults.OWN_LINKS) hits this side alone.
    own_links: bool = False
    # No partition of the topic is led by the transaction coordinator's broker: a fault on
    # that broker's client link then reaches the transaction requests alone, not the sends.
    leaders_off_coordinator: bool = False
    # ... and all of them led by one broker, so one Produce request can carry every partition.
    one_leader: bool = False
    # Each transaction's first record goes alone and is acknowledged before the rest are sent:
    # its partition then has the transaction open at its leader when the others join it.
    open_first: bool = False
    client_choices: ClassVar[tuple[str, ...]] = clients.CLIENTS
    java_main: ClassVar[str] = java_clients.PRODUCER_APP

    def plan(self, side: SideSetup) -> Plan:
        cluster = side.cluster
        topic = side.name
        config = {**self.config, **side.client_config}
        if "transactional.id" in config:  # unique per run: no stale epoch of an earlier run interferes (RunNames)
            config["transactional.id"] = f"{config['transactional.id']}-{topic}"
        avoid = None
        if self.leaders_off_coordinator:
            cluster.ensure_transaction_log()
            avoid = TxnCoordinator(config["transactional.id"]).resolve(cluster)[0]
        cluster.create_topic(
            topic, self.partitions, config=side.topic_config, leaders_not_on=avoid, one_leader=self.one_leader
        )
        client = clients.check(self.client)
        version = clients.version_for(clients.ClientSpec(client, self.client_version), cluster.settings.kafka_version)
        command = clients.app_command(client, PYTHON_APP, self.java_main, cluster.settings, version)
        app_config = config
        if client == clients.JAVA:
            app_config = {**clients.java_config(config, Kind.PRODUCER)[0], **self.java_config}

        def app(name: str, w: ProducerWorkload, session: int, user: str) -> AppProcess:
            login = clients.login(client, cluster.client_config(user))
            bootstrap = cluster.bootstrap_servers(side.own_links if self.own_links else "client")
            spec_for = producer_spec(bootstrap, topic, w, app_config, session, login)
            return AppProcess(name, side.run_dir, spec_for, command)

        apps = [app(PRODUCER, self, 1, self.user)]
        if self.hijacker is not None:  # the same transactional.id, another session and login; launched by a step
            apps.append(app(HIJACKER, replace(self, count=self.hijacker.count), 2, self.hijacker.user))
        return Plan(
            apps,
            apps[:1],
            topics=[topic],
            names=RunNames(
                {"main": topic},
                transactional_ids={a.name: config["transactional.id"] for a in apps if "transactional.id" in config},
            ),
            partitions=self.partitions,
            config=app_config,
            budget_s=self.count / self.rate_per_s + _SLACK_S,
            transactional_ids=[config["transactional.id"]] if "transactional.id" in config else [],
            client=client,
            client_version=version,
            client_requested=self.client_version,
            client_package=clients.package(client),
        )


def producer_spec(
    bootstrap: str, topic: str, w: ProducerWorkload, config: dict[str, Any], session: int, login: dict[str, str]
) -> SpecFor:
    """Each incarnation's spec of a producer app running ``w`` with ``config`` as ``session``."""

    def spec_for(ledger: Path, earlier: list[Path]) -> dict[str, Any]:
        return asdict(
            ProducerSpec(
                bootstrap_servers=bootstrap,
                topic=topic,
                ledger=str(ledger),
                session=session,
                count=w.count,
                rate_per_s=w.rate_per_s,
                value_bytes=w.value_bytes,
                keys=w.keys,
                config=config,
                txn_size=w.txn_size,
                txn_ms=w.txn_ms,
                abort_every=w.abort_every,
                duplicate_every=w.duplicate_every,
                on_commit_error=w.on_commit_error,
                commit_timeout_s=w.commit_timeout_s,
                pause_after_abort_ms=w.pause_after_abort_ms,
                open_first=w.open_first,
                source_header=w.source_header,
                resume=producer_resume(earlier, session, "transactional.id" in config),
                login=login,
            )
        )

    return spec_for
