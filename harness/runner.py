"""Running a scenario: up -> topic -> workload + faults -> heal -> read back -> check -> verdict.

Both variants of a pair run on the same cluster with the same fault schedule, each on a
fresh topic; a variant that asks for a cluster of its own gets one (shared with the other
side when that asks for the same). Everything a run produced lands in its folder under
the runs directory: the spec, ledger and output of every app incarnation,
``verdict.json`` and, when a variant does not pass, every container's log.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from harness import checker, history, readback
from harness.cluster import OWN_LINK_LISTENERS, KafkaCluster
from harness.errors import HarnessError
from harness.faults import Faults, Schedule
from harness.lso_probe import LsoProbe
from harness.progress import say, step
from harness.report import page as report_page
from harness.scenario import (
    HIJACKER,
    PRODUCER,
    PipelineWorkload,
    ProducerWorkload,
    Scenario,
    SparkWorkload,
    Variant,
    transformer,
)
from harness.sink import count_effects
from harness.spark_app import SPARK_DRIVER, SparkSink
from harness.verdict import PairVerdict, VariantVerdict, judge
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerSpec
from harness.workloads.transformer import TransformerSpec


@dataclass
class _Plan:
    """What one variant runs: its apps, the topics to read back, and how to check them."""

    apps: list[AppProcess]  # fault targets; the ones in ``autostart`` start with the schedule
    autostart: list[AppProcess]
    topics: list[str]
    main_topic: str  # what the schedule's roles aim at, and what the LSO probe watches
    partitions: int  # of the main topic
    eos_pairs: tuple[tuple[str, str], ...]
    config: dict[str, Any]  # the client configuration under test, for the verdict
    budget_s: float  # how long the apps may take before they are killed
    prefix_ledgers: list[Path]  # ledgers written before the faulted run (a pipeline's input)
    sink_db: Path | None = None  # a pipeline whose effects go to a database
    spark_sink: SparkSink | None = None  # a Spark job's output, counted per input


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
    base = f"{scenario.id.lower()}-{variant.name}-{uuid.uuid4().hex[:6]}"
    topic_config = {**scenario.topic_config, **variant.topic_config}
    w = scenario.workload
    if isinstance(w, ProducerWorkload):
        plan = _producer_plan(cluster, scenario, replace(w, **variant.app), variant, run_dir, base, topic_config)
    elif isinstance(w, SparkWorkload):
        plan = _spark_plan(cluster, replace(w, **variant.app), variant, run_dir, base, topic_config, own_links)
    else:
        plan = _pipeline_plan(cluster, replace(w, **variant.app), variant, run_dir, base, topic_config, own_links)
    transactional_id = plan.config.get("transactional.id")
    cluster.allow(
        list(variant.acls), {"topic": plan.topics, "transactional_id": [transactional_id] if transactional_id else []}
    )
    faults = Faults(cluster, apps={app.name: app for app in plan.apps}, own_links=own_links)
    schedule = Schedule(faults, scenario.schedule(plan.main_topic))
    with step(f"{scenario.id} {variant.name}: {', '.join(a.name for a in plan.autostart)} on {plan.main_topic}"):
        for app in plan.autostart:
            app.start()
        schedule.start()
        probe = LsoProbe(cluster.admin(), plan.main_topic, plan.partitions).start()
        deadline = time.monotonic() + plan.budget_s

        def left() -> float:
            return max(0.0, deadline - time.monotonic())

        try:
            schedule.wait(left())
            for app in plan.apps:
                app.wait(left())
        except BaseException:  # interrupted (Ctrl-C, SIGTERM): the apps must not outlive us
            for app in plan.apps:
                app.kill()
            raise
        finally:
            schedule.finish()  # heal before reading back; healing a killed app restarts it
            probe.stop()
            for app in plan.apps:  # one budget for the whole run; an app restarted by the heal gets a little more
                if not app.wait(left() + 30):
                    say(f"{app.name} did not finish in {plan.budget_s:.0f}s: killed (sends in flight: indeterminate)")
                    app.kill()
    with step(f"{scenario.id} {variant.name}: read back {', '.join(plan.topics)} (both isolation levels)"):
        only = {plan.main_topic: variant.read_partitions} if variant.read_partitions else None
        reads = readback.read_back(
            cluster.bootstrap_servers(), plan.topics, run_dir / "reads", only, login=cluster.client_config()
        )
    ledgers = plan.prefix_ledgers + [p for app in plan.apps for p in app.ledgers()]
    h = history.load(ledgers, reads)
    result = checker.check(h, checker.CheckOptions(view=variant.consumer_view, eos_pairs=plan.eos_pairs))
    context = {
        "kafka_version": cluster.settings.kafka_version,
        "broker_settings": variant.broker_settings,
        "client_security": cluster.settings.client_security,
        "acls": [asdict(grant) for grant in variant.acls],
        "topics": plan.topics,
        "topic_config": topic_config,
        "consumer_view": variant.consumer_view,
        "read_partitions": list(variant.read_partitions),
        "producer_config": plan.config,
        "faults": faults.records(),
        "fault_errors": schedule.errors,
        "run_dir": str(run_dir),
        "workload": [r for app in plan.apps for r in app.reports()],
        "read_committed_stalls": [stall.to_json() for stall in probe.stalls],
        "started_at": started_at,
        "ended_at": time.time(),
    }
    if plan.sink_db is not None:  # only the input topic was read: its ids are the inputs
        inputs = h.views["read_committed"].id
        context["sink"] = {"db": str(plan.sink_db), **count_effects(plan.sink_db, inputs[inputs >= 0], 5)}
    if plan.spark_sink is not None:
        context["sink"] = plan.spark_sink.findings(cluster.bootstrap_servers(), reads, 5)
    verdict = judge(scenario.id, variant.name, result, variant.expect, context)
    (run_dir / "verdict.json").write_text(json.dumps(verdict.to_json(), indent=2))
    if not verdict.passed:
        cluster.save_logs(run_dir / "logs")
    return verdict


def _producer_spec(
    bootstrap: str, topic: str, w: ProducerWorkload, config: dict[str, Any], session: int, login: dict[str, str]
) -> Callable[[Path, list[Path]], dict[str, Any]]:
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
                abort_every=w.abort_every,
                duplicate_every=w.duplicate_every,
                resume_from=[str(p) for p in earlier],
                login=login,
            )
        )

    return spec_for


def _producer_plan(
    cluster: KafkaCluster,
    scenario: Scenario,
    w: ProducerWorkload,
    variant: Variant,
    run_dir: Path,
    topic: str,
    topic_config: dict[str, str],
) -> _Plan:
    cluster.create_topic(topic, scenario.partitions, config=topic_config)
    config = {**w.config, **variant.producer_config}
    if "transactional.id" in config:  # unique per run: no stale epoch of an earlier run interferes
        config["transactional.id"] = f"{config['transactional.id']}-{topic}"
    spec_for = _producer_spec(cluster.bootstrap_servers(), topic, w, config, 1, cluster.client_config(w.user))
    app = AppProcess(PRODUCER, "harness.workloads.producer", run_dir, spec_for)
    apps = [app]
    if w.hijacker is not None:  # the same transactional.id, another session and login; launched by a step
        hijack = replace(w, count=w.hijacker.count)
        login = cluster.client_config(w.hijacker.user)
        spec_for = _producer_spec(cluster.bootstrap_servers(), topic, hijack, config, 2, login)
        apps.append(AppProcess(HIJACKER, "harness.workloads.producer", run_dir, spec_for))
    return _Plan(apps, [app], [topic], topic, scenario.partitions, (), config, w.count / w.rate_per_s + 180, [])


# The input of a pipeline: written once, cleanly, before the apps and the faults start.
_INPUT_PRODUCER = {"acks": "all", "enable.idempotence": True, "linger.ms": 5}
_INPUT_RATE_PER_S = 5000.0


def _fill(cluster: KafkaCluster, run_dir: Path, source: str, w: ProducerWorkload, config: dict[str, Any]) -> AppProcess:
    """Write a pipeline's input, cleanly, before its apps and faults start; the producer's ledgers are its history."""
    w = replace(w, rate_per_s=_INPUT_RATE_PER_S)
    spec_for = _producer_spec(cluster.bootstrap_servers(), source, w, config, 1, cluster.client_config())
    fill = AppProcess("input", "harness.workloads.producer", run_dir, spec_for)
    with step(f"fill {source} with {w.count} records"):
        fill.start()
        if not fill.wait(w.count / _INPUT_RATE_PER_S + 120) or fill.current.proc.returncode != 0:
            fill.kill()
            raise HarnessError(f"filling the input topic {source} failed; see {fill.current.out}")
    return fill


def _pipeline_plan(
    cluster: KafkaCluster,
    w: PipelineWorkload,
    variant: Variant,
    run_dir: Path,
    base: str,
    topic_config: dict[str, str],
    own_links: str,
) -> _Plan:
    source, sink = f"{base}-in", f"{base}-out"
    sink_db = (Path(w.sink_db) if w.sink_db else run_dir / "sink.sqlite") if w.sink == "sqlite" else None
    for topic in (source,) if sink_db else (source, sink):
        cluster.create_topic(topic, w.partitions, config=topic_config)
    fill = _fill(cluster, run_dir, source, ProducerWorkload(count=w.inputs, keys=w.partitions * 4), _INPUT_PRODUCER)
    producer_config = {**w.producer_config, **variant.producer_config}
    apps = []
    for i in range(1, w.instances + w.standby + 1):
        spec = TransformerSpec(
            bootstrap_servers=cluster.bootstrap_servers(own_links if i in w.own_links else "client"),
            input_topic=source,
            output_topic=sink,
            group_id=f"{base}-group",
            ledger="",
            session=1 + i,  # session 1 is the input producer
            mode=w.mode,
            transactional_id=f"{base}-app" if w.shared_transactional_id else f"{base}-app-{i}",
            batch_size=w.batch_size,
            pause_before_commit_ms=w.pause_before_commit_ms,
            abort_every=w.abort_every,
            producer_config=producer_config,
            consumer_config=w.consumer_config,
            sink_db=str(sink_db or ""),
            login=cluster.client_config(),
        )

        def spec_for(ledger: Path, earlier: list[Path], spec: TransformerSpec = spec) -> dict[str, Any]:
            return asdict(replace(spec, ledger=str(ledger), resume_from=[str(p) for p in earlier]))

        apps.append(AppProcess(transformer(i), "harness.workloads.transformer", run_dir, spec_for))
    to_kafka = sink_db is None
    return _Plan(
        apps,
        apps[: w.instances],
        topics=[source, sink] if to_kafka else [source],
        main_topic=sink if to_kafka else source,
        partitions=w.partitions,
        eos_pairs=((source, sink),) if to_kafka else (),
        config={"mode": w.mode, **producer_config} if to_kafka else {"mode": w.mode, "sink": str(sink_db)},
        budget_s=w.inputs / 50 + 180,
        prefix_ledgers=fill.ledgers(),
        sink_db=sink_db,
    )


def _spark_plan(
    cluster: KafkaCluster,
    w: SparkWorkload,
    variant: Variant,
    run_dir: Path,
    base: str,
    topic_config: dict[str, str],
    own_links: str,
) -> _Plan:
    source = f"{base}-in"
    to_kafka = w.job == "kafka_sink"
    output = f"{base}-out" if to_kafka else str(run_dir / "sink.sqlite")
    for topic in (source, output) if to_kafka else (source,):
        cluster.create_topic(topic, w.partitions, config=topic_config)
    if to_kafka:
        sink_args = ["--output-topic", output, "--delay-ms-per-record", str(w.delay_ms_per_record)]
    else:
        sink_args = ["--db", output, "--pause-after-write-ms", str(w.pause_after_write_ms)]
    input_config = dict(_INPUT_PRODUCER)
    if w.input_txn_size:
        input_config["transactional.id"] = f"{base}-input"
    filler = ProducerWorkload(
        count=w.inputs, keys=w.keys, txn_size=w.input_txn_size or 10, abort_every=w.input_abort_every
    )
    fill = _fill(cluster, run_dir, source, filler, input_config)
    args = [
        "--bootstrap-servers",
        cluster.bootstrap_servers(own_links),
        "--topic",
        source,
        "--isolation-level",
        w.isolation_level,
        "--max-offsets-per-trigger",
        str(w.max_offsets_per_trigger),
        "--trigger-ms",
        str(w.trigger_ms),
        "--until-caught-up",
        *(("--mode", w.mode) if w.mode else ()),
        *sink_args,
    ]

    def spec_for(ledger: Path, earlier: list[Path]) -> dict[str, Any]:
        checkpoint = run_dir / ("checkpoint" if w.keep_checkpoint else f"checkpoint-{len(earlier) + 1}")
        return {"job": w.job, "checkpoint": str(checkpoint), "args": [*args, "--checkpoint", str(checkpoint)]}

    driver = AppProcess(SPARK_DRIVER, "harness.spark_app", run_dir, spec_for)
    return _Plan(
        [driver],
        [driver],
        topics=[source],
        main_topic=source,
        partitions=w.partitions,
        eos_pairs=(),
        config={"job": w.job, "mode": w.mode, "isolation_level": w.isolation_level, "output": output},
        budget_s=w.inputs / 20 + 240,
        prefix_ledgers=fill.ledgers(),
        spark_sink=SparkSink(w.job, output),
    )


def run_pair(cluster: KafkaCluster, scenario: Scenario, runs_dir: Path) -> PairVerdict:
    """Both sides in a new run folder, then its ``report.html``: also when the pair fails or
    is interrupted, of what it left."""
    base = runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{scenario.id}-{uuid.uuid4().hex[:4]}"
    try:
        return _run_pair(cluster, scenario, base)
    finally:
        report_page.write(base, scenario.story)


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
