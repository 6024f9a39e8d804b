"""``kafka-harness check-app --explore N``: your app under N schedules drawn from a seed.

The schedules are drawn as ``explore`` draws them (``harness.explore.draw``, each fault kind
drawing itself) against what a user's app offers: its instances ``app-1`` …, its own links,
the leaders and followers of its topics, the coordinators of the transactional.ids it is
given, the brokers; fired at a time or once its output holds some records (``OutputAtLeast``:
its ledger is its output, as it writes no harness ledger). All N runs share one cluster, each
on topics of its own (``<input>-NNN``, ``<output>-NNN``: your app takes its topics from the
contract's environment). A run fails when ``check-app`` would say FAILED; every run folder
keeps its ``schedule.json`` (the harness's JSON form of a schedule), and the command that
runs a failing one again on a cluster of its own is printed: ``check-app --schedule`` with
that file and that run's topics.
"""

from __future__ import annotations

import json
import shlex
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.explore import draw, words
from harness.explore.targets import TRANSFORMING, Reach, broker_roles
from harness.explore.trial import ERROR
from harness.faults import INPUT, OUTPUT, App, Topic, TransactionalId, serial
from harness.faults.kinds.base import DrawContext
from harness.progress import say
from harness.settings import Settings
from harness.userapps import check_app
from harness.userapps.app import instance_name
from harness.userapps.check_app import AppRequest
from harness.userapps.contract import ContractError
from harness.userapps.output import OutputAtLeast
from harness.userapps.workload import APP_LINKS, UserAppWorkload
from harness.verdict.document import side_outcome
from harness.verdict.outcome import Outcome

# What a user's app is assumed to run with, as nothing tells the harness: the clients'
# defaults (librdkafka and Java agree on these three).
_REQUEST_TIMEOUT_MS = 30_000
_SESSION_TIMEOUT_MS = 45_000
_TRANSACTION_TIMEOUT_MS = 60_000
# Times of time-fired events are drawn within this span after the apps start (its speed is
# unknown); two in three events wait for the app's output instead.
_SPAN_S = 20.0


def reach(app: UserAppWorkload) -> Reach:
    """What a drawn schedule may aim at in ``app``'s run, and the output counts it may wait for."""
    ids: list[str | TransactionalId] = [TransactionalId(instance_name(i)) for i in range(1, app.instances + 1)]
    topics: list[tuple[str | Topic, int]] = [(INPUT, app.partitions), (OUTPUT, app.partitions)]
    context = DrawContext(
        brokers=broker_roles(topics, ids),
        apps=tuple(App(instance_name(i)) for i in range(1, app.instances + 1)),
        partitions=tuple((t, p) for t, n in topics for p in range(n)),
        client_listener=APP_LINKS,
        transactional_ids=tuple(ids),
        request_timeout_ms=_REQUEST_TIMEOUT_MS,
        session_timeout_ms=_SESSION_TIMEOUT_MS,
        transaction_timeout_ms=_TRANSACTION_TIMEOUT_MS,
        apis=TRANSFORMING,
    )

    def output(rng: Any) -> OutputAtLeast:
        return OutputAtLeast(OUTPUT, rng.randint(1, max(1, int(app.inputs * 0.8))))

    return Reach(context, (output,), _SPAN_S)


def run_of(app: UserAppWorkload, n: int) -> UserAppWorkload:
    """Run ``n``'s app: the same, on topics of its own."""
    return replace(app, input_topic=f"{app.input_topic}-{n:03d}", output_topic=f"{app.output_topic}-{n:03d}")


def explore(
    request: AppRequest,
    settings: Settings,
    runs: int,
    *,
    seed: int = 1,
    faults: str = "all",
    stop_on_failure: bool = False,
) -> int:
    """The command: the app of ``request`` under ``runs`` schedules drawn from ``seed`` out of the
    fault families ``faults`` names (comma-separated, or all)."""
    if request.like or request.schedule or request.no_faults:
        raise HarnessError("--explore draws its own schedules: leave out --like, --schedule and --no-faults")
    if request.junit or request.json:
        raise HarnessError(
            "--junit and --json are for one run: --explore prints a line per run and keeps each run's folder"
        )
    if runs < 1:
        raise HarnessError(f"--explore must be 1 or more runs, not {runs}")
    app, _, _ = check_app.workload(request, explored=True)
    families = draw.families(faults, draw.USER_APP_FAMILIES)
    apps = [run_of(app, n) for n in range(1, runs + 1)]
    docs = [draw.schedule(seed, n, reach(a), families) for n, a in enumerate(apps, 1)]
    folder = settings.runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{check_app.APP_ID}-explore-{seed}"
    folder.mkdir(parents=True)
    title = f"check-app --explore: {' '.join(app.command)}"
    failing: list[tuple[int, Path]] = []
    unproven = ran = 0
    with KafkaCluster(settings) as cluster:
        for n, (run_app, doc) in enumerate(zip(apps, docs, strict=True), 1):
            run_dir = folder / f"run-{n:03d}"
            run_dir.mkdir()
            (run_dir / "schedule.json").write_text(serial.dumps_doc(doc))
            said = "; ".join(words.step_lines(doc))
            say(f"check-app --explore: run {n} of {runs}: {said}")
            story = f"Run {n} of seed {seed}: {said}."
            outcome: str  # an Outcome, or ERROR
            try:
                verdict = check_app.check(
                    cluster,
                    run_app,
                    serial.steps(doc),
                    run_dir,
                    title,
                    story,
                    with_reference=request.with_reference,
                )
                outcome = side_outcome(verdict)
                why = "; ".join(verdict.reasons)
            except ContractError as exc:
                outcome, why = ERROR, str(exc)
            (run_dir / "run.json").write_text(json.dumps({"run": n, "outcome": outcome, "why": why, "steps": said}))
            print(f"run {n:>3}  {outcome:<12} {said}" + (f"  ({why})" if why else ""), flush=True)
            ran, unproven = ran + 1, unproven + (outcome in (Outcome.INCONCLUSIVE, Outcome.UNKNOWN))
            if outcome in (Outcome.FAILED, ERROR):
                failing.append((n, run_dir))
                if stop_on_failure:
                    break
    # An inconclusive or unknown run proved nothing (e.g. no fault hit the app with work in hand): said apart.
    print(f"{len(failing)} of {ran} runs failed, {unproven} inconclusive or unknown · runs: {folder}", flush=True)
    for n, run_dir in failing:
        print(f"  again: {_again(request, apps[n - 1], run_dir)}", flush=True)
    if failing:
        return 1
    return 3 if unproven == ran else 0


def _again(request: AppRequest, app: UserAppWorkload, run_dir: Path) -> str:
    """The command that runs a kept schedule again, on a cluster of its own, with the run's topics
    and every other choice the exploration was given."""
    argv = ["kafka-harness", "check-app", "--cmd", request.cmd, "--input-topic", app.input_topic]
    argv += ["--output-topic", app.output_topic, "--inputs", str(app.inputs), "--partitions", str(app.partitions)]
    argv += ["--instances", str(app.instances), "--output-isolation", app.view]
    argv += ["--idle-timeout", f"{app.idle_timeout_s:g}"]
    for flag, value in (("--extract", request.extract), ("--kafka-version", request.kafka_version)):
        argv += [flag, value] if value else []
    argv += [] if request.reference else ["--no-reference"]
    argv += ["--input", "live" if app.live_input else "before"]
    return shlex.join([*argv, "--schedule", str(run_dir / "schedule.json")])
