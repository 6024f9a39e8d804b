"""The three-broker KRaft cluster behind Toxiproxy, started with testcontainers.

Topology (one private Docker network per cluster)::

    client (host) --127.0.0.1:<p_i>--> toxiproxy:1909i --> kafka-i:9092   (CLIENT)
    broker j --------------------------> toxiproxy:2909i --> kafka-i:9093   (REPLICATION)
    controller j ----------------------> toxiproxy:3909i --> kafka-i:9094   (CONTROLLER)

Every link *into* broker i on every listener is its own Toxiproxy proxy, so a fault can
hit one broker's client traffic, or its replication or quorum traffic, in either
direction. Only Toxiproxy publishes ports, and only on 127.0.0.1; brokers advertise the
published client ports, so clients never learn any address but loopback.

With ``Settings.client_security`` SASL_PLAINTEXT the client listeners require SASL logins
and the brokers enforce ACLs (harness.cluster.security); ``client_config`` is every client's login.
"""

from __future__ import annotations

import atexit
import base64
import os
import secrets
import signal
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from docker.errors import DockerException
from testcontainers.core.container import DockerContainer
from testcontainers.core.network import Network

from harness import docker_engine
from harness.cluster import broker_archive, images, security
from harness.cluster.acls import Acls
from harness.cluster.broker import Broker
from harness.cluster.leadership import Leadership
from harness.cluster.proxy import ToxiproxyAPI
from harness.errors import HarnessError
from harness.progress import say, step
from harness.settings import (
    DEFAULT_BROKER_SETTINGS,
    HARNESS_CLIENT_LOG_LEVEL,
    LABEL,
    LABEL_PID,
    LABEL_RUN,
    SASL_HARNESS_USER,
    SASL_USERS,
    Settings,
)
from harness.waits import Deadline, wait_until

# Client entries: "client" for the harness and most apps; "client2" and "client3" for apps
# whose own links a fault must hit alone (a client uses the listener it bootstrapped
# through), one each for the two sides of a pair run at once (harness.faults.OWN_LINKS).
OWN_LINK_LISTENERS = ("client2", "client3")
CLIENT_LISTENERS = ("client", *OWN_LINK_LISTENERS)
LISTENERS = (*CLIENT_LISTENERS, "replication", "controller")
_BROKER_PORT = {"client": 9092, "replication": 9093, "controller": 9094, "client2": 9095, "client3": 9096}
_PROXY_PORT_BASE = {"client": 19090, "replication": 29090, "controller": 39090, "client2": 49090, "client3": 59090}
_TOXIPROXY_API_PORT = 8474
PROBE_TOPIC = "__harness_probe"


def _proxy_port(node_id: int, listener: str) -> int:
    return _PROXY_PORT_BASE[listener] + node_id


def env_name(prop: str) -> str:
    """A broker property as the KAFKA_* variable both images read (apache/kafka rules)."""
    return "KAFKA_" + prop.replace("_", "___").replace("-", "__").replace(".", "_").upper()


