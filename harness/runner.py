"""Running a scenario: up -> plan -> apps + fault schedule -> heal -> read back -> check -> judge.

The loop is the same for every workload kind: the workload plans its side
(``harness.workloads.base``), the runner starts its apps beside the fault schedule, heals,
reads every planned topic back under both isolation levels, checks the history and judges
it against the side's expectations.

Both variants of a pair run on the same cluster with the same fault schedule, each on
fresh topics; a variant that asks for a cluster of its own gets one (shared with the
other side when that asks for the same). Everything a run produced lands in its folder
under the runs directory: the spec, ledger and output of every app incarnation,
``verdict.json`` and, when a variant does not pass, every container's log.
"""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from harness import stopping
from harness.checker.check import check
from harness.checker.result import MAX_EXAMPLES, CheckOptions
from harness.cluster.kafka import OWN_LINK_LISTENERS, KafkaCluster
from harness.faults import Faults, Schedule
from harness.history import columns, loading, readback
from harness.history.lso_probe import LsoProbe
from harness.progress import say, step
from harness.report import page as report_page
from harness.report.run_folder import ANOMALIES_FILE
from harness.scenario import Scenario, Variant, side_workload
from harness.verdict.document import PairVerdict, VariantVerdict
from harness.verdict.judge import judge, raised, untold
from harness.verdict.record import SideRecord
from harness.waits import Deadline
from harness.workloads.base import Plan, SideSetup

# Beyond the budget, the time an app restarted by the heal gets to finish.
_AFTER_HEAL_S = 30


def _own_cluster(variant: Variant) -> tuple[Any, ...] | None:
    """What a side asks of a cluster of its own, comparable; None: the shared one will do."""
    if not (variant.broker_settings or variant.kafka_version or variant.client_security):
        return None
    return (sorted(variant.broker_settings.items()), variant.kafka_version, variant.client_security)


def _start_own(cluster: KafkaCluster, variant: Variant) -> KafkaCluster:
    settings = cluster.settings.with_overrides(
        kafka_version=variant.kafka_version or None, client_security=variant.client_security or None
    )
    return KafkaCluster(settings).with_broker_properties(variant.broker_settings)


def run_variant(
    cluster: KafkaCluster, scenario: Scenario, variant: Variant, run_dir: Path, own_links: str = OWN_LINK_LISTENERS[0]
) -> VariantVerdict:
    """Run one side on ``cluster``, or on a cluster of its own when it asks for other broker
    settings, another Kafka version or other client security (started and removed around it).
    Its apps with links of their own use the listener ``own_links``."""
    if _own_cluster(variant) is None:
        return _run_variant(cluster, scenario, variant, run_dir, own_links)
    with _start_own(cluster, variant) as own:
        return _run_variant(own, scenario, variant, run_dir, own_links)


def _run_variant(
    cluster: KafkaCluster, scenario: Scenario, variant: Variant, run_dir: Path, own_links: str
) -> VariantVerdict:
    started_at = time.time()  # the report's time axis starts here
    run_dir.mkdir(parents=True, exist_ok=True)
    side = SideSetup(
        cluster=cluster,
        run_dir=run_dir,
        name=f"{scenario.id.lower()}-{variant.name}-{uuid.uuid4().hex[:6]}",
        topic_config={**scenario.topic_config, **variant.topic_config},
        client_config=variant.config,
        own_links=own_links,
    )
    plan = side_workload(scenario, variant).plan(side)
    cluster.allow(list(variant.acls), {"topic": plan.topics, "transactional_id": plan.transactional_ids})
    faults = Faults(cluster, apps={app.name: app for app in plan.apps}, own_links=own_links)
    schedule = Schedule(faults, scenario.schedule, plan.names)
    with step(f"{scenario.id} {variant.name}: {', '.join(a.name for a in plan.autostart)} on {plan.main_topic}"):
        probe = _run_apps(cluster, plan, schedule)
    stalls = [stall.to_json() for stall in probe.stalls]
    text = ScenarioText(scenario.id, scenario.title, scenario.story)
    return judge_side(text, variant, side, plan, faults, schedule.errors, stalls, started_at)


@dataclass(frozen=True)
class ScenarioText:
    """What a side's record keeps of its scenario: the report reads its title and story there."""

    id: str
    title: str
    story: str


