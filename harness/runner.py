"""Running a scenario: up -> topic -> workload + faults -> heal -> read back -> check -> verdict.

Both variants of a pair run on the same cluster with the same fault schedule, each on a
fresh topic. Everything a run produced lands in its folder under the runs directory:
the spec, the ledger, the workload's output, ``verdict.json`` and, when a variant does
not pass, every container's log.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

from harness import checker, history, readback
from harness.cluster import KafkaCluster
from harness.faults import Faults, Schedule
from harness.progress import say, step
from harness.scenario import Scenario, Variant
from harness.verdict import PairVerdict, VariantVerdict, judge
from harness.workloads.producer import ProducerSpec


def run_variant(cluster: KafkaCluster, scenario: Scenario, variant: Variant, run_dir: Path) -> VariantVerdict:
    run_dir.mkdir(parents=True, exist_ok=True)
    topic = f"{scenario.id.lower()}-{variant.name}-{uuid.uuid4().hex[:6]}"
    cluster.create_topic(topic, scenario.partitions, config=scenario.topic_config)
    w = scenario.workload
    config = {**w.config, **variant.producer_config}
    if "transactional.id" in config:  # unique per run: no stale epoch of an earlier run interferes
        config["transactional.id"] = f"{config['transactional.id']}-{topic}"
    spec = ProducerSpec(
        bootstrap_servers=cluster.bootstrap_servers(),
        topic=topic,
        ledger=str(run_dir / "ledgers" / "producer-1.csv"),
        session=1,
        count=w.count,
        rate_per_s=w.rate_per_s,
        value_bytes=w.value_bytes,
        keys=w.keys,
        config=config,
        txn_size=w.txn_size,
        abort_every=w.abort_every,
    )
    spec_path = spec.save(run_dir / "producer-1.spec.json")

    faults = Faults(cluster)
    schedule = Schedule(faults, scenario.schedule(topic))
    with (
        step(f"{scenario.id} {variant.name}: {w.count} records at {w.rate_per_s:.0f}/s to {topic}"),
        (run_dir / "producer-1.out").open("w") as out,
    ):
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.workloads.producer", str(spec_path)], stdout=out, stderr=subprocess.STDOUT
        )
        schedule.start()
        try:
            budget = w.count / w.rate_per_s + 180
            proc.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            proc.kill()
            say(f"producer did not finish within {budget:.0f}s; killed (its unfinished sends are indeterminate)")
        finally:
            schedule.finish()  # heal before reading back
    with step(f"{scenario.id} {variant.name}: read back {topic} (read_committed and read_uncommitted)"):
        reads = readback.read_back(cluster.bootstrap_servers(), [topic], run_dir / "reads")
    result = checker.check(
        history.load(sorted((run_dir / "ledgers").glob("*.csv")), reads),
        checker.CheckOptions(view=variant.consumer_view),
    )
    result.notes.extend(schedule.errors)
    context = {
        "kafka_version": cluster.settings.kafka_version,
        "topics": [topic],
        "consumer_view": variant.consumer_view,
        "producer_config": config,
        "faults": faults.records(),
        "run_dir": str(run_dir),
        "producer_exit": proc.returncode,
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
