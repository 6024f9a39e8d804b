"""``kafka-harness check-app``: a user's consume-transform-produce app, as it is, under faults.

The harness starts a cluster, creates the input and output topics, writes the input, starts
the app's instances with the contract's environment (harness.userapps.contract), kills and
restarts them as the schedule says (harness.userapps.schedules), stops them once their group
has caught up, reads the output back and judges each input exactly once. ``run`` does it as
the user's ``AppRequest`` asks (harness.cli.check_app makes one of the command line): it writes
``app/verdict.json`` and ``report.html`` in a run folder, JUnit XML on request, and exits 0
(passed), 1 (exactly-once or a check broken), 3 (a fault did not happen as written: nothing
proven) or 2 (bad input, or an app that breaks the contract: one line saying what to do).

``check`` is one run on a cluster already up, under a given schedule: the function a search
over schedules (an explorer) calls again and again.
"""

from __future__ import annotations

import json
import shlex
import shutil
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from harness import stopping
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.progress import say
from harness.report import junit
from harness.report import page as report_page
from harness.runner import run_variant
from harness.scenario import Scenario
from harness.settings import Settings
from harness.userapps import contract, reference, schedules
from harness.userapps.contract import ContractError, Naming
from harness.userapps.schedules import Steps
from harness.userapps.workload import APP_LINKS, APP_VARIANT, IDLE_TIMEOUT_S, UserAppWorkload, contract_breach
from harness.verdict.document import VariantVerdict, side_outcome
from harness.verdict.summary import side_lines

APP_ID = "APP"  # the run folders' scenario part: <time>-APP-<id>
ISOLATION_LEVELS = ("read_committed", "read_uncommitted")


@dataclass(frozen=True)
class AppRequest:
    """What the user asks of ``check-app``: their app and its topics, its input, the faults it
    runs under, and the outputs wanted; as given, ``workload`` checks it."""

    cmd: str  # the app's command line, split as a shell would (no shell runs it)
    input_topic: str
    output_topic: str
    instances: int = 1
    inputs: int | None = None  # None: 1000, or the --like scenario's
    partitions: int | None = None  # None: 3, or the --like scenario's
    input_mode: str | None = None  # "live" or "before"; None: live under a scenario's or drawn schedules
    like: str = ""  # the scenario whose schedule the app runs under
    schedule: str = ""  # a schedule file, named in the story as given
    no_faults: bool = False  # none of the three: the default kill
    reference: bool = True  # the reference at-least-once app beside it, when there are faults
    extract: str = ""  # MODULE:FUNCTION naming an output's input; empty: its header or its head (Naming)
    output_isolation: str = "read_committed"
    idle_timeout_s: float = IDLE_TIMEOUT_S
    kafka_version: str = ""  # as given (empty: none), for the command that runs a run again
    junit: Path | None = None
    json: bool = False

    @property
    def with_reference(self) -> bool:
        """The reference app runs beside the user's unless asked not to, or there is no fault."""
        return self.reference and not self.no_faults


def run_folder(runs_dir: Path) -> Path:
    return runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{APP_ID}-{uuid.uuid4().hex[:4]}"


def check(
    cluster: KafkaCluster,
    app: UserAppWorkload,
    schedule: Steps,
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
    schedule: Steps,
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

    if reference.apart_from_the_app(schedule):
        with ThreadPoolExecutor(2) as pool:
            ours, ref = pool.submit(mine), pool.submit(theirs)
            verdict, control = ours.result(), ref.result()
    else:
        control, verdict = theirs(), mine()
    if contract_breach(verdict) is not None:
        return verdict
    return reference.with_reference(verdict, control, folder / APP_VARIANT.name)


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


def workload(request: AppRequest, explored: bool = False) -> tuple[UserAppWorkload, Steps, str]:
    """Everything ``request`` says, checked before any container starts; and the schedule's name.
    ``explored``: its schedules are drawn (``check-app --explore``), its input then live by default."""
    command = _command(request.cmd)
    if request.instances < 1:
        raise HarnessError(f"--instances must be 1 or more, not {request.instances}")
    if request.input_topic == request.output_topic:
        raise HarnessError("--input-topic and --output-topic must differ")
    if request.extract:
        contract.load_extractor(request.extract)
    inputs, partitions = 1000, 3
    if request.like:
        steps, pipeline = schedules.like(request.like, request.instances)
        inputs, partitions, named = pipeline.inputs, pipeline.partitions, f"{request.like.upper()}'s schedule"
    elif request.schedule:
        steps = schedules.from_file(Path(request.schedule), request.instances)
        named = request.schedule
    elif request.no_faults:
        steps, named = schedules.none(), "no faults"
    else:
        named = "one SIGKILL of app-1 mid-stream, restarted a second later"
        steps = schedules.default(request.inputs or inputs)
    for flag, value in (("--inputs", request.inputs), ("--partitions", request.partitions)):
        if value is not None and value < 1:
            raise HarnessError(f"{flag} must be 1 or more, not {value}")
    app = UserAppWorkload(
        tuple(command),
        request.input_topic,
        request.output_topic,
        inputs=request.inputs or inputs,
        partitions=request.partitions or partitions,
        instances=request.instances,
        naming=Naming(request.extract),
        view=request.output_isolation,
        idle_timeout_s=request.idle_timeout_s,
        live_input=request.input_mode == "live" or (request.input_mode is None and bool(request.like or explored)),
    )
    return app, steps, named


def run(request: AppRequest, settings: Settings) -> int:
    """The command: one run as ``request`` asks, on a cluster of its own; the verdict printed,
    JUnit XML written on request; the exit status."""
    app, steps, named = workload(request)
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
            verdict = check(cluster, app, steps, folder, title, story, with_reference=request.with_reference)
    except ContractError as exc:
        if request.junit:
            say(f"junit: {junit.write(junit.app_run(title, None, report, str(exc)), request.junit)}")
        raise
    outcome = side_outcome(verdict)
    if request.json:
        print(json.dumps(verdict.to_json(), indent=2), flush=True)
    else:
        print("\n".join([f"{title}: {outcome.upper()}", *side_lines(verdict)]), flush=True)
        print(f"report: {report}", flush=True)
    if request.junit:
        say(f"junit: {junit.write(junit.app_run(title, verdict, report), request.junit)}")
    return outcome.exit_code
