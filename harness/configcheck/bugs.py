"""The bugs the regression pairs reproduce, as one table (``BUGS``), and how a user's versions
meet it.

Each ``Bug`` says which releases or settings it needs (a ``BugCondition`` over the brokers' Kafka
version, the client and its release, and the broker file), when it matters, which release
fixes it and which scenario pair shows it. From the table come, with nothing written twice:

- a static rule per bug (``check_bugs``): a finding when the user's versions are affected,
  ``error`` for lost, repeated or wrongly visible records, ``warning`` for a fatal error or a
  stall; skipped, saying which option would tell, when the versions given cannot decide;
- the dynamic run's bug rows (``harness.configcheck.dynamic``): the pair with its guarantee
  on the user's versions (``on_user_versions``);
- the table in docs/verify-config.md (``markdown``; a test keeps the doc current).

Versions come from the command line, never from the files (``.properties`` files have no
field for the release that reads them): the brokers' from ``--kafka-version``; the client's
from ``--client librdkafka==2.1.0`` / ``java==3.7.1``. librdkafka without a release is the
confluent-kafka installed with the harness (its ``libversion()``); a Java client without
one is unknown. Without ``--client`` the clients the producer and consumer files are read as
(``harness.kafkaconfig.catalogue``) are each checked.

Transaction protocol 2 (KIP-890) needs Kafka 4.0+ brokers whose cluster finalized
``transaction.version=2`` (a new 4.x cluster does; an upgraded one keeps 1 until
``kafka-features.sh upgrade``) and a Java client 4.0+: ``TV1`` treats brokers 4.0+ with a
Java client 4.0+ as protocol 2, which the files cannot confirm.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache
from typing import TYPE_CHECKING, Protocol

from harness.configcheck.rulebook import RuleFinding, Severity
from harness.kafkaconfig.catalogue import Component, ConfigFile, Kind, Value
from harness.versions import key
from harness.workloads.clients import JAVA, LIBRDKAFKA, ClientSpec

if TYPE_CHECKING:
    from harness.scenario import Scenario

B = Component.BROKER


@dataclass(frozen=True)
class Range:
    """Releases from ``first`` (empty: every earlier one) to ``last`` inclusive, or up to but
    not including ``before`` (empty both: every later one)."""

    first: str = ""
    last: str = ""
    before: str = ""

    def __contains__(self, version: object) -> bool:
        v = key(str(version))
        return (
            (not self.first or v >= key(self.first))
            and (not self.last or v <= key(self.last))
            and (not self.before or v < key(self.before))
        )

    def __str__(self) -> str:
        if self.first and self.first == self.last:
            return self.first
        if self.first and self.last:
            return f"{self.first}-{self.last}"
        bounds = (f"from {self.first}" if self.first else "", f"up to {self.last}" if self.last else "")
        shown = " ".join(b for b in (*bounds, f"before {self.before}" if self.before else "") if b)
        return shown or "every release"


def _ranges(ranges: tuple[Range, ...]) -> str:
    return ", ".join(str(r) for r in ranges)


@dataclass(frozen=True)
class UserClient:
    """The client a user's apps run on, as far as the options and files tell."""

    name: str  # harness.workloads.clients.LIBRDKAFKA or JAVA
    version: str  # the release the bug ranges are compared with; "": unknown
    source: str  # where the release came from, for the report

    @property
    def spec(self) -> ClientSpec:
        """What a bug row runs: that release, or the harness's own confluent-kafka (the
        installed one) or the cluster's Java client."""
        return ClientSpec(self.name, self.version if self.source == "--client" else "")

    def __str__(self) -> str:
        release = self.version or "of an unknown release"
        return f"{self.name} {release} ({self.source})"


@dataclass(frozen=True)
class Facts:
    """What one check of a bug knows: one broker release (None: not given), one client and the
    broker file (None: not given)."""

    broker: str | None
    client: UserClient
    broker_file: ConfigFile | None


class BugCondition(Protocol):
    def holds(self, f: Facts) -> bool | None:
        """Whether the facts are affected; None when they cannot say."""

    def needs(self, f: Facts) -> list[str]:
        """The options that would decide it, where ``holds`` cannot."""

    def __str__(self) -> str: ...


