"""What the pytest plugin's fixtures do. harness.pytest_plugin, the module pytest loads in every
session of a project that installed the harness, only declares them; each imports this module
when a test first asks for one: the cluster, the test's run, its input, apps, faults and the check.

Here come the harness's heavy parts (numpy, pyarrow, confluent-kafka, testcontainers, Docker's
client, the report's plotly and Jinja2), so a session that asks for no fixture pays nothing for
them. The functions take plain values (the options' values, the test's name), not pytest's
request, so the plugin owns its options and the fixtures' wiring alone.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness import stopping, versions
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.faults import Faults, FaultSpec, Injected, Schedule, Step
from harness.history.readback import high_watermarks
from harness.progress import say
from harness.report import page as report_page
from harness.report.run_folder import APP_SIDE
from harness.runner import ScenarioText, judge_side
from harness.settings import Settings
from harness.userapps.app import GroupProgress, Progress
from harness.userapps.contract import Naming
from harness.userapps.output import SINK_FINDINGS
from harness.userapps.workload import (
    APP_LINKS,
    APP_VARIANT,
    IDLE_TIMEOUT_S,
    Input,
    UserApps,
    app_plan,
    contract_breach,
    user_apps,
    write_input,
)
from harness.verdict.document import VariantVerdict, side_outcome
from harness.verdict.outcome import Outcome
from harness.waits import Deadline, poll_until
from harness.workloads.base import SideSetup

__all__ = ["APP_LINKS", "Checked", "ExactlyOnceViolation", "FaultsFixture", "KafkaFixture", "RunningApp"]

# Without a group to watch (an app run inside the test), the output is taken as finished once
# its high watermarks stand still this long.
QUIET_S = 5.0
# How long assert_exactly_once waits for the apps to catch up before judging what they did.
CATCH_UP_S = 300.0
_TOPIC_NAME = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class KafkaFixture:
    """What ``kafka_cluster`` gives a test."""

    cluster: KafkaCluster

    @property
    def bootstrap_servers(self) -> str:
        """For your app: through its own links, which ``APP_LINKS`` faults cut."""
        return self.cluster.bootstrap_servers(APP_LINKS)

    @property
    def version(self) -> str:
        return self.cluster.settings.kafka_version

    def create_topic(self, name: str, partitions: int = 3) -> str:
        """A new topic named ``<name>-<6 hex>`` (so every test gets its own); its name."""
        topic = unique_topic(name)
        self.cluster.create_topic(topic, partitions)
        return topic


def unique_topic(name: str) -> str:
    return f"{_TOPIC_NAME.sub('-', name)[:80]}-{uuid.uuid4().hex[:6]}"


def kafka_cluster(kafka_version: str) -> Iterator[KafkaFixture]:
    """The session's cluster (``kafka_version`` empty: the harness's), removed when resumed."""
    settings = Settings().with_overrides(kafka_version=kafka_version or None)
    try:
        versions.kafka(settings.kafka_version)
        cluster = KafkaCluster(settings).start()
    except HarnessError as exc:
        pytest.fail(f"kafka_cluster: {exc}", pytrace=False)
    try:
        with cluster:
            yield KafkaFixture(cluster)
    finally:
        stopping.kill_children()  # anything a test started and its teardown missed (interrupted)


@dataclass
class RunningApp:
    """Your app's instances, started by ``kafka_app``."""

    apps: UserApps
    kafka: KafkaFixture

    @property
    def name(self) -> str:
        """The first instance's name, for ``App(...)`` targets."""
        return self.apps.apps[0].name

    @property
    def names(self) -> list[str]:
        return [app.name for app in self.apps.apps]

    @property
    def transactional_ids(self) -> list[str]:
        """What each instance is asked to use, for ``TxnCoordinator(...)`` targets."""
        return self.apps.transactional_ids

    def wait_for_outputs(self, records: int, timeout_s: float = 60) -> None:
        """Until the output topic holds ``records`` records (committed or not): mid-stream."""
        self._wait(
            lambda p: p.outputs >= records, f"{self.apps.output_topic} did not reach {records} records", timeout_s
        )

    def wait_caught_up(self, timeout_s: float = 60) -> None:
        """Until the app's group has committed the offset of every input: done with its input."""
        self._wait(lambda p: p.caught_up, f"group {self.apps.group} did not commit every input's offset", timeout_s)

    def _wait(self, done: Callable[[Progress], bool], failure: str, timeout_s: float) -> None:
        progress = self.apps.progress
        assert progress is not None  # kafka_app's apps always have their group watched
        polled = poll_until(progress.look, done, timeout_s, interval_s=0.2, abort=self._crashed)
        if polled.aborted:
            pytest.fail(polled.aborted, pytrace=False)
        if not polled.done:
            pytest.fail(f"{failure} in {timeout_s:.0f}s")

    def _crashed(self) -> str | None:
        """An instance that crashed: nothing to wait for any more."""
        crashed = [r for app in self.apps.apps for r in app.crashes()]
        if not crashed:
            return None
        r = crashed[0]
        return f"{r['app']} exited {r['exit']}: {r.get('last_line', '')}"


