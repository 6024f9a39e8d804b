"""``kafka-harness check-app``: a user's consume-transform-produce app, as it is, under faults.

The harness starts a cluster, creates the input and output topics, writes the input, starts
the app's instances with the contract's environment (harness.userapps.contract), kills and
restarts them as the schedule says (harness.userapps.schedules), stops them once their group
has caught up, reads the output back and judges each input exactly once. It writes
``app/verdict.json`` and ``report.html`` in a run folder, JUnit XML on request, and exits 0
(passed), 1 (exactly-once or a check broken), 3 (a fault did not happen as written: nothing
proven) or 2 (bad input, or an app that breaks the contract: one line saying what to do).

``check`` is one run on a cluster already up, under a given schedule: the function a search
over schedules (an explorer) calls again and again.
"""

from __future__ import annotations

import argparse
import json
import shlex
import shutil
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness import stopping, versions
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.progress import say
from harness.report import junit
from harness.report import page as report_page
from harness.runner import run_variant
from harness.scenario import Scenario
from harness.settings import KNOWN_KAFKA_VERSIONS, Settings
from harness.userapps import contract, reference, schedules
from harness.userapps.contract import ContractError, Naming
from harness.userapps.schedules import StepsFor
from harness.userapps.workload import APP_LINKS, APP_VARIANT, IDLE_TIMEOUT_S, UserAppWorkload, contract_breach
from harness.verdict.document import VariantVerdict, side_outcome
from harness.verdict.summary import side_lines

APP_ID = "APP"  # the run folders' scenario part: <time>-APP-<id>
EXIT = {"passed": 0, "failed": 1, "inconclusive": 3}
ISOLATION_LEVELS = ("read_committed", "read_uncommitted")


def run_folder(runs_dir: Path) -> Path:
    return runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{APP_ID}-{uuid.uuid4().hex[:4]}"


def check(
    cluster: KafkaCluster,
    app: UserAppWorkload,
    schedule: StepsFor,
    folder: Path,
    title: str,
    story: str,
    with_reference: bool = False,
) -> VariantVerdict:
    """One run of ``app`` under ``schedule`` into ``folder`` (its ``report.html`` too, also when
    interrupted); the verdict, or a ContractError when the app breaks the contract. With
    ``with_reference``, the reference app runs under the same schedule too (harness.userapps.reference):
    if it repeats nothing, a passing verdict is inconclusive."""
    scenario = Scenario(APP_ID, title, story, app, schedule, APP_VARIANT, APP_VARIANT)
    breach: ContractError | None = None

    def report() -> None:
        report_page.write(folder, story if breach is None else f"{story}\n\nNo verdict: {breach}", title)

    def mine() -> VariantVerdict:
        return run_variant(cluster, scenario, APP_VARIANT, folder / APP_VARIANT.name, APP_LINKS)

    try:
        with stopping.last_words(report):  # Ctrl-C ends the process at once: the page first
            verdict = _beside_the_reference(cluster, app, schedule, folder, title, mine) if with_reference else mine()
        breach = contract_breach(verdict)
    finally:
        report()
    if breach is not None:
        raise breach
    return verdict


def _beside_the_reference(
    cluster: KafkaCluster,
    app: UserAppWorkload,
    schedule: StepsFor,
    folder: Path,
    title: str,
    mine: Callable[[], VariantVerdict],
) -> VariantVerdict:
    """The user's side and the reference's under ``schedule``, at once when its faults keep apart;
    the user's judged again with what the reference showed."""
    twin = reference.workload(app)
    story = f"The reference at-least-once app ({' '.join(twin.command)}) under the schedule of: {title}"
    aimed = reference.schedule_for(schedule, app, twin)
    ref_scenario = Scenario(APP_ID, title, story, twin, aimed, reference.VARIANT, reference.VARIANT)

    def theirs() -> VariantVerdict:
        return run_variant(cluster, ref_scenario, reference.VARIANT, folder / reference.VARIANT.name, reference.LINKS)

    if reference.apart_from_the_app(schedule(app.output_topic)):
        with ThreadPoolExecutor(2) as pool:
            ours, ref = pool.submit(mine), pool.submit(theirs)
            verdict, control = ours.result(), ref.result()
    else:
        control, verdict = theirs(), mine()
    if contract_breach(verdict) is not None:
        return verdict
    return reference.with_reference(verdict, control, folder / APP_VARIANT.name)


