"""``kafka-harness verify-config``: a user's broker, producer and consumer files, checked.

The report is made of sections of ``RuleFinding``s: ``static``, the rules of
``harness.configcheck.rules`` over the files alone, and the bug rules of
``harness.configcheck.bugs`` over the versions given. Unless ``--static-only``, the ``dynamic``
part (``harness.configcheck.dynamic``) runs the files' settings in scenario pairs on a cluster
of their own per Kafka version and adds one row per scenario and version: held, violated,
unavailable, unknown or inconclusive; and one per bug rule that fired and version it holds for, its
pair run with the guarantee on the user's versions.

Exit status: 0 when no finding is an error and no dynamic row is violated, 1 otherwise
(a CI job can gate on it), 2 for bad input (raised as ``HarnessError``: one line naming
the file and line, the unknown scenario or the unknown version).

JSON (``SCHEMA``)::

    schema          "kafka-eos-harness/verify-config/1"
    brokers         brokers the cluster has (--brokers)
    transactional   whether the pipeline is checked as transactional, and why
    files           kind -> {path, read_by: components assumed to read it}
    versions        kafka: the brokers' releases (--kafka-version; empty: not given),
                    clients: each client checked, with its release and where it came from
    <section>       [finding: {rule, severity, scenarios, file (a bug rule's on versions:
                    the options they came from), line (null: not set, the default applies),
                    what, fix, applies_to}], errors first; "static"
    dynamic         (unless --static-only) applied: {broker, broker_kafka_defaults,
                    producer, consumer_view, notes: kind -> [what was translated or
                    ignored]}, versions: version -> {transaction_protocol: {protocol,
                    transaction.version, source}, wall_s}, rows: [{scenario, title, fault,
                    version, outcome, reason, counts: {control, guarantee: anomaly ->
                    count}, example (first forbidden anomaly's, or null), run_dir,
                    producer (whose producer settings the guarantee ran), bug (a bug
                    row's rule id, else empty)}]
    skipped_rules   rule id -> what it needed and was not given: the file (--broker) or
                    the versions (--kafka-version, --client java==VERSION, ...)
    counts          severity -> findings over every section
    exit_status     0 or 1, as the command exits
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.configcheck import bugs, dynamic
from harness.configcheck.rulebook import Configs, RuleFinding, Severity
from harness.configcheck.rules import check_static
from harness.errors import HarnessError
from harness.kafkaconfig import catalogue
from harness.kafkaconfig.catalogue import Component, ConfigFile, Kind
from harness.versions import kafka as kafka_release
from harness.workloads.clients import ClientSpec

SCHEMA = "kafka-eos-harness/verify-config/1"
_SEVERITY_ORDER = list(Severity)
_COLUMNS = ("SEVERITY", "RULE", "SCENARIO", "APPLIES TO", "WHERE")  # WHERE, the widest, last


@dataclass
class Report:
    files: dict[Kind, ConfigFile]
    brokers: int
    transactional: str  # why the pipeline is checked as transactional; empty if it is not
    sections: dict[str, list[RuleFinding]]  # section name -> findings, errors first
    skipped_rules: dict[str, str]  # rule id -> the options it lacked ("--broker", "--kafka-version")
    kafka_versions: list[str]  # --kafka-version: the brokers' releases the bug rules read
    clients: list[bugs.UserClient]  # the clients the bug rules read
    dynamic: dynamic.Dynamic | None = None  # the scenario runs, unless --static-only

    def count(self, severity: Severity) -> int:
        return sum(f.severity is severity for findings in self.sections.values() for f in findings)

    def exit_status(self) -> int:
        return 1 if self.count(Severity.ERROR) or (self.dynamic and self.dynamic.violated()) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "brokers": self.brokers,
            "transactional": {"value": bool(self.transactional), "why": self.transactional},
            "files": {
                str(kind): {"path": str(cfg.path), "read_by": [str(c) for c in cfg.readers]}
                for kind, cfg in self.files.items()
            },
            "versions": {"kafka": self.kafka_versions, "clients": [str(c) for c in self.clients]},
            **{name: [f.to_json() for f in findings] for name, findings in self.sections.items()},
            **({"dynamic": self.dynamic.to_json()} if self.dynamic else {}),
            "skipped_rules": self.skipped_rules,
            "counts": {str(s): self.count(s) for s in Severity},
            "exit_status": self.exit_status(),
        }

    def table(self, width: int | None = None) -> str:
        """The report for a terminal: files, then per section a row per finding with its
        explanation and fix wrapped underneath."""
        width = width or shutil.get_terminal_size((100, 24)).columns
        pipeline = f"transactional ({self.transactional})" if self.transactional else "not transactional"
        lines = [f"{self.brokers} brokers; pipeline {pipeline}"]
        for kind, cfg in self.files.items():
            lines.append(f"  {kind:<9} {cfg.path}  (read by {', '.join(cfg.readers)})")
        kafka = ", ".join(self.kafka_versions) or "not given (--kafka-version)"
        lines.append(f"  versions  Kafka {kafka}; clients {', '.join(str(c) for c in self.clients)}")
        for name, findings in self.sections.items():
            lines += ["", f"{name} checks"]
            lines += _rows(findings, width) if findings else ["  no findings"]
        for rule, needs in self.skipped_rules.items():
            lines.append(f"skipped {rule}: needs {needs}")
        if self.dynamic:
            lines += _dynamic_table(self.dynamic, width)
        counts = ", ".join(
            f"{self.count(s)} {s}{'s' if s is not Severity.INFO and self.count(s) != 1 else ''}" for s in Severity
        )
        if self.dynamic:
            counts += ", " + ", ".join(
                f"{sum(r.outcome == o for r in self.dynamic.rows)} {o}" for o in dynamic.OUTCOMES
            )
        lines += ["", f"{counts}; exit status {self.exit_status()}"]
        return "\n".join(lines)


def _rows(findings: list[RuleFinding], width: int) -> list[str]:
    cells = [
        (
            str(f.severity),
            f.rule,
            "/".join(f.scenarios) or "-",
            ", ".join(f.applies_to),
            f.where,
        )
        for f in findings
    ]
    widths = [max(len(row[i]) for row in [_COLUMNS, *cells]) for i in range(len(_COLUMNS))]
    indent = " " * (widths[0] + 2)

    def row(values: tuple[str, ...]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()

    lines = [row(_COLUMNS)]
    for f, values in zip(findings, cells, strict=True):
        lines.append(row(values))
        for text in (f.what, f"fix: {f.fix}"):
            lines += textwrap.wrap(
                text, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False
            )
    return lines


def _dynamic_table(d: dynamic.Dynamic, width: int) -> list[str]:
    """The terminal form: what was applied, then a row per scenario with a column per
    version, and under it the title, the fault and each version's reason."""
    versions = list(d.versions)
    lines = ["", "dynamic checks (guarantee x fault; each against its own control on the same cluster)"]

    def wrap(text: str, indent: str = "  ") -> list[str]:
        return textwrap.wrap(
            text, width, initial_indent=indent, subsequent_indent=indent + "  ", break_on_hyphens=False
        )

    for v, info in d.versions.items():
        tp = info["transaction_protocol"]
        proto = f"v{tp['protocol']} (transaction.version={tp['transaction.version']})" if tp["protocol"] else "?"
        lines += wrap(f"Kafka {v}: transaction protocol {proto}, {tp['source']}; {info['wall_s']:.0f}s")
    a = d.applied
    lines += wrap("broker applied: " + (", ".join(f"{k}={v}" for k, v in a.broker.items()) or "nothing"))
    if a.broker_defaults:
        lines += wrap(
            "Kafka defaults (not set in the file): " + ", ".join(f"{k}={v}" for k, v in a.broker_defaults.items())
        )
    client = f"{a.client}=={a.client_version}" if a.client_version else a.client
    lines += wrap(f"producer ({client}): " + (", ".join(f"{k}={v}" for k, v in a.producer.items()) or "defaults"))
    lines.append(f"  consumer view: {a.consumer_view}")
    for kind, notes in a.notes.items():
        for what, names in notes.items():
            lines += wrap(f"{kind} {what}" + (f": {', '.join(names)}" if names else ""))
    by_scenario: dict[str, dict[str, dynamic.Row]] = {}
    for r in d.rows:
        # A bug row apart from a scenario row of the same pair (--scenarios B9 and KAFKA-17754's row).
        by_scenario.setdefault(f"{r.scenario} ({r.bug})" if r.bug else r.scenario, {})[r.version] = r
    head = ("SCENARIO", *(f"Kafka {v}" for v in versions))
    cells = [(sid, *(rs[v].outcome if v in rs else "-" for v in versions)) for sid, rs in by_scenario.items()]
    widths = [max(len(c[i]) for c in [head, *cells]) for i in range(len(head))]
    lines += ["", "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)).rstrip()]
    indent = " " * (widths[0] + 2)
    for rs, values in zip(by_scenario.values(), cells, strict=True):
        lines.append("  ".join(c.ljust(w) for c, w in zip(values, widths, strict=True)).rstrip())
        first = next(iter(rs.values()))
        for text in (first.title, f"fault: {first.fault}", f"producer: {first.producer}"):
            lines += wrap(text, indent)
        for v, r in rs.items():
            lines += wrap(f"{v}: {r.reason}" + (f"; e.g. {r.example}" if r.example else ""), indent)
    return lines


def verify(
    paths: Mapping[Kind, Path],
    *,
    brokers: int,
    transactional: bool,
    client: ClientSpec | None = None,
    kafka_versions: Sequence[str] = (),
) -> Report:
    """The static report on the given files (at least one), with the bug rules on
    ``kafka_versions`` (the brokers') and ``client`` (its release, if it says one)."""
    if not paths:
        raise HarnessError("nothing to check: give at least one of --broker, --producer, --consumer FILE")
    if brokers < 1:
        raise HarnessError(f"--brokers must be 1 or more, not {brokers}")
    for v in kafka_versions:
        kafka_release(v)
    reader = Component(client.name) if client else None
    files = {kind: catalogue.load(paths[kind], kind, reader) for kind in Kind if kind in paths}
    configs = Configs(files, brokers, transactional)
    findings, skipped = check_static(configs)
    bug_findings, bugs_skipped = bugs.check_bugs(files, list(kafka_versions), client, configs.transactional)
    findings += bug_findings
    if transactional:
        why = "--transactional"
    elif configs.transactional:
        why = "the producer sets transactional.id"
    else:
        why = ""
    order = {str(cfg.path): i for i, cfg in enumerate(files.values())}
    findings.sort(key=lambda f: (_SEVERITY_ORDER.index(f.severity), order.get(f.file, len(order)), f.line or 0))
    lacking = {r.id: f"--{next(k for k in r.needs if k not in files)}" for r in skipped}
    clients = bugs.user_clients(files, client)
    return Report(files, brokers, why, {"static": findings}, {**lacking, **bugs_skipped}, list(kafka_versions), clients)
