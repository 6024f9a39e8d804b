"""The dynamic half of ``verify-config``: the user's files run through scenario pairs.

Per Kafka version, one cluster of its own is started with the user's broker settings and
every chosen scenario runs on it as a pair: the scenario's own control, unchanged (so we
know the fault bites on this cluster), and the guarantee with the user's producer and
consumer settings in place of the scenario's. Each pair becomes one row per version:

- **violated**: the guarantee showed an anomaly it forbids (count and first example);
- **unavailable**: the user's producer could not deliver: its client refused the
  configuration or could not start transactions, or fewer than half of the records the
  scenario means to send were acknowledged (``MIN_ACKED_SHARE``: the app gave up, crashed
  or stalled); nothing forbidden was seen, but nothing was shown to hold either;
- **unknown**: a side's checker raised or a check could not tell (the pair's ``Outcome.UNKNOWN``):
  a violation may be there unseen;
- **inconclusive**: the control did not show its anomaly, or a fault step failed: the
  fault did not bite, so a clean guarantee proves nothing;
- **held**: the guarantee was clean and the control showed its anomaly.

A bug rule that fired (``harness.configcheck.bugs``) adds a row per Kafka version it holds
for: the bug's pair with its guarantee on the user's versions and its control on the affected
release (``bugs.on_user_versions``), every side on a cluster of its own with the harness's
settings (the user's files are not applied, only their versions). It is **held** when the pair
passes (the user's versions are clear of the bug the control shows), **violated** when the
guarantee fails as the control does, **unknown** when a side could not be told, and
**inconclusive** when the control shows nothing.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Any

from harness import provision
from harness.cluster import features, images
from harness.configcheck import apply, bugs
from harness.configcheck.rulebook import RuleFinding
from harness.errors import HarnessError
from harness.kafkaconfig.catalogue import ConfigFile, Kind
from harness.progress import say
from harness.scenario import Scenario
from harness.settings import Settings
from harness.verdict.document import FORBIDDEN, PairVerdict
from harness.verdict.outcome import Outcome
from harness.versions import kafka as kafka_release
from harness.workloads.clients import ClientSpec
from harness.workloads.producer import ProducerWorkload
from harness.workloads.spark import SparkWorkload

DEFAULT_SCENARIOS = ("A1", "A3", "B3")
OUTCOMES = ("held", "violated", "unavailable", "unknown", "inconclusive")
MIN_ACKED_SHARE = 0.5

# Client findings that mean the producer never got going, not that a guarantee broke.
_STARTUP_FINDINGS = ("config_error", "txn_init_failed")


def choose(ids: list[str]) -> list[Scenario]:
    """The scenarios to run; a HarnessError (exit 2) for an unknown or unsuitable one."""
    import scenarios

    chosen = []
    for sid in ids:
        s = scenarios.get(sid)
        if not isinstance(s.workload, ProducerWorkload) or s.research or s.guarantee.acls:
            why = (
                "a research scenario"
                if s.research
                else "about ACLs on a secured cluster of its own, not your files"
                if s.guarantee.acls
                else "a Spark streaming job, not a producer file"
                if isinstance(s.workload, SparkWorkload)
                else "a consume-transform-produce pipeline, not a producer file"
            )
            raise HarnessError(f"scenario {s.id} cannot run with your files: it is {why}; choose a producer scenario")
        chosen.append(s)
    return chosen


@dataclass
class Row:
    scenario: str
    title: str
    fault: str
    version: str
    outcome: str
    reason: str
    counts: dict[str, dict[str, int]]  # side -> judged anomaly -> count
    example: dict[str, Any] | None
    run_dir: str
    producer: str = "yours"  # whose producer settings the guarantee ran
    bug: str = ""  # a bug row's rule (harness.configcheck.bugs)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def fault_of(s: Scenario) -> str:
    steps = s.schedule
    held = [f" for {st.duration_s:g}s" if st.duration_s else "" for st in steps]
    return "; ".join(st.fault.describe() + d for st, d in zip(steps, held, strict=True)) if steps else "none"


def row(pair: PairVerdict, s: Scenario, version: str, producer: str) -> Row:
    """The pair's outcome, first match of violated, unavailable, unknown, inconclusive, held: a
    forbidden anomaly counts however badly the producer did, and a producer that could not
    deliver makes a clean result meaningless even when the control showed its anomaly (but a
    checker that raised counted nothing, so its sides are unknown before their counts say
    unavailable)."""
    g, c = pair.guarantee, pair.control
    counts = {side.variant: {a: side.count(a) for a in side.expect} for side in (c, g)}
    broken = [a for a, rule in g.expect.items() if rule == FORBIDDEN and a not in _STARTUP_FINDINGS and g.count(a)]
    stats = g.result.stats
    planned = s.workload.count if isinstance(s.workload, ProducerWorkload) else stats["sent"]
    setup = [r["setup_error"] for r in g.record.workload if "setup_error" in r]
    example = None
    if broken:
        a = broken[0]
        found = g.result.anomalies.get(a)
        example = found.examples[0] if found and found.examples else None
        outcome, reason = "violated", ", ".join(f"{g.count(x)} {x}" for x in broken)
    elif setup:
        e = setup[0]
        kind = "refused the configuration" if e["config"] else f"failed at {e['stage']}"
        outcome, reason = "unavailable", f"the client {kind}: {e['error']}: {e['message']}"
    elif pair.outcome == Outcome.UNKNOWN:
        outcome, reason = "unknown", "; ".join(c.reasons + g.reasons)
    elif stats["acknowledged"] < MIN_ACKED_SHARE * planned:
        stopped = [f"{r['app']} exited {r.get('exit')}" for r in g.record.workload if "outcomes" not in r]
        outcome = "unavailable"
        reason = f"only {stats['acknowledged']} of {planned} records acknowledged ({stats['sent']} sent)"
        reason += "".join(f"; {x} before finishing" for x in stopped)
    elif pair.outcome == Outcome.INCONCLUSIVE or not g.passed:
        errors = [*c.record.fault_errors, *g.record.fault_errors]
        outcome, reason = "inconclusive", "; ".join(errors or c.reasons or g.reasons)
    else:
        outcome, reason = "held", ", ".join(f"{n} {a} in the control" for a, n in counts["control"].items() if n)
    run_dir = g.record.run_dir
    return Row(s.id, s.title, fault_of(s), version, outcome, reason, counts, example, run_dir, producer)


def bug_row(pair: PairVerdict, bug: bugs.Bug, s: Scenario, version: str) -> Row:
    """A bug row: the pair's own verdict, its guarantee being the user's versions."""
    g, c = pair.guarantee, pair.control
    counts = {side.variant: {a: side.count(a) for a in side.expect} for side in (c, g)}
    example = None
    if pair.outcome == Outcome.PASSED:
        outcome = "held"
        reason = "clear of the bug the control shows: " + ", ".join(
            f"{n} {a}" for a, n in counts["control"].items() if n
        )
    elif pair.outcome == Outcome.FAILED:
        outcome, reason = "violated", "; ".join(g.reasons)
        broken = [a for a, rule in g.expect.items() if rule == FORBIDDEN and g.count(a)]
        found = g.result.anomalies.get(broken[0]) if broken else None
        example = found.examples[0] if found and found.examples else None
    elif pair.outcome == Outcome.UNKNOWN:
        outcome, reason = "unknown", "; ".join(c.reasons + g.reasons)
    else:
        outcome, reason = "inconclusive", "; ".join(c.reasons or g.reasons)
    producer = f"the pair's own, on your versions (not your files): {bug.id}"
    run_dir = g.record.run_dir
    return Row(s.id, s.title, fault_of(s), version, outcome, reason, counts, example, run_dir, producer, bug.rule)


# --- the run ------------------------------------------------------------------------


@dataclass
class Dynamic:
    applied: apply.Applied
    versions: dict[str, dict[str, Any]]  # version -> transaction protocol, wall time
    rows: list[Row]

    def violated(self) -> bool:
        return any(r.outcome == "violated" for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        return {
            "applied": self.applied.to_json(),
            "versions": self.versions,
            "rows": [r.to_json() for r in self.rows],
        }


def check_versions(versions: list[str], base: Settings) -> list[Settings]:
    """One Settings per version, each with its images present (built on a version's first use):
    a HarnessError before any container starts otherwise."""
    settings = []
    for v in versions:
        kafka_release(v)  # every version's form first, before any is fetched
    for v in versions:
        s = base.with_overrides(kafka_version=v)
        images.ensure(s, pull=False)
        settings.append(s)
    return settings


@dataclass(frozen=True)
class BugPair:
    bug: bugs.Bug
    settings: Settings  # of the user's Kafka version the guarantee runs on
    scenario: Scenario  # the pair, its guarantee on the user's versions


def bug_pairs(
    findings: list[RuleFinding], files: dict[Kind, ConfigFile], client: ClientSpec | None, settings: list[Settings]
) -> list[BugPair]:
    """Per bug rule among ``findings`` and per version of ``settings`` it holds for, its pair on
    the user's versions, with every release it needs fetched: before any container starts."""
    fired = {f.rule for f in findings}
    clients = bugs.user_clients(files, client)
    broker_file = files.get(Kind.BROKER)
    found = []
    for bug in bugs.BUGS:
        for s in settings if bug.rule in fired else []:
            user = bugs.affects(bug, s.kafka_version, clients, broker_file)
            if user is not None:
                pair = bugs.on_user_versions(bug, s.kafka_version, user, broker_file)
                provision.prepare(s, [pair])
                found.append(BugPair(bug, s, pair))
    return found


def run(
    files: dict[Kind, ConfigFile],
    chosen: list[Scenario],
    settings: list[Settings],
    client: ClientSpec | None = None,
    bug_runs: list[BugPair] | None = None,
) -> Dynamic:
    """The chosen scenarios on a cluster per version with the user's broker settings, then the
    bug rows, each side on a cluster of its own (the cluster given to ``run_pair`` only lends its
    settings: every side of a bug pair pins its Kafka version)."""
    from harness.cluster.kafka import KafkaCluster
    from harness.runner import run_pair

    if Kind.PRODUCER not in files:
        raise HarnessError("the dynamic run needs --producer FILE (the scenarios run your producer); or --static-only")
    applied = apply.apply(files, client)
    broker = {**applied.broker_defaults, **applied.broker}
    rows: list[Row] = []
    versions: dict[str, dict[str, Any]] = {}
    for s in settings:
        started = time.monotonic()
        with KafkaCluster(s).with_broker_properties(broker) as cluster:
            protocol = features.transaction_protocol(cluster.bootstrap_servers())
            for sc in chosen:
                scenario, producer = apply.guarantee_scenario(sc, applied)
                rows.append(row(run_pair(cluster, scenario, s.runs_dir), sc, s.kafka_version, producer))
                say(f"{sc.id} on Kafka {s.kafka_version}: {rows[-1].outcome}")
        versions[s.kafka_version] = {"transaction_protocol": protocol, "wall_s": round(time.monotonic() - started, 1)}
    for b in bug_runs or []:
        pair = run_pair(KafkaCluster(b.settings), b.scenario, b.settings.runs_dir)
        rows.append(bug_row(pair, b.bug, b.scenario, b.settings.kafka_version))
        say(f"{b.scenario.id} ({b.bug.rule}) on Kafka {b.settings.kafka_version}: {rows[-1].outcome}")
    return Dynamic(applied, versions, rows)