def judge_side(
    scenario: ScenarioText,
    variant: Variant,
    side: SideSetup,
    plan: Plan,
    faults: Faults,
    fault_errors: list[str],
    stalls: list[dict[str, Any]],
    started_at: float,
) -> VariantVerdict:
    """Read back, check and judge a side whose apps have finished and whose faults are healed:
    ``verdict.json`` and the anomalous records in its folder, and its containers' logs when it
    did not pass. ``stalls``: the LSO probe's, as JSON."""
    cluster, run_dir, scenario_id = side.cluster, side.run_dir, scenario.id
    with step(f"{scenario_id} {variant.name}: read back {', '.join(plan.topics)} (both isolation levels)"):
        only = {plan.main_topic: variant.read_partitions} if variant.read_partitions else None
        reads = readback.read_back(
            cluster.bootstrap_servers(), plan.topics, run_dir / "reads", only, login=cluster.client_config()
        )
        if plan.sink is not None:
            plan.sink.collect(cluster)
    unknown: list[str] = []  # what could not be told: the outcome is then unknown, never a violation
    history: columns.History | None = None
    try:
        history = loading.load(plan.prefix_ledgers + [p for app in plan.apps for p in app.ledgers()], reads)
        result = check(history, CheckOptions(view=variant.consumer_view, eos_pairs=plan.eos_pairs))
    except Exception as exc:  # a checker that raises tells nothing about the run
        result, why = untold(exc)
        unknown.append(why)
        say(f"{scenario_id} {variant.name}: {why} (outcome unknown)")
    sink: dict[str, Any] = {}
    if plan.sink is not None:
        try:
            sink = plan.sink.findings(history, MAX_EXAMPLES)
        except Exception as exc:  # as the checker's: unknown, not a violation
            unknown.append(raised(f"the {type(plan.sink).__name__} check", exc))
    reports = [r for app in plan.apps for r in app.reports()]
    record = SideRecord(
        title=scenario.title,
        story=scenario.story,
        kafka_version=cluster.settings.kafka_version,
        broker_settings=variant.broker_settings,
        client_security=cluster.settings.client_security,
        acls=[asdict(grant) for grant in variant.acls],
        topics=plan.topics,
        topic_config=side.topic_config,
        consumer_view=variant.consumer_view,
        read_partitions=list(variant.read_partitions),
        eos_pairs=[list(pair) for pair in plan.eos_pairs],
        producer_config=plan.config,
        client=plan.client,
        client_version=plan.client_version,
        client_requested=plan.client_requested,
        client_package=plan.client_package,
        client_pin=variant.client,
        # The releases the apps said they ran on (librdkafka's, kafka-clients'): one, normally.
        client_ran=sorted(
            {r["client_version"] for r in reports if r.get("client_version") and r["app"] not in plan.helpers}
        ),
        faults=faults.records(),
        fault_errors=fault_errors,
        run_dir=str(run_dir),
        workload=reports,
        read_committed_stalls=stalls,
        started_at=started_at,
        ended_at=time.time(),
        sink=sink,
        unknown=unknown,
    )
    verdict = judge(scenario_id, variant.name, result, variant.expect, record, variant.checks)
    (run_dir / "verdict.json").write_text(json.dumps(verdict.to_json(), indent=2))
    pq.write_table(result.anomalous_records(), run_dir / ANOMALIES_FILE)
    if not verdict.passed:
        cluster.save_logs(run_dir / "logs")
    return verdict


def _run_apps(cluster: KafkaCluster, plan: Plan, schedule: Schedule) -> LsoProbe:
    """Start the apps beside the schedule and the LSO probe, then heal: within one budget,
    after which an app still running is killed (its sends in flight are indeterminate)."""
    for app in plan.autostart:
        app.start()
    schedule.start()
    probe = LsoProbe(cluster.admin(), plan.main_topic, plan.partitions).start()
    budget = Deadline(plan.budget_s)  # one for the run: what each wait gets is what is left of it

    try:
        schedule.wait(budget.remaining())
        for app in plan.apps:
            app.wait(budget.remaining())
    except BaseException:  # interrupted (Ctrl-C, SIGTERM): the apps must not outlive us
        for app in plan.apps:
            app.kill()
        raise
    finally:
        schedule.finish()  # heal before reading back; healing a killed app restarts it
        probe.stop()
        for app in plan.apps:
            if not app.wait(budget.remaining() + _AFTER_HEAL_S):
                say(f"{app.name} did not finish in {plan.budget_s:.0f}s: killed (sends in flight: indeterminate)")
                app.kill()
    return probe


def run_pair(cluster: KafkaCluster, scenario: Scenario, runs_dir: Path) -> PairVerdict:
    """Both sides in a new run folder, then its ``report.html``: also when the pair fails or
    is interrupted, of what it left."""
    base = runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{scenario.id}-{uuid.uuid4().hex[:4]}"

    def report() -> None:
        report_page.write(base, scenario.story)

    try:
        with stopping.last_words(report):  # Ctrl-C ends the process at once: the page first
            return _run_pair(cluster, scenario, base)
    finally:
        report()


def _run_pair(cluster: KafkaCluster, scenario: Scenario, base: Path) -> PairVerdict:
    variants = (scenario.control, scenario.guarantee)
    own = _own_cluster(scenario.control)
    both_on_own = own is not None and own == _own_cluster(scenario.guarantee)
    # Both sides asking for the same cluster of their own get it started once.
    with _start_own(cluster, scenario.control) if both_on_own else nullcontext(cluster) as shared:
        run = _run_variant if both_on_own else run_variant

        def side(i: int) -> VariantVerdict:
            return run(shared, scenario, variants[i], base / variants[i].name, OWN_LINK_LISTENERS[i])

        if scenario.sides_together:
            with ThreadPoolExecutor(2) as pool:
                control, guarantee = pool.map(side, (0, 1))
        else:
            control, guarantee = side(0), side(1)
    pair = PairVerdict(scenario.id, scenario.title, control, guarantee, scenario.research)
    (base / "verdict.json").write_text(json.dumps(pair.to_json(), indent=2))
    say(f"verdict: {base / 'verdict.json'}")
    return pair
