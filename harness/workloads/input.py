"""A pipeline's input: an input topic filled cleanly, before its apps and faults start, by the
Python producer app (idempotent, or transactional when asked); its ledgers are part of the
history. It is the harness's own writer, whatever client the pipeline's apps run on."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.progress import step
from harness.workloads.process import AppProcess, python_app
from harness.workloads.producer import PYTHON_APP, ProducerWorkload, producer_spec

INPUT_PRODUCER = {"acks": "all", "enable.idempotence": True, "linger.ms": 5}
INPUT_RATE_PER_S = 5000.0
_SLACK_S = 120


@dataclass(frozen=True)
class Pace:
    """How a live input is written: bursts of ``burst`` records at ``rate_per_s``, each followed
    by a pause of ``pause_s``, so its readers catch up and reach its end again and again."""

    rate_per_s: float = 500.0
    burst: int = 250
    pause_s: float = 2.0

    def seconds(self, count: int) -> float:
        """How long writing ``count`` records takes."""
        return count / self.rate_per_s + (max(0, count - 1) // self.burst) * self.pause_s


def input_app(
    cluster: KafkaCluster,
    run_dir: Path,
    topic: str,
    w: ProducerWorkload,
    config: dict[str, Any],
    pace: Pace | None = None,
) -> AppProcess:
    """The app that writes ``w``'s records into ``topic``, at ``w``'s rate (or at ``pace``), as session 1."""
    spec_for = producer_spec(cluster.bootstrap_servers(), topic, w, config, 1, cluster.client_config())
    if pace is not None:
        steady = spec_for

        def spec_for(ledger: Path, earlier: list[Path]) -> dict[str, Any]:
            return {**steady(ledger, earlier), **asdict(pace)}

    return AppProcess("input", run_dir, spec_for, python_app(PYTHON_APP))


def fill(cluster: KafkaCluster, run_dir: Path, topic: str, w: ProducerWorkload, config: dict[str, Any]) -> list[Path]:
    """Write ``w``'s records into ``topic`` at ``INPUT_RATE_PER_S`` before anything else runs;
    returns the producer's ledgers."""
    w = replace(w, rate_per_s=INPUT_RATE_PER_S)
    app = input_app(cluster, run_dir, topic, w, config)
    with step(f"fill {topic} with {w.count} records"):
        app.start()
        if not app.wait(w.count / INPUT_RATE_PER_S + _SLACK_S) or app.current.proc.returncode != 0:
            app.kill()
            raise HarnessError(f"filling the input topic {topic} failed; see {app.current.out}")
    return app.ledgers()