@dataclass
class HarnessRun:
    """One test's use of the harness: its run folder, faults, input and apps."""

    kafka: KafkaFixture
    folder: Path
    faults: Faults
    started_at: float = field(default_factory=time.time)
    input: Input | None = None
    apps: list[UserApps] = field(default_factory=list)
    schedules: list[Schedule] = field(default_factory=list)

    @property
    def side_dir(self) -> Path:
        return self.folder / APP_SIDE

    def close(self) -> None:
        """Heal every fault (a killed app is started again), then kill every app; a test that
        ended before ``assert_exactly_once`` still gets a report of what it left."""
        try:
            for schedule in self.schedules:
                schedule.finish()
            self.faults.heal_all()
        finally:
            for users in self.apps:
                for app in users.apps:
                    app.kill()
                if users.progress is not None:
                    users.progress.close()
            stopping.kill_children()
            if self.folder.is_dir() and not (self.folder / report_page.REPORT).exists():
                report_page.write(self.folder, "The test ended before assert_exactly_once judged its app.")


def harness_run(kafka_cluster: KafkaFixture, runs: Path, test: str) -> Iterator[HarnessRun]:
    """One test's run, its folder under ``runs``; everything it started is stopped when resumed."""
    name = _TOPIC_NAME.sub("-", test)[:60]
    folder = runs / f"{time.strftime('%Y%m%d-%H%M%S')}-{name}-{uuid.uuid4().hex[:4]}"
    run = HarnessRun(kafka_cluster, folder, Faults(kafka_cluster.cluster, apps={}, own_links=APP_LINKS))
    try:
        yield run
    finally:
        run.close()


class FaultsFixture:
    """The ``faults`` fixture: the harness's faults, healed at the end of a block or of the test."""

    def __init__(self, run: HarnessRun) -> None:
        self._run = run

    def inject(self, spec: FaultSpec) -> Injected:
        """Inject now; ``.heal()`` it, or the test's end does."""
        return self._run.faults.inject(spec)

    @contextmanager
    def __call__(self, spec: FaultSpec) -> Iterator[Injected]:
        injected = self.inject(spec)
        try:
            yield injected
        finally:
            injected.heal()

    @contextmanager
    def schedule(self, steps: Sequence[Step]) -> Iterator[Schedule]:
        """The steps run beside the block, timed from its start; at its end the steps still to
        come are waited for (up to ``CATCH_UP_S``), then everything is healed."""
        # Its names are the test's own: a step naming a part of a plan says so when it starts.
        running = Schedule(self._run.faults, steps, None).start()
        self._run.schedules.append(running)
        try:
            yield running
            running.wait(CATCH_UP_S)
        finally:
            running.finish()

    @property
    def errors(self) -> list[str]:
        """Steps of the schedules that failed or were skipped."""
        return [e for s in self._run.schedules for e in s.errors]


