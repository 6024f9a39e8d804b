"""One run of a side under one schedule document: run it, say whether it failed, and keep what
that calls for.

A run's outcome is an ``Outcome`` (or ``ERROR``: the side could not run). A run **fails** when
the side does not pass for another reason than a fault step that did not happen or what could
not be told (its expectations or checks, judged by ``harness.verdict.judge`` as ever), or when
its apps report an error the pair does not allow: a client stuck past its own timeout, an app
stopped by a fatal error (fenced included), a transaction log that refused it, a refused
configuration (``APP_ERRORS``, unless the side's expectations name them), or an app that
crashed. Else a run whose checker raised or whose check could not tell is **unknown**, and one
whose only reasons are fault steps that did not happen is **inconclusive**.

A failing run keeps its whole folder, with ``report.html``; any other keeps ``schedule.json``,
``run.json`` and its side's ``verdict.json``, nothing else (about 20 KB).
"""

from __future__ import annotations

import json
import shutil
import signal
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness import stopping
from harness.checker import catalogue
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.faults import serial
from harness.report import page as report_page
from harness.runner import run_variant
from harness.scenario import Scenario, Variant
from harness.verdict.document import FAULT_ERROR, UNKNOWN, VariantVerdict
from harness.verdict.judge import check_reason
from harness.verdict.outcome import Outcome
from harness.workloads.apps.transactions import FENCED_EXIT, STUCK_EXIT

ERROR = "error"  # the side could not run: there is no verdict, so no Outcome
SCHEDULE, RUN = "schedule.json", "run.json"
SIDE = "guarantee"
# Client findings that are errors a pair allows only by naming them in its expectations.
APP_ERRORS = ("client_stuck", "app_fenced", "txn_init_failed", "config_error")
_JVM_TERMINATED = 128 + signal.SIGTERM
_KEPT = ("verdict.json",)  # what a side's folder keeps of a run that did not fail


@dataclass
class Trial:
    folder: Path
    outcome: str  # an Outcome's value, or ERROR
    reasons: list[str]
    counts: dict[str, int]  # the side's non-zero finding counts
    wall_s: float  # the whole run: plan, apps, read-back, check, judge, trimming
    # The workload's own time: from its first app's start to the later of its last app's exit
    # and its schedule's last heal (a fault may outlast the apps).
    workload_s: float
    label: dict[str, Any] = field(default_factory=dict)  # the exploration's, e.g. seed and run

    @property
    def failed(self) -> bool:
        return self.outcome == Outcome.FAILED

    @property
    def overhead_s(self) -> float:
        return max(0.0, self.wall_s - self.workload_s)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.label,
            "outcome": self.outcome,
            "reasons": self.reasons,
            "counts": self.counts,
            "wall_s": round(self.wall_s, 2),
            "workload_s": round(self.workload_s, 2),
            "overhead_s": round(self.overhead_s, 2),
        }

    @classmethod
    def read(cls, folder: Path) -> Trial:
        doc = json.loads((folder / RUN).read_text())
        known = ("outcome", "reasons", "counts", "wall_s", "workload_s", "overhead_s")
        label = {k: v for k, v in doc.items() if k not in known}
        times = (doc.get("wall_s", 0.0), doc.get("workload_s", 0.0))
        return cls(folder, doc["outcome"], doc["reasons"], doc["counts"], *times, label)


def schedule_of(folder: Path) -> dict[str, Any]:
    return serial.loads((folder / SCHEDULE).read_text())


def run(
    cluster: KafkaCluster,
    scenario: Scenario,
    variant: Variant,
    doc: dict[str, Any],
    folder: Path,
    label: dict[str, Any],
) -> Trial:
    """``variant`` of ``scenario`` under schedule ``doc`` in ``folder`` (made new)."""
    started = time.monotonic()
    folder.mkdir(parents=True)
    (folder / SCHEDULE).write_text(serial.dumps_doc(doc))
    try:
        verdict = run_variant(cluster, replace(scenario, schedule=serial.steps(doc)), variant, folder / SIDE)
    except Exception as exc:  # the side could not run (its input could not be written, a broker never came back)
        reason = str(exc) if isinstance(exc, HarnessError) else f"{type(exc).__name__}: {exc}"
        trial = Trial(folder, ERROR, [reason.splitlines()[0][:500]], {}, 0.0, 0.0, label)
    else:
        outcome, reasons = judged(verdict)
        counts = {name: n for name in catalogue.NAMES if (n := verdict.count(name))}
        trial = Trial(folder, outcome, reasons, counts, 0.0, _workload_s(verdict), {**label, "fired": fired(verdict)})
        _delete_topics(cluster, verdict.record.topics)
    if trial.failed:
        report_page.write(folder, scenario.story)
    else:
        _trim(folder / SIDE)
    trial.wall_s = time.monotonic() - started
    stopping.hold_if_stopping()  # run.json marks the run done: never for a run the stop cut short
    (folder / RUN).write_text(json.dumps(trial.to_json(), indent=2) + "\n")
    return trial