@dataclass(frozen=True)
class BrokerRelease:
    ranges: tuple[Range, ...]

    def holds(self, f: Facts) -> bool | None:
        return None if f.broker is None else any(f.broker in r for r in self.ranges)

    def needs(self, f: Facts) -> list[str]:
        return ["--kafka-version"] if f.broker is None else []

    def __str__(self) -> str:
        return f"Kafka {_ranges(self.ranges)}"


@dataclass(frozen=True)
class Client:
    name: str
    ranges: tuple[Range, ...] = ()  # empty: every release

    def holds(self, f: Facts) -> bool | None:
        if f.client.name != self.name:
            return False
        if not self.ranges:
            return True
        return None if not f.client.version else any(f.client.version in r for r in self.ranges)

    def needs(self, f: Facts) -> list[str]:
        return [f"--client {self.name}==VERSION"] if self.holds(f) is None else []

    def __str__(self) -> str:
        who = "librdkafka" if self.name == LIBRDKAFKA else "Java clients"
        return f"{who} {_ranges(self.ranges)}" if self.ranges else f"any {who.removesuffix('s')}"


@dataclass(frozen=True)
class BrokerSetting:
    key: str
    value: Value

    def holds(self, f: Facts) -> bool | None:
        return None if f.broker_file is None else f.broker_file.value(self.key, B) == self.value

    def needs(self, f: Facts) -> list[str]:
        return ["--broker"] if f.broker_file is None else []

    def __str__(self) -> str:
        shown = str(self.value).lower() if isinstance(self.value, bool) else self.value
        return f"{self.key}={shown}"


@dataclass(frozen=True)
class AllOf:
    parts: tuple[BugCondition, ...]

    def holds(self, f: Facts) -> bool | None:
        seen = [p.holds(f) for p in self.parts]
        return False if False in seen else None if None in seen else True

    def needs(self, f: Facts) -> list[str]:
        return [] if self.holds(f) is False else [n for p in self.parts for n in p.needs(f)]

    def __str__(self) -> str:
        return " and ".join(f"({p})" if isinstance(p, AnyOf) else str(p) for p in self.parts)


@dataclass(frozen=True)
class AnyOf:
    parts: tuple[BugCondition, ...]

    def holds(self, f: Facts) -> bool | None:
        seen = [p.holds(f) for p in self.parts]
        return True if True in seen else None if None in seen else False

    def needs(self, f: Facts) -> list[str]:
        return [] if self.holds(f) is True else [n for p in self.parts for n in p.needs(f)]

    def __str__(self) -> str:
        return " or ".join(str(p) for p in self.parts)


# Transaction protocol 1, in which EndTxn names no transaction and the epoch stays the same
# from one transaction to the next: every path but a Java client 4.0+ on brokers 4.0+.
TV1 = AnyOf((BrokerRelease((Range(before="4.0.0"),)), Client(LIBRDKAFKA), Client(JAVA, (Range(before="4.0.0"),))))
VERIFICATION = "transaction.partition.verification.enable"


@dataclass(frozen=True)
class Bug:
    id: str  # the tracker's id
    link: str
    title: str
    component: str
    affected: BugCondition
    fixed: str  # the releases (or setting) that fix it
    fix: str  # what the user should do
    effect: str  # what goes wrong, one sentence
    matters: str  # for which apps
    pair: str  # the scenario pair that shows it
    severity: Severity
    transactional: bool  # it matters only to a transactional pipeline
    rule_suffix: str = ""

    @property
    def rule(self) -> str:
        return "bug." + self.id.lower().replace("#", "-") + self.rule_suffix