def eos_input(run: HarnessRun) -> Callable[..., Input]:
    """``eos_input(topic, n, partitions=3)``: the test's one input, written and its ledger kept."""

    def write(topic: str, n: int, partitions: int = 3) -> Input:
        if run.input is not None:
            raise pytest.UsageError(f"eos_input: one input per test (this one has {run.input.topic})")
        run.side_dir.mkdir(parents=True, exist_ok=True)
        try:
            run.input = write_input(run.kafka.cluster, run.side_dir, unique_topic(topic), n, partitions)
        except HarnessError as exc:
            pytest.fail(f"eos_input: {exc}", pytrace=False)
        return run.input

    return write


def kafka_app(run: HarnessRun) -> Callable[..., RunningApp]:
    """``kafka_app(command, input, output, instances=1)``: the test's one app, started."""

    def start(
        command: Sequence[str], input: Input, output: str, instances: int = 1, idle_timeout_s: float = IDLE_TIMEOUT_S
    ) -> RunningApp:
        if run.apps:
            raise pytest.UsageError("kafka_app: one app per test (start more instances with instances=n)")
        users = user_apps(run.kafka.cluster, run.side_dir, list(command), input, output, instances, idle_timeout_s)
        run.apps.append(users)
        for app in users.apps:
            run.faults.apps[app.name] = app
            app.start()
        return RunningApp(users, run.kafka)

    return start


class ExactlyOnceViolation(AssertionError):
    """``assert_exactly_once`` found inputs not processed exactly once (or a check failed)."""

    def __init__(self, message: str, verdict: VariantVerdict, report: Path | None) -> None:
        super().__init__(message)
        self.verdict, self.report = verdict, report

    @property
    def counts(self) -> dict[str, int]:
        return {name: self.verdict.count(name) for name in SINK_FINDINGS}

    @property
    def outcome(self) -> Outcome:
        """Failed, unknown or inconclusive, as ``check-app`` would say (its exit code: ``.exit_code``)."""
        return side_outcome(self.verdict)


@dataclass(frozen=True)
class Checked:
    """What ``assert_exactly_once`` returns when the app passed."""

    verdict: VariantVerdict
    report: Path | None


def assert_exactly_once(run: HarnessRun, test: str) -> Callable[..., Checked]:
    """``assert_exactly_once(input=..., output=...)``: the check of ``test``'s app, its report written."""

    def check(
        input: Input,
        output: str,
        view: str = "read_committed",
        extract: str = "",
        group: str | None = None,
        timeout_s: float = CATCH_UP_S,
    ) -> Checked:
        """``view``: how the output's consumers read it; ``extract``: your ``module:function``
        naming an output's input; ``group``: the group of an app the test runs itself."""
        __tracebackhide__ = True  # a failure points at the test's line, not at the plugin
        # Healed first: a killed app then starts again and is waited for like the others.
        for schedule in run.schedules:
            schedule.finish()
        run.faults.heal_all()
        users = next((u for u in run.apps if u.input is input and u.output_topic == output), None)
        if users is None:  # an app the test runs itself: no instances to stop, maybe a group to watch
            users = _watched(run, input, output, group)
            if group is None:
                _wait_quiet(run.kafka.cluster, output, timeout_s)
        for app in users.apps:
            if not app.wait(timeout_s):
                say(f"{app.name} did not finish in {timeout_s:.0f}s: judged as it stands")
        plan = app_plan(users, run.side_dir, Naming(extract), view)
        side = SideSetup(run.kafka.cluster, run.side_dir, test, {}, {}, APP_LINKS)
        errors = [e for s in run.schedules for e in s.errors]
        told = ScenarioText(test, " ".join(users.command) or "the test's own app", _story(users, view))
        verdict = judge_side(told, APP_VARIANT, side, plan, run.faults, errors, [], run.started_at)
        breach = contract_breach(verdict)
        story = told.story + (f"\n\nNo verdict: {breach}" if breach else "")
        report = report_page.write(run.folder, story, told.title)
        if breach is not None:
            pytest.fail(f"{breach} (report: {report})", pytrace=False)
        if not verdict.passed:
            raise ExactlyOnceViolation(_message(verdict, report), verdict, report)
        return Checked(verdict, report)

    return check