def judged(verdict: VariantVerdict) -> tuple[Outcome, list[str]]:
    """The run's outcome and why, from the side's verdict (see the module's doc)."""
    not_run = [r for r in verdict.reasons if r.startswith(FAULT_ERROR)]
    untold = [r for r in verdict.reasons if r.startswith(UNKNOWN)]
    untold += [check_reason(c) for c in verdict.checks if c.get("unknown")]
    reasons = [r for r in verdict.reasons if r not in not_run and r not in untold]
    for name in APP_ERRORS:
        if name not in verdict.expect and verdict.count(name):
            reasons.append(f"{verdict.count(name)} {name}: {catalogue.BY_NAME[name].meaning}{_said(verdict, name)}")
    for report in verdict.record.workload:
        if crashed(report):
            reasons.append(f"{report['app']}#{report['incarnation']} crashed: exit status {report['exit']}")
    if reasons:
        return Outcome.FAILED, reasons
    if untold:
        return Outcome.UNKNOWN, untold
    return (Outcome.INCONCLUSIVE, not_run) if not_run else (Outcome.PASSED, [])


def crashed(report: dict[str, Any]) -> bool:
    """An app's incarnation ended with an error status it did not explain: not fenced, not stuck,
    not refused at setup (each its own finding, with the error in its report)."""
    status = report.get("exit")
    # A JVM ends with 128 + 15 on SIGTERM (a stop fault): ended by the signal, as a Python app's -15 says.
    explained = status in (FENCED_EXIT, STUCK_EXIT, _JVM_TERMINATED) or "setup_error" in report
    return status is not None and status > 0 and not explained


def _said(verdict: VariantVerdict, finding: str) -> str:
    """What the apps said of an app error, as ``; app#n: what``: the error that stopped them, or
    the call that outlived its timeout."""
    said = []
    for r in verdict.record.workload:
        who = f"{r['app']}#{r['incarnation']}"
        if finding == "app_fenced" and isinstance(r.get("fenced"), dict):
            said.append(f"{who}: {r['fenced'].get('error', '')} {r['fenced'].get('message', '')}".rstrip())
        elif finding == "client_stuck" and isinstance(r.get("stuck"), dict):
            stuck = r["stuck"]
            said.append(f"{who}: {stuck.get('call')} waited {stuck.get('waited_s')} s of {stuck.get('timeout_s')} s")
    return f"; {'; '.join(said)}" if said else ""


def fired(verdict: VariantVerdict) -> list[str]:
    """Each fault as it happened: its role resolved (brokers, or the app), when it fired and healed,
    in seconds since the side started (as on its report's timeline)."""
    t0 = verdict.record.started_at or 0.0
    lines = []
    for f in verdict.record.faults:
        where = f" -> brokers {f['brokers']}" if f["brokers"] else ""
        healed = f", healed at {f['healed_at'] - t0:.1f} s" if f.get("healed_at") and not f["instant"] else ""
        lines.append(f"{f['fault']} of {f['target']}{where} at {f['injected_at'] - t0:.1f} s{healed}")
    return lines


def _workload_s(verdict: VariantVerdict) -> float:
    lives = verdict.record.workload
    starts = [r["started_at"] for r in lives if r.get("started_at")]
    ends = [r["ended_at"] for r in lives if r.get("ended_at")]
    ends += [f["healed_at"] for f in verdict.record.faults if f.get("healed_at")]
    return max(ends) - min(starts) if starts and ends else 0.0


def _trim(side: Path) -> None:
    for path in side.iterdir() if side.is_dir() else ():
        if path.name in _KEPT:
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def _delete_topics(cluster: KafkaCluster, topics: list[str]) -> None:
    """The run's topics go, so a long exploration leaves the reused cluster as light as it found it."""
    if not topics:
        return
    for future in cluster.admin().delete_topics(topics, operation_timeout=10).values():
        try:
            future.result(15)
        except Exception:  # a topic left behind costs a little metadata, not the run
            continue