BUGS: tuple[Bug, ...] = (
    Bug(
        "KAFKA-14402",
        "https://issues.apache.org/jira/browse/KAFKA-14402",
        "a late Produce after an abort joins the producer's next transaction",
        "broker: partition leaders (transaction verification, KIP-890 part 1)",
        BrokerRelease((Range(before="3.6.1"),)),
        "3.6.1",
        "upgrade the brokers to 3.6.1 or later and keep transaction.partition.verification.enable=true (3.6.0 "
        "added verification with KAFKA-15653, whose upgrade notes say to turn it off)",
        "a transactional Produce held up past its client's timeout reaches the partition leader after the "
        "transaction was aborted and opens a transaction the coordinator knows nothing of: the producer's next "
        "commit makes the aborted records visible, or read_committed readers stall for good.",
        "transactional producers, any client",
        "R1",
        Severity.ERROR,
        True,
    ),
    Bug(
        "KAFKA-14402",
        "https://issues.apache.org/jira/browse/KAFKA-14402",
        "with partition verification off, a late Produce after an abort joins the next transaction",
        "broker setting: transaction.partition.verification.enable",
        AllOf((BrokerSetting(VERIFICATION, False), TV1)),
        "transaction.partition.verification.enable=true, the default since 3.6.0 (3.6.1: KAFKA-15653)",
        "remove transaction.partition.verification.enable=false, on brokers 3.6.1 or later",
        "without verification a partition leader takes a late transactional Produce of an aborted transaction "
        "into a new one the coordinator knows nothing of: records read though aborted, or readers stalled; "
        "clients on transaction protocol 1 have no other defence.",
        "transactional producers on transaction protocol 1: any librdkafka, Java clients before 4.0, any client "
        "on brokers before 4.0",
        "R2",
        Severity.ERROR,
        True,
        "-verification-off",
    ),
    Bug(
        "librdkafka#4261",
        "https://github.com/confluentinc/librdkafka/pull/4261",
        "learning a partition's leader epoch makes the consumer deliver fetched messages twice",
        "librdkafka consumer: offset validation (KIP-320)",
        Client(LIBRDKAFKA, (Range("2.1.0", "2.1.0"),)),
        "librdkafka 2.1.1",
        "use confluent-kafka (librdkafka) 2.1.1 or later",
        "when a metadata refresh shows a higher leader epoch, the consumer goes back to the application's "
        "position while the messages it had already fetched beyond it are still delivered: they come twice, "
        "and a consume-transform-produce app commits outputs for both.",
        "every librdkafka consumer, transactional or not",
        "R3",
        Severity.ERROR,
        False,
    ),
    Bug(
        "KAFKA-16386",
        "https://issues.apache.org/jira/browse/KAFKA-16386",
        "a lost transaction verification is fatal to the Java client's transactional offset commit",
        "broker: group coordinator (TxnOffsetCommit verification) x Java client",
        AllOf((BrokerRelease((Range("3.7.0", "3.7.0"),)), Client(JAVA))),
        "3.7.1",
        "upgrade the brokers to 3.7.1 or later",
        "when the broker's check of an offset commit with the transaction coordinator is disconnected, it "
        "answers NETWORK_EXCEPTION, which the Java producer's offset-commit handler treats as fatal: the "
        "consume-transform-produce app or Streams thread stops.",
        "Java clients that commit offsets in transactions (sendOffsetsToTransaction; Kafka Streams)",
        "R4",
        Severity.WARNING,
        True,
    ),
    Bug(
        "KAFKA-19690",
        "https://issues.apache.org/jira/browse/KAFKA-19690",
        "a write held behind a verification past a timeout abort gets the fatal INVALID_TXN_STATE",
        "broker: partition leaders (verification of a Produce, KIP-890 part 1)",
        BrokerRelease((Range("3.6.0", "3.9.1"), Range("4.0.0", "4.0.1"), Range("4.1.0", "4.1.0"))),
        "3.9.2, 4.0.2, 4.1.1, 4.2.0",
        "upgrade the brokers to 3.9.2, 4.0.2, 4.1.1, 4.2.0 or later",
        "a Produce waiting for verification when the coordinator aborts the transaction (its timeout) is refused "
        "with INVALID_TXN_STATE instead of INVALID_PRODUCER_EPOCH: fatal to the Java producer, and a Kafka "
        "Streams thread dies instead of rebuilding its producer.",
        "transactional producers, most of all the Java client and Kafka Streams",
        "R5",
        Severity.WARNING,
        True,
    ),
    Bug(
        "KAFKA-17754",
        "https://issues.apache.org/jira/browse/KAFKA-17754",
        "a late EndTxn, resent over another connection, ends the next transaction",
        "transaction protocol 1 (coordinator and client)",
        TV1,
        "transaction protocol 2: Java clients 4.0+ on brokers 4.0+ with transaction.version=2; no librdkafka "
        "release (its issue 5423)",
        "run Java clients 4.0 or later on brokers 4.0 or later with transaction.version=2 finalized",
        "under transaction protocol 1 an EndTxn names only the producer id and epoch, which stay the same from "
        "one transaction to the next: a late copy commits or aborts the next transaction part-way (torn "
        "transactions, records read though aborted).",
        "transactional producers on protocol 1 (a 4.x cluster upgraded without transaction.version=2 too)",
        "B9",
        Severity.ERROR,
        True,
    ),
)