def _watched(run: HarnessRun, source: Input, output: str, group: str | None) -> UserApps:
    """The app a test runs itself, as the check sees it: no instances; its group, if named, watched
    until it has caught up (or made no progress for IDLE_TIMEOUT_S)."""
    if group is None:
        return UserApps([], source, output, "", "", [], None)
    cluster = run.kafka.cluster
    progress = GroupProgress(
        cluster.bootstrap_servers(), cluster.client_config(), group, source.topic, source.targets, output
    )
    polled = poll_until(
        progress.look,
        lambda looked: looked.caught_up,
        CATCH_UP_S,
        interval_s=0.5,
        abort=lambda: f"no progress for {IDLE_TIMEOUT_S:.0f}s" if progress.idle_s() >= IDLE_TIMEOUT_S else None,
    )
    if not polled.done:  # judged as it stands: what it has not done yet shows in the verdict
        why = polled.aborted or f"not within {CATCH_UP_S:.0f}s"
        say(f"group {group} has not committed every input's offset ({why}): judged as it stands")
    return UserApps([], source, output, group, "", [], progress)


def _wait_quiet(cluster: KafkaCluster, topic: str, timeout_s: float) -> None:
    """Until ``topic``'s high watermarks have stood still for ``QUIET_S``; past ``timeout_s``
    it says so and goes on (the output is then judged as it stands)."""
    last: object = None
    quiet = Deadline(QUIET_S)

    def still() -> bool:
        nonlocal last, quiet
        marks = high_watermarks(cluster.bootstrap_servers(), [topic], cluster.client_config())
        if marks != last:  # it moved: the quiet starts again
            last, quiet = marks, Deadline(QUIET_S)
        return quiet.expired()

    if not poll_until(still, bool, timeout_s, interval_s=0.5).done:
        say(f"{topic} was still growing after {timeout_s:.0f}s (high watermarks {last!s:.200}): judged as it stands")


def _story(users: UserApps, view: str) -> str:
    who = f"`{' '.join(users.command)}` ({len(users.apps)} instance(s))" if users.command else "the test's own app"
    return (
        f"{who} reads {users.input.written} inputs from {users.input.topic} and writes {users.output_topic}. Each "
        f"input read committed must be named by exactly one output its consumers ({view}) see, and none may come "
        "from an aborted transaction."
    )


def _message(verdict: VariantVerdict, report: Path | None) -> str:
    """The findings as a failed assertion shows them: counts, example records, failed checks."""
    sink = verdict.record.sink
    counts = ", ".join(f"{verdict.count(name)} {name}" for name in SINK_FINDINGS)
    outcome = side_outcome(verdict)
    lines = [
        f"exactly-once broken: {counts}" if outcome == Outcome.FAILED else f"{outcome.value}: {counts}",
        f"  {verdict.record.topics[0]} -> {sink.get('output')}, output read {sink.get('view')}"
        f" (as the other isolation level: {next((v for k, v in sink.items() if k.startswith('as_')), '?')})",
    ]
    for name in SINK_FINDINGS:
        for example in sink.get(name, {}).get("examples", [])[:3]:
            where = ", ".join(example["outputs"]) or f"no output (the input is at {example.get('input_at', '?')})"
            lines.append(f"  {name}: input {example['input']}: {where}")
    lines += [f"  {reason}" for reason in verdict.reasons if not reason.startswith("found ")]
    lines.append(f"report: {report}")
    return "\n".join(lines)


# Their public home is the plugin module, which looks them up here: a failed check reads
# ``harness.pytest_plugin.ExactlyOnceViolation: ...``, as it always has.
for _public in (Checked, ExactlyOnceViolation, FaultsFixture, KafkaFixture, RunningApp):
    _public.__module__ = "harness.pytest_plugin"
