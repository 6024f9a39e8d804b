"""What a static rule over a user's broker, producer and consumer configs is (``Rule``), what
it reads (``Configs``) and finds (``Hit``, ``RuleFinding``), and how rules word a setting (``shown``).
The rules themselves are in ``broker_rules``, ``producer_rules``, ``consumer_rules`` and
``file_rules``; ``harness.configcheck.rules`` runs them all.

Each rule has an id, a severity, the scenarios (``scenarios/``, docs/scenarios.md) whose failure
it predicts, the files it needs, and a check whose docstring is the rule's reason in one
sentence. A check reports ``Hit``s; ``check_static`` stamps them with the rule into
``RuleFinding``s, the unit of the report (the dynamic run on the cluster will report the same
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

from harness.kafkaconfig.catalogue import ACKS_ALL, Component, ConfigFile, Entry, Kind, Value

B, J, L = Component.BROKER, Component.JAVA, Component.LIBRDKAFKA
BROKER, PRODUCER, CONSUMER = Kind.BROKER, Kind.PRODUCER, Kind.CONSUMER


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class RuleFinding:
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
        return self.transactional_flag or bool(producer and transactional_id(producer))


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


def registering_into(rules: list[Rule]) -> Callable[..., Callable[[Check], Check]]:
    """The decorator a module of rules declares its checks with, each appended to ``rules``."""

    def rule(
        id: str, severity: Severity, scenarios: tuple[str, ...] = (), needs: tuple[Kind, ...] = ()
    ) -> Callable[[Check], Check]:
        def register(check: Check) -> Check:
            rules.append(Rule(id, severity, scenarios, needs, check))
            return check

        return register

    return rule


def fmt(value: Value | None) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def num(value: Value | None) -> float:
    # Only numeric settings get here, and each one a rule reads has a default.
    return float(value) if isinstance(value, int | float) else 0.0


_WHOSE = {B: "Kafka's", J: "the Java client's", L: "librdkafka's"}


def shown(cfg: ConfigFile, key: str, reader: Component) -> str:
    """``name=value`` as the file sets it, or the default and whose it is."""
    e = cfg.entry(key, reader)
    if e:
        return f"{e.name}={e.raw.strip()}"
    value = "all" if key == "acks" and cfg.value(key, reader) == ACKS_ALL else fmt(cfg.value(key, reader))
    # Where both clients default alike, one text for both lets their findings merge.
    shared = len({cfg.value(key, r) for r in cfg.readers}) == 1 < len(cfg.readers)
    whose = "both clients'" if shared else _WHOSE[reader]
    return f"{key}={value} ({whose} default; not set)"


def line_of(cfg: ConfigFile, key: str, reader: Component) -> int | None:
    e = cfg.entry(key, reader)
    return e.line if e else None


def transactional_id(producer: ConfigFile) -> Entry | None:
    return next((e for c in producer.readers if (e := producer.entry("transactional.id", c))), None)


def explicit(p: ConfigFile, key: str) -> Iterator[tuple[Entry, Component]]:
    """The entry each client of the file takes for ``key``, where the file sets it."""
    for reader in p.readers:
        e = p.entry(key, reader)
        if e:
            yield e, reader