def new_cluster_id() -> str:
    """A random Kafka cluster id (base64url of 16 bytes). One starting with "-" would be
    read as an option by the storage tool (Kafka's own Uuid avoids them too)."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


_CREATE_ATTEMPTS = 3  # creating a topic, when the failure is transient


class KafkaCluster(Leadership, Acls):
    """Three combined broker+controller KRaft nodes and one Toxiproxy, as a context manager.

    Configure with ``with_*`` before ``start()``; they raise afterwards instead of silently
    doing nothing. Who leads (``Leadership``) and the ACLs (``Acls``) are mixed in from their
    own modules.
    """

    size = 3

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        security.check(self.settings.client_security)
        self.secured = self.settings.client_security != security.PLAINTEXT
        # Made per cluster: nothing outside this run can log in with them.
        self._passwords = {user: secrets.token_urlsafe(12) for user in SASL_USERS} if self.secured else {}
        self.run_id = uuid.uuid4().hex[:8]
        self.cluster_id = new_cluster_id()
        self.broker_settings = dict(DEFAULT_BROKER_SETTINGS)
        self.brokers: dict[int, Broker] = {}
        self.toxiproxy: DockerContainer | None = None
        self.proxies: ToxiproxyAPI | None = None
        self._network: Network | None = None
        self._client_ports: dict[str, dict[int, int]] = {}  # listener -> node id -> published port
        self._admin: AdminClient | None = None
        self._archive: Path | None = None  # the brokers' class archive (harness.cluster.broker_archive)
        self._started = False
        self._stopped = False
        self._lock = threading.Lock()

    # --- configuration ------------------------------------------------------------

    def with_broker_settings(self, **props: str) -> KafkaCluster:
        """Broker properties by their Kafka names with ``_`` for ``.``: min_insync_replicas="1"."""
        return self.with_broker_properties({k.replace("_", "."): v for k, v in props.items()})

    def with_broker_properties(self, props: dict[str, str]) -> KafkaCluster:
        if self._started:
            raise RuntimeError("broker settings must be given before start()")
        self.broker_settings.update({k: str(v) for k, v in props.items()})
        return self

    # --- lifecycle ----------------------------------------------------------------

    def __enter__(self) -> KafkaCluster:
        # `with KafkaCluster(...).start() as c` is fine too: the context then only stops it.
        return self if self._started else self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _labels(self) -> dict[str, str]:
        return {LABEL: "cluster", LABEL_RUN: self.run_id, LABEL_PID: str(os.getpid())}

    def start(self) -> KafkaCluster:
        if self._started:
            raise RuntimeError("cluster already started")
        self._started = True
        images.ensure(self.settings, pull=False)  # a Kafka version's first use builds its image
        self._install_cleanup()
        self._archive = broker_archive.ensure(self.settings)
        try:
            with step(f"start 3-broker KRaft cluster {self.run_id} (Kafka {self.settings.kafka_version})"):
                self._network = Network(docker_network_kw={"labels": self._labels()}).create()
                self._start_toxiproxy()
                with ThreadPoolExecutor(self.size) as pool:
                    list(pool.map(self._start_broker, range(1, self.size + 1)))
                self.wait_ready(self.settings.ready_timeout_s)
        except BaseException as exc:
            detail = self._log_tails()
            self.stop()
            if isinstance(exc, HarnessError):
                raise
            if isinstance(exc, Exception):  # WaitTimeout included
                raise HarnessError(f"cluster did not start: {exc}".splitlines()[0][:400], detail) from exc
            raise
        return self

    def _start_toxiproxy(self) -> None:
        container = (
            DockerContainer(images.toxiproxy_image(self.settings))
            .with_name(f"keh-{self.run_id}-toxiproxy")
            .with_network(self._network)  # type: ignore[arg-type]
            .with_network_aliases("toxiproxy")
            .with_kwargs(labels=self._labels())
        )
        # testcontainers' with_bind_ports takes no host address; the network rule wants
        # every published port on 127.0.0.1 with a free port picked by Docker.
        nodes = range(1, self.size + 1)
        for port in [_TOXIPROXY_API_PORT, *(_proxy_port(i, lst) for lst in CLIENT_LISTENERS for i in nodes)]:
            container.ports[f"{port}/tcp"] = ("127.0.0.1", None)  # type: ignore[assignment]
        self.toxiproxy = container.start()
        api_port = int(container.get_exposed_port(_TOXIPROXY_API_PORT))
        self._client_ports = {
            lst: {i: int(container.get_exposed_port(_proxy_port(i, lst))) for i in nodes} for lst in CLIENT_LISTENERS
        }
        self.proxies = ToxiproxyAPI("127.0.0.1", api_port)
        wait_until(self.proxies.running, bool, 15, "the Toxiproxy API to answer")
        # Toxiproxy dials the upstream per connection, so proxies can exist before brokers.
        for i in range(1, self.size + 1):
            for listener in LISTENERS:
                self.proxies.create(
                    self.proxy_name(i, listener),
                    listen=f"0.0.0.0:{_proxy_port(i, listener)}",
                    upstream=f"kafka-{i}:{_BROKER_PORT[listener]}",
                )

    def _broker_env(self, node_id: int) -> dict[str, str]:
        voters = ",".join(f"{i}@toxiproxy:{_proxy_port(i, 'controller')}" for i in range(1, self.size + 1))
        props = {
            **self.broker_settings,
            **(security.broker_properties(CLIENT_LISTENERS, self._passwords) if self.secured else {}),
            "node.id": str(node_id),
            "process.roles": "broker,controller",
            "listeners": ",".join(f"{lst.upper()}://0.0.0.0:{port}" for lst, port in _BROKER_PORT.items()),
            "advertised.listeners": ",".join(
                [f"{lst.upper()}://127.0.0.1:{self._client_ports[lst][node_id]}" for lst in CLIENT_LISTENERS]
                + [f"REPLICATION://toxiproxy:{_proxy_port(node_id, 'replication')}"]
            ),
            "listener.security.protocol.map": security.listener_protocols(
                _BROKER_PORT, CLIENT_LISTENERS, self.settings.client_security
            ),
            "inter.broker.listener.name": "REPLICATION",
            "controller.listener.names": "CONTROLLER",
            "controller.quorum.voters": voters,
            "log.dirs": "/var/lib/kafka/data",
        }
        env = {env_name(k): v for k, v in props.items()}
        env["CLUSTER_ID"] = self.cluster_id
        env["KAFKA_HEAP_OPTS"] = f"-Xmx{self.settings.broker_heap} -Xms{self.settings.broker_heap}"
        env["KAFKA_JVM_PERFORMANCE_OPTS"] = self.settings.broker_jvm_opts
        return env

    def _start_broker(self, node_id: int) -> None:
        alias = f"kafka-{node_id}"
        container = (
            DockerContainer(self.settings.kafka_image)
            .with_name(f"keh-{self.run_id}-{alias}")
            .with_network(self._network)  # type: ignore[arg-type]
            .with_network_aliases(alias)
            .with_kwargs(labels=self._labels())
        )
        for key, value in self._broker_env(node_id).items():
            container.with_env(key, value)
        broker_archive.mount(container, self._archive)
        with self._lock:
            self.brokers[node_id] = Broker(node_id, alias, container)
        container.start()

    def stop(self) -> None:
        """Remove every container and the network, found by this cluster's label (so also what
        a crash in the middle of start left); safe to call twice and from handlers."""
        with self._lock:
            if self._stopped or not self._started:
                return
            self._stopped = True
        self._admin = None  # its threads would only log refused connections from here on
        try:
            docker_engine.remove_leftovers(run_id=self.run_id)
        except (HarnessError, DockerException) as exc:
            say(f"cleanup: {exc}".splitlines()[0])

    def _install_cleanup(self) -> None:
        atexit.register(self.stop)
        if threading.current_thread() is not threading.main_thread():
            return

        def on_term(signum: int, frame: object) -> None:
            # Turn SIGTERM into an exception so every `with`/finally on the stack runs.
            raise SystemExit(128 + signum)

        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, on_term)

    # --- access -------------------------------------------------------------------

    def bootstrap_servers(self, listener: str = "client") -> str:
        ports = self._client_ports[listener]
        return ",".join(f"127.0.0.1:{ports[i]}" for i in sorted(ports))

    def client_port(self, node_id: int, listener: str = "client") -> int:
        return self._client_ports[listener][node_id]

    @staticmethod
    def proxy_name(node_id: int, listener: str) -> str:
        if listener not in LISTENERS:
            raise ValueError(f"unknown listener {listener!r}; one of {', '.join(LISTENERS)}")
        return f"kafka-{node_id}-{listener}"

    def client_config(self, user: str = "") -> dict[str, str]:
        """The login of a client of this cluster as ``user`` (default: the harness's own super
        user), to merge into its configuration; empty on an open cluster."""
        if not self.secured:
            return {}
        user = user or SASL_HARNESS_USER
        if user not in self._passwords:
            raise HarnessError(f"no SASL user {user!r} on this cluster; one of {', '.join(self._passwords)}")
        return security.client_config(user, self._passwords[user])

    def admin(self) -> AdminClient:
        # One client for the cluster's life: a handle dropped while its futures are pending
        # fails them with "handle destroyed".
        if self._admin is None:
            self._admin = AdminClient(
                self._own_client(
                    {
                        "socket.timeout.ms": 5000,
                        # Reconnect to a broker that refused within half a second, not up to 10 s
                        # later: a starting cluster is seen ready as soon as it is.
                        "reconnect.backoff.max.ms": 500,
                    }
                )
            )
        return self._admin

    def _own_client(self, config: dict[str, Any]) -> dict[str, Any]:
        """``config`` for a client of the harness's own: with this cluster's bootstrap servers,
        the harness's client log level and its login."""
        return {
            "bootstrap.servers": self.bootstrap_servers(),
            "log_level": HARNESS_CLIENT_LOG_LEVEL,
            **config,
            **self.client_config(),
        }

    def broker(self, node_id: int) -> Broker:
        return self.brokers[node_id]

    def ensure_transaction_log(self, timeout_s: float = 60) -> None:
        """Kafka creates ``__transaction_state`` when a transactional client first asks for its
        coordinator: a throwaway producer asks, so who coordinates which transactional.id is
        known before any app starts."""
        producer = Producer(self._own_client({"transactional.id": "__harness_transaction_log"}))
        try:
            producer.init_transactions(timeout_s)
        finally:
            producer.close()

    def ensure_offsets_topic(self, timeout_s: float = 60) -> None:
        """Kafka creates ``__consumer_offsets`` when a group's coordinator is first asked for: a
        throwaway consumer asks (for committed offsets, without joining), so who coordinates
        which group is known before any app starts."""
        consumer = Consumer(self._own_client({"group.id": "__harness_offsets"}))
        deadline = Deadline(timeout_s)  # each ask gets what is left of the wait (at least 1 s)

        def asked() -> bool:
            try:
                consumer.committed([TopicPartition(PROBE_TOPIC, 0)], timeout=max(1.0, deadline.remaining()))
            except KafkaException as exc:
                if not exc.args[0].retriable():
                    raise
                return False  # the topic is still being made: NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE
            return True

        try:
            wait_until(asked, bool, timeout_s, "__consumer_offsets to have a coordinator for a group", interval_s=0.5)
        finally:
            consumer.close()

    # --- topics and metadata ------------------------------------------------------

    def create_topic(
        self,
        name: str,
        partitions: int = 1,
        replication_factor: int = 3,
        config: dict[str, str] | None = None,
        timeout_s: float = 30,
        leaders_not_on: int | None = None,
        one_leader: bool = False,
    ) -> None:
        """``leaders_not_on``: no partition's preferred (so first) leader is that broker; it holds
        the last replica, when the replication factor reaches it. ``one_leader``: with it, every
        partition's preferred leader is the same broker (a request to it can carry them all)."""
        if leaders_not_on is None:
            new = NewTopic(name, partitions, replication_factor, config=config or {})
        else:
            others = [b for b in sorted(self.brokers) if b != leaders_not_on]
            shifts = [0] * partitions if one_leader else list(range(partitions))
            assignment = [(others[p:] + others[:p] + [leaders_not_on])[:replication_factor] for p in shifts]
            new = NewTopic(name, partitions, replica_assignment=assignment, config=config or {})
        self._create(new, timeout_s)
        for p in range(partitions):
            self.wait_for_isr(name, p, replication_factor, timeout_s)

    def _create(self, new: NewTopic, timeout_s: float) -> None:
        name = new.topic
        for attempt in range(_CREATE_ATTEMPTS):
            futures = self.admin().create_topics([new], operation_timeout=timeout_s)
            try:
                futures[name].result(timeout_s)
                break
            except KafkaException as exc:
                err = exc.args[0]
                if attempt and err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
                    break  # an earlier attempt got through after all
                # On a fresh cluster the request may go to a bootstrap connection that the
                # client is just replacing with the advertised brokers' (_DESTROY_BROKER, seen
                # in CI on a cluster's first topic): a transient failure, asked again.
                if attempt == _CREATE_ATTEMPTS - 1 or not (err.retriable() or err.code() == KafkaError._DESTROY_BROKER):
                    raise HarnessError(f"cannot create topic {name}: {err.str()}") from exc

    def health(self) -> list[str]:
        """What keeps this cluster from being as it started, for reuse across runs: brokers not
        running or not registered, the probe topic not fully in sync, toxics left on a proxy or
        a proxy left disabled. Empty: healthy."""
        problems = [f"{b.alias} is {status}" for b in self.brokers.values() if (status := b.status()) != "running"]
        try:
            registered = self.registered_brokers()
            if len(registered) != self.size:
                problems.append(f"brokers registered: {registered}")
            if len(self.isr(PROBE_TOPIC, 0)) != self.size:
                problems.append(f"{PROBE_TOPIC} in sync on {self.isr(PROBE_TOPIC, 0)} only")
        except KafkaException as exc:
            problems.append(f"metadata: {exc}")
        if self.proxies is not None:
            for name, proxy in sorted(self.proxies.proxies().items()):
                if not proxy.get("enabled", True):
                    problems.append(f"proxy {name} disabled")
                if proxy.get("toxics"):
                    problems.append(f"proxy {name} has toxics {[t['name'] for t in proxy['toxics']]}")
        return problems

    def registered_brokers(self) -> list[int]:
        return sorted(self.admin().list_topics(timeout=5).brokers)

    def wait_ready(self, timeout_s: float) -> None:
        """Ready = all brokers registered and an RF-3 probe topic fully in sync."""
        wait_until(
            self.registered_brokers,
            lambda ids: len(ids) == self.size,
            timeout_s,
            f"{self.size} brokers registered",
            abort=self._exited_brokers,
        )
        if PROBE_TOPIC not in self.admin().list_topics(timeout=5).topics:
            self.create_topic(PROBE_TOPIC, 1, self.size, timeout_s=timeout_s)
        self.wait_for_isr(PROBE_TOPIC, 0, self.size, timeout_s)

    # --- diagnostics --------------------------------------------------------------

    def _exited_brokers(self) -> str | None:
        gone = [b.alias for b in self.brokers.values() if b.status() in ("exited", "dead")]
        return f"broker container(s) exited: {', '.join(gone)}" if gone else None

    def _log_tails(self, lines: int = 30) -> str:
        parts = []
        for b in self.brokers.values():
            try:
                parts.append(f"--- {b.alias} ({b.status()}) ---\n{b.log_tail(lines)}")
            except Exception as exc:
                parts.append(f"--- {b.alias}: no logs ({exc}) ---")
        return "\n".join(parts)

    def save_logs(self, folder: Path) -> None:
        """Every container's full log into ``folder`` (attached to failed runs)."""
        folder.mkdir(parents=True, exist_ok=True)
        named = [(b.alias, b.container) for b in self.brokers.values()] + [("toxiproxy", self.toxiproxy)]
        for name, container in named:
            if container is None or container._container is None:
                continue
            try:
                (folder / f"{name}.log").write_bytes(container.get_wrapped_container().logs())
            except Exception as exc:
                (folder / f"{name}.log").write_text(f"logs unavailable: {exc}\n")