# --- the user's versions ----------------------------------------------------------------


@cache
def installed_librdkafka() -> str:
    """The librdkafka of the confluent-kafka installed with the harness."""
    import confluent_kafka

    return str(confluent_kafka.libversion()[0])


def user_clients(files: Mapping[Kind, ConfigFile], given: ClientSpec | None) -> list[UserClient]:
    """The clients to check: ``--client``'s, else those the producer and consumer files are read
    as (both when there are neither)."""
    if given:
        names: Iterable[str] = (given.name,)
    else:
        readers = {r for kind in (Kind.PRODUCER, Kind.CONSUMER) if kind in files for r in files[kind].readers}
        names = [c for c in (LIBRDKAFKA, JAVA) if not readers or Component(c) in readers]
    found = []
    for name in names:
        if given and given.version:
            found.append(UserClient(name, given.version, "--client"))
        elif name == LIBRDKAFKA:
            found.append(UserClient(name, installed_librdkafka(), "installed confluent-kafka"))
        else:
            found.append(UserClient(name, "", "--client gave no release" if given else "the files' client"))
    return found


# --- the static rules -------------------------------------------------------------------


def _affected(
    bug: Bug, brokers: list[str | None], clients: list[UserClient], broker_file: ConfigFile | None
) -> Iterator[tuple[Facts, bool | None, list[str]]]:
    """Every (facts, holds, needs) of ``bug`` over the brokers and clients given."""
    for broker in brokers:
        for client in clients:
            f = Facts(broker, client, broker_file)
            yield f, bug.affected.holds(f), bug.affected.needs(f)


def _leaves(condition: BugCondition) -> list[BugCondition]:
    if isinstance(condition, AllOf | AnyOf):
        return [leaf for p in condition.parts for leaf in _leaves(p)]
    return [condition]


def _names(condition: BugCondition, kind: type) -> bool:
    """Whether the condition reads that kind of fact (``BrokerRelease``, ``Client``, ``BrokerSetting``)."""
    return any(isinstance(leaf, kind) for leaf in _leaves(condition))


def _by(bug: Bug, kind: type, f: Facts) -> bool:
    """Whether a fact of that kind is among what makes ``bug`` hold for ``f``."""
    return any(isinstance(leaf, kind) and leaf.holds(f) for leaf in _leaves(bug.affected))


def _shown(bug: Bug, f: Facts) -> str:
    parts = (f"Kafka {f.broker}" if _by(bug, BrokerRelease, f) else "", str(f.client) if _by(bug, Client, f) else "")
    return ", ".join(p for p in parts if p)


def _where(bug: Bug, hit: list[Facts], broker_file: ConfigFile | None) -> tuple[str, int | None]:
    """The broker file's line for a setting bug; else where the versions that hold came from."""
    setting = next((leaf for leaf in _leaves(bug.affected) if isinstance(leaf, BrokerSetting)), None)
    if setting and broker_file:
        e = broker_file.entry(setting.key, B)
        return str(broker_file.path), e.line if e else None
    brokers = sorted({f.broker for f in hit if f.broker and _by(bug, BrokerRelease, f)}, key=key)
    clients = dict.fromkeys(
        f"--client {f.client.spec}" if f.client.source == "--client" else f.client.source
        for f in hit
        if _by(bug, Client, f)
    )
    return "; ".join([*(["--kafka-version " + ",".join(brokers)] if brokers else []), *clients]), None


