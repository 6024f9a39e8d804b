"""Running a scenario: up -> topic -> workload + faults -> heal -> read back -> check -> verdict.

Both variants of a pair run on the same cluster with the same fault schedule, each on a
fresh topic. Everything a run produced lands in its folder under the runs directory:
the spec, ledger and output of every app incarnation, ``verdict.json`` and, when a
variant does not pass, every container's log.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from harness import checker, history, readback
from harness.cluster import KafkaCluster
from harness.faults import Faults, Schedule
from harness.progress import say, step
from harness.scenario import PRODUCER, Scenario, Variant
from harness.verdict import PairVerdict, VariantVerdict, judge
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerSpec


def run_variant(cluster: KafkaCluster, scenario: Scenario, variant: Variant, run_dir: Path) -> VariantVerdict:
    run_dir.mkdir(parents=True, exist_ok=True)
    topic = f"{scenario.id.lower()}-{variant.name}-{uuid.uuid4().hex[:6]}"
    topic_config = {**scenario.topic_config, **variant.topic_config}
    cluster.create_topic(topic, scenario.partitions, config=topic_config)
    w = replace(scenario.workload, **variant.app)
    config = {**w.config, **variant.producer_config}
    if "transactional.id" in config:  # unique per run: no stale epoch of an earlier run interferes
        config["transactional.id"] = f"{config['transactional.id']}-{topic}"

    def spec_for(ledger: Path, earlier: list[Path]) -> dict[str, Any]:
        return asdict(
            ProducerSpec(
                bootstrap_servers=cluster.bootstrap_servers(),
                topic=topic,
                ledger=str(ledger),
                session=1,
                count=w.count,
                rate_per_s=w.rate_per_s,
                value_bytes=w.value_bytes,
                keys=w.keys,
                config=config,
                txn_size=w.txn_size,
                abort_every=w.abort_every,
                duplicate_every=w.duplicate_every,
                resume_from=[str(p) for p in earlier],
            )
        )

    app = AppProcess(PRODUCER, "harness.workloads.producer", run_dir, spec_for)
    faults = Faults(cluster, apps={PRODUCER: app})
    schedule = Schedule(faults, scenario.schedule(topic))
    budget = w.count / w.rate_per_s + 180
    with step(f"{scenario.id} {variant.name}: {w.count} records at {w.rate_per_s:.0f}/s to {topic}"):
        app.start()
        schedule.start()
        try:
            schedule.wait(budget)
            if not app.wait(budget):
                say(f"{PRODUCER} did not finish within {budget:.0f}s; killed (its unfinished sends are indeterminate)")
        finally:
            schedule.finish()  # heal before reading back; healing a killed app restarts it
            if not app.wait(budget):
                app.kill()
    with step(f"{scenario.id} {variant.name}: read back {topic} (read_committed and read_uncommitted)"):
        reads = readback.read_back(cluster.bootstrap_servers(), [topic], run_dir / "reads")
    result = checker.check(history.load(app.ledgers(), reads), checker.CheckOptions(view=variant.consumer_view))
    context = {
        "kafka_version": cluster.settings.kafka_version,
        "topics": [topic],
        "topic_config": topic_config,
        "consumer_view": variant.consumer_view,
        "producer_config": config,
        "faults": faults.records(),
        "fault_errors": schedule.errors,
        "run_dir": str(run_dir),
        "workload": app.reports(),
    }
    verdict = judge(scenario.id, variant.name, result, variant.expect, context)
    (run_dir / "verdict.json").write_text(json.dumps(verdict.to_json(), indent=2))
    if not verdict.passed:
        cluster.save_logs(run_dir / "logs")
    return verdict


def run_pair(cluster: KafkaCluster, scenario: Scenario, runs_dir: Path) -> PairVerdict:
    base = runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{scenario.id}-{uuid.uuid4().hex[:4]}"
    control = run_variant(cluster, scenario, scenario.control, base / "control")
    guarantee = run_variant(cluster, scenario, scenario.guarantee, base / "guarantee")
    pair = PairVerdict(scenario.id, scenario.title, control, guarantee)
    (base / "verdict.json").write_text(json.dumps(pair.to_json(), indent=2))
    say(f"verdict: {base / 'verdict.json'}")
    return pair