# --- the command line -------------------------------------------------------------------------


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    sp = sub.add_parser(
        "check-app",
        help="run your own consume-transform-produce app under faults and judge each input exactly once",
        description="Run your app as it is (docs/your-app.md: the environment it gets, how its outputs name "
        "their inputs) under a fault schedule, and judge each input exactly once.",
    )
    sp.add_argument("--cmd", required=True, help='your app\'s command line, e.g. "python my_app.py" (no shell)')
    sp.add_argument("--input-topic", required=True, help="the topic the harness creates and fills for your app")
    sp.add_argument("--output-topic", required=True, help="the topic your app writes its outputs to")
    sp.add_argument("--instances", type=int, default=1, help="instances run at once, in one group (default 1)")
    sp.add_argument("--inputs", type=int, help="input records (default 1000, or the --like scenario's)")
    sp.add_argument(
        "--input",
        choices=("live", "before"),
        help="write the input while your app runs, in bursts and pauses (live: the default with --like and "
        "--explore), or all of it before it starts (before: the default otherwise)",
    )
    sp.add_argument("--partitions", type=int, help="partitions of both topics (default 3, or the scenario's)")
    faults = sp.add_mutually_exclusive_group()
    faults.add_argument("--like", metavar="SCENARIO", help="use that scenario's fault schedule (e.g. B1)")
    faults.add_argument("--schedule", metavar="FILE", help="a fault schedule in JSON (docs/your-app.md)")
    faults.add_argument("--no-faults", action="store_true", help="no faults: a sunny-day run")
    sp.add_argument(
        "--no-reference",
        action="store_true",
        help="do not run the reference at-least-once app under the same schedule (faster; a pass then "
        "rests on where the faults hit alone)",
    )
    sp.add_argument(
        "--extract", metavar="MODULE:FUNCTION", help="your function naming an output's input (docs/your-app.md)"
    )
    sp.add_argument(
        "--output-isolation",
        choices=ISOLATION_LEVELS,
        default="read_committed",
        help="how your output's consumers read it (default read_committed)",
    )
    sp.add_argument(
        "--idle-timeout",
        type=float,
        default=IDLE_TIMEOUT_S,
        metavar="S",
        help=f"stop the app after this long without progress (default {IDLE_TIMEOUT_S:.0f})",
    )
    sp.add_argument("--runs-dir", help="where run folders go (default: ./runs)")
    sp.add_argument("--junit", metavar="FILE", help="also write the result as JUnit XML to FILE")
    sp.add_argument("--json", action="store_true", help="print the verdict JSON instead of the summary")
    sp.add_argument("--kafka-version", help=f"Kafka version (tested: {', '.join(KNOWN_KAFKA_VERSIONS)})")
    sp.add_argument("--toxiproxy-version", help="Toxiproxy version")
    sp.set_defaults(func=cmd_check_app)


def _command(text: str) -> list[str]:
    try:
        argv = shlex.split(text)
    except ValueError as exc:
        raise HarnessError(f"--cmd {text!r}: {exc}") from exc
    if not argv:
        raise HarnessError("--cmd is empty: give your app's command line")
    if shutil.which(argv[0]) is None:
        raise HarnessError(f"--cmd: {argv[0]!r} is not an executable on PATH nor a path to one")
    return argv


def workload(args: argparse.Namespace) -> tuple[UserAppWorkload, StepsFor, str]:
    """Everything the arguments say, checked before any container starts; and the schedule's name."""
    command = _command(args.cmd)
    if args.instances < 1:
        raise HarnessError(f"--instances must be 1 or more, not {args.instances}")
    if args.input_topic == args.output_topic:
        raise HarnessError("--input-topic and --output-topic must differ")
    if args.extract:
        contract.load_extractor(args.extract)
    inputs, partitions = 1000, 3
    if args.like:
        steps, pipeline = schedules.like(args.like, args.instances)
        inputs, partitions, named = pipeline.inputs, pipeline.partitions, f"{args.like.upper()}'s schedule"
    elif args.schedule:
        steps, named = schedules.from_file(Path(args.schedule), args.instances, args.input_topic), args.schedule
    elif args.no_faults:
        steps, named = schedules.none(), "no faults"
    else:
        named = "one SIGKILL of app-1 mid-stream, restarted a second later"
        steps = schedules.default(args.inputs or inputs)
    for flag, value in (("--inputs", args.inputs), ("--partitions", args.partitions)):
        if value is not None and value < 1:
            raise HarnessError(f"{flag} must be 1 or more, not {value}")
    app = UserAppWorkload(
        tuple(command),
        args.input_topic,
        args.output_topic,
        inputs=args.inputs or inputs,
        partitions=args.partitions or partitions,
        instances=args.instances,
        naming=Naming(args.extract or ""),
        view=args.output_isolation,
        idle_timeout_s=args.idle_timeout,
        live_input=args.input == "live" or (args.input is None and bool(args.like or getattr(args, "explore", 0))),
    )
    return app, steps, named


def settings_of(args: argparse.Namespace) -> Settings:
    """The run's settings from the arguments, its Kafka version checked before anything starts."""
    settings = Settings().with_overrides(
        kafka_version=args.kafka_version,
        toxiproxy_version=args.toxiproxy_version,
        runs_dir=Path(args.runs_dir) if args.runs_dir else None,
    )
    versions.kafka(settings.kafka_version)
    return settings


def wants_reference(args: argparse.Namespace) -> bool:
    """The reference app runs beside the user's unless asked not to, or there is no fault."""
    return not (args.no_reference or getattr(args, "no_faults", False))


def cmd_check_app(args: argparse.Namespace) -> int:
    app, steps, named = workload(args)
    settings = settings_of(args)
    title = f"check-app: {' '.join(app.command)}"
    story = (
        f"Your app `{' '.join(app.command)}` ({app.instances} instance(s)) reads {app.inputs} inputs from "
        f"{app.input_topic} and writes {app.output_topic}, under {named}. Each input read committed must be named "
        f"by exactly one output its consumers ({app.view}) see, and none may come from an aborted transaction."
    )
    folder = run_folder(settings.runs_dir)
    report = folder / report_page.REPORT
    try:
        with KafkaCluster(settings) as cluster:
            verdict = check(cluster, app, steps, folder, title, story, with_reference=wants_reference(args))
    except ContractError as exc:
        if args.junit:
            say(f"junit: {junit.write(junit.app_run(title, None, report, str(exc)), Path(args.junit))}")
        raise
    outcome = side_outcome(verdict)
    if args.json:
        print(json.dumps(verdict.to_json(), indent=2), flush=True)
    else:
        print("\n".join([f"{title}: {outcome.upper()}", *side_lines(verdict)]), flush=True)
        print(f"report: {report}", flush=True)
    if args.junit:
        say(f"junit: {junit.write(junit.app_run(title, verdict, report), Path(args.junit))}")
    return EXIT[outcome]