def check_bugs(
    files: Mapping[Kind, ConfigFile], brokers: list[str], client: ClientSpec | None, transactional: bool
) -> tuple[list[RuleFinding], dict[str, str]]:
    """A finding per bug of ``BUGS`` the versions are affected by, and the rules that could not
    tell (rule id -> the options that would)."""
    findings: list[RuleFinding] = []
    skipped: dict[str, str] = {}
    clients = user_clients(files, client)
    broker_file = files.get(Kind.BROKER)
    for bug in BUGS:
        if bug.transactional and not transactional:
            if Kind.PRODUCER not in files:
                skipped[bug.rule] = "--transactional (or --producer with a transactional.id)"
            continue
        seen = list(_affected(bug, [*brokers] or [None], clients, broker_file))
        hit = [f for f, holds, _ in seen if holds]
        if not hit:
            needs = dict.fromkeys(n for _, holds, ns in seen if holds is None for n in ns)
            if needs:
                skipped[bug.rule] = " or ".join(needs)
            continue
        applies = tuple(dict.fromkeys(Component(f.client.name) for f in hit))
        if not _names(bug.affected, Client):
            applies = (B,)
        file, line = _where(bug, hit, broker_file)
        what = (
            f"{bug.id}: {bug.title}. {bug.effect[0].upper()}{bug.effect[1:]} Affected: {bug.affected}; "
            f"here: {'; '.join(dict.fromkeys(_shown(bug, f) for f in hit))}. It matters for {bug.matters} "
            f"({bug.link})."
        )
        fix = f"{bug.fix} (fixed: {bug.fixed}); `kafka-harness run {bug.pair}` shows the bug"
        findings.append(
            RuleFinding(bug.rule, bug.severity, (bug.pair,), file, line, what, fix, applies, on_versions=True)
        )
    return findings, skipped


# --- the dynamic bug rows ---------------------------------------------------------------


def affects(bug: Bug, broker: str, clients: list[UserClient], broker_file: ConfigFile | None) -> UserClient | None:
    """The first client with which ``broker`` is affected by ``bug``, or None."""
    return next((c for c in clients if bug.affected.holds(Facts(broker, c, broker_file))), None)


def on_user_versions(bug: Bug, broker: str, client: UserClient, broker_file: ConfigFile | None) -> Scenario:
    """``bug``'s pair with its guarantee on the user's versions: their Kafka ``broker``, their
    client where the bug depends on the client, their value of the bug's broker setting. The
    control stays the affected release; a side that pins no Kafka version gets ``broker``, so
    that nothing runs on the cluster the user's broker file configures."""
    import scenarios

    pair = scenarios.get(bug.pair)
    settings = {
        leaf.key: str(broker_file.value(leaf.key, B)).lower()
        for leaf in _leaves(bug.affected)
        if isinstance(leaf, BrokerSetting) and broker_file is not None
    }
    guarantee = replace(
        pair.guarantee,
        kafka_version=broker,
        broker_settings={**pair.guarantee.broker_settings, **settings},
        client=str(client.spec) if _names(bug.affected, Client) else pair.guarantee.client,
    )
    control = pair.control if pair.control.kafka_version else replace(pair.control, kafka_version=broker)
    return replace(pair, control=control, guarantee=guarantee)


# --- the documentation ------------------------------------------------------------------


def markdown() -> str:
    """The table of docs/verify-config.md."""
    rows = [
        "| rule | severity | pair | bug | component | affected | fixed in | matters for |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for b in BUGS:
        cells = (f"`{b.rule}`", str(b.severity), b.pair, f"[{b.id}]({b.link}): {b.title}", b.component)
        rows.append("| " + " | ".join((*cells, str(b.affected), b.fixed, b.matters)) + " |")
    return "\n".join(rows)
