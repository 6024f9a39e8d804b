"""The fault schedules a user's app runs under: a default one, a scenario's (``--like``), or one
written in a JSON file (``--schedule``). Each is a function of the output topic, as a
scenario's schedule is (the runner hands it the plan's main topic), returning ``Step``\\s
aimed at roles and at the app's instances ``app-1`` ….

**``--like SCENARIO``** takes a consume-transform-produce scenario's schedule (its workload is a
``PipelineWorkload``): its transformer apps ``transformer-i`` become the user's instances
``app-i``, and link faults it aims at the ``client`` listener (where its transformers were)
go to the user's app links. Steps that wait for what only the harness's own apps write in
their ledgers (``BatchUncommitted``, ``AppSent``), or that launch a replacement instance,
cannot be carried over: such a scenario is refused, saying why.

**The JSON file** (docs/your-app.md has examples)::

    {"steps": [
      {"at_s": 0, "fault": "kill", "target": "app-1", "duration_s": 1,
       "when": {"output_at_least": 200}, "when_timeout_s": 30},
      {"at_s": 5, "fault": "blackhole", "target": "app-links", "duration_s": 8},
      {"at_s": 3, "fault": "latency", "target": {"leader": "output", "partition": 0},
       "params": {"ms": 300}, "direction": "from_broker", "duration_s": 5},
      {"at_s": 8, "fault": "kill", "target": {"coordinator_of": "app-1"}, "duration_s": 10}
    ]}

``at_s`` (seconds after the apps start), ``fault`` (a fault kind of harness.faults), ``target``
(``"app-N"``; ``"app-links"``: every link of the apps; ``"brokers"``; ``{"broker": id}``;
``{"leader"|"followers": "input"|"output"|topic, "partition": p}``; ``{"coordinator_of":
"app-N"}``: the coordinator of that instance's transactional.id), ``params`` (the fault
constructor's own, e.g. ``ms`` for latency), ``listener`` for link faults (``app``, the
default: the apps' own links; ``client``, ``replication``, ``controller``), ``direction``,
``duration_s`` (absent: healed at the end), ``when`` (``{"output_at_least": n}``,
``{"isr_at_most": n, "topic": ..., "partition": p}``, ``{"isr_at_least": ...}``, ``{"paused":
"app-N"}``) and ``when_timeout_s``.

A file in the harness's own JSON form of a schedule (its ``"schema"`` is
``kafka-eos-harness/schedule/1``: what ``explore`` keeps and ``shrink`` writes; docs/faults.md)
is taken as it is, ``{topic}`` standing for the output topic and ``App("app-N")`` for an
instance.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import scenarios
from harness import faults
from harness.errors import HarnessError
from harness.faults import (
    App,
    Brokers,
    FaultSpec,
    Followers,
    Isr,
    Leader,
    Node,
    Paused,
    Step,
    TxnCoordinator,
    kinds,
    serial,
)
from harness.userapps import contract
from harness.userapps.app import instance_name
from harness.userapps.output import OutputAtLeast
from harness.userapps.workload import APP_LINKS
from harness.workloads.pipeline import PipelineWorkload, transformer

StepsFor = Callable[[str], list[Step]]  # the output topic -> the steps
# The harness's conditions that read ledgers, which a user's app does not write.
_LEDGER_CONDITIONS = ("BatchUncommitted", "AppSent")
# The share of the input written to the output when the default schedule's kill comes.
_DEFAULT_KILL_AT = 0.25
_DEFAULT_WHEN_TIMEOUT_S = 30.0


def default(inputs: int) -> StepsFor:
    """One SIGKILL of ``app-1`` once a quarter of the input's outputs are written, restarted a
    second later: a crash mid-stream."""

    def steps(output: str) -> list[Step]:
        when = OutputAtLeast(output, max(1, int(inputs * _DEFAULT_KILL_AT)))
        kill = faults.kill(App(instance_name(1)))
        return [Step(0.0, kill, duration_s=1.0, when=when, when_timeout_s=_DEFAULT_WHEN_TIMEOUT_S)]

    return steps


def none() -> StepsFor:
    return lambda output: []


def like(scenario_id: str, instances: int) -> tuple[StepsFor, PipelineWorkload]:
    """``scenario_id``'s schedule for the user's instances, checked now; and its workload (its
    input size and partitions are what the schedule was timed for)."""
    scenario = scenarios.get(scenario_id)
    workload = scenario.workload
    if not isinstance(workload, PipelineWorkload):
        raise HarnessError(
            f"--like {scenario.id}: {scenario.id} runs a {type(workload).__name__}, not a consume-transform-produce "
            f"app; pick one of {', '.join(usable())}, or write a schedule (--schedule FILE)"
        )
    names = {transformer(i): instance_name(i) for i in range(1, instances + 1)}

    def steps(output: str) -> list[Step]:
        return [_carried_over(scenario.id, step, names, instances) for step in scenario.schedule(output)]

    steps("check")  # refused now, before any container starts, if it cannot be carried over
    return steps, workload


def usable() -> list[str]:
    """The scenarios whose schedules ``like`` carries over (with enough instances)."""
    found = []
    for scenario in scenarios.all_scenarios().values():
        if isinstance(scenario.workload, PipelineWorkload):
            try:
                like(scenario.id, scenario.workload.instances + scenario.workload.standby)
            except HarnessError:
                continue
            found.append(scenario.id)
    return found


def _carried_over(scenario_id: str, step: Step, names: dict[str, str], instances: int) -> Step:
    where = f"--like {scenario_id}: its step {step.fault.describe()}"
    condition = type(step.when).__name__
    if condition in _LEDGER_CONDITIONS:
        raise HarnessError(
            f"{where} waits for {step.when}, which it reads from the harness app's ledger; your app writes "
            "none: write the schedule yourself (--schedule FILE, docs/your-app.md)"
        )
    if step.fault.kind == "launch":
        raise HarnessError(
            f"{where} starts a replacement instance mid-run; check-app starts every instance at once: write the "
            "schedule yourself (--schedule FILE)"
        )

    def app(name: str) -> str:
        if name not in names:
            raise HarnessError(f"{where} aims at {name}; with --instances {instances} there is no such instance")
        return names[name]

    fault = step.fault
    if isinstance(fault.target, App):
        fault = replace(fault, target=App(app(fault.target.name)))
    listeners = tuple(APP_LINKS if listener == "client" else listener for listener in fault.listeners)
    when = Paused(app(step.when.app)) if isinstance(step.when, Paused) else step.when
    return replace(step, fault=replace(fault, listeners=listeners), when=when)


def from_file(path: Path, instances: int, input_topic: str) -> StepsFor:
    """The schedule written in ``path`` (the module's format), checked now."""
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        raise HarnessError(f"--schedule {path}: cannot read it: {exc.strerror}") from exc
    except ValueError as exc:
        raise HarnessError(f"--schedule {path}: not JSON: {exc}") from exc
    if isinstance(doc, dict) and doc.get("schema") == serial.SCHEMA:
        return _serial(doc, path)
    raw = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(raw, list):
        raise HarnessError(f'--schedule {path}: expected {{"steps": [...]}} (see docs/your-app.md)')

    def steps(output: str) -> list[Step]:
        topics = {"output": output, "input": input_topic}
        return [_step(item, f"--schedule {path}: step {n}", topics, instances) for n, item in enumerate(raw, 1)]

    steps("check")
    return steps


def _serial(doc: dict[str, Any], path: Path) -> StepsFor:
    """A schedule in the harness's own JSON form (what explore keeps and shrink writes:
    harness.faults.serial), ``{topic}`` standing for the output topic; checked now."""
    if not isinstance(doc.get("steps"), list):
        raise HarnessError(f'--schedule {path}: expected "steps": [...] beside "schema" (see docs/faults.md)')

    def steps(output: str) -> list[Step]:
        try:
            return serial.steps(doc, output)
        except serial.ScheduleError as exc:
            raise HarnessError(f"--schedule {path}: {exc}") from exc

    steps("check")
    return steps


_STEP_KEYS = {"at_s", "fault", "target", "params", "listener", "direction", "duration_s", "when", "when_timeout_s"}


def _step(item: Any, where: str, topics: dict[str, str], instances: int) -> Step:
    if not isinstance(item, dict):
        raise HarnessError(f"{where}: expected an object with at_s, fault and target")
    unknown = sorted(set(item) - _STEP_KEYS)
    if unknown:
        raise HarnessError(f"{where}: unknown field {unknown[0]!r}; known: {', '.join(sorted(_STEP_KEYS))}")
    for needed in ("at_s", "fault", "target"):
        if needed not in item:
            raise HarnessError(f"{where}: {needed} is missing")
    fault = _fault(item, where, topics, instances)
    when = _condition(item["when"], where, topics, instances) if item.get("when") is not None else None
    try:
        return serial.timed_step(item, fault, when)
    except (TypeError, ValueError) as exc:
        raise HarnessError(f"{where}: at_s, duration_s and when_timeout_s are numbers of seconds ({exc})") from exc


def _fault(item: dict[str, Any], where: str, topics: dict[str, str], instances: int) -> FaultSpec:
    kind = item["fault"]
    usable = {name: k for name, k in kinds.registry().items() if not k.instant}  # operations need no schedule file
    if kind not in usable:
        raise HarnessError(f"{where}: unknown fault {kind!r}; one of {', '.join(usable)}")
    constructor = usable[kind].make
    accepted = inspect.signature(constructor).parameters
    target, app_links = _target(item["target"], where, topics, instances)
    args: dict[str, Any] = dict(item.get("params") or {})
    if "listener" in accepted:
        listener = item.get("listener", "app")
        args["listener"] = APP_LINKS if listener == "app" or app_links else listener
    elif "listener" in item or app_links:
        raise HarnessError(f"{where}: {kind} is no link fault: it takes no listener (and no app-links target)")
    if "direction" in item:
        args["direction"] = item["direction"]
    try:
        return constructor(target, **args)  # type: ignore[no-any-return]
    except (TypeError, ValueError) as exc:
        params = ", ".join(p for p in list(accepted)[1:] if p not in ("listener", "direction"))
        raise HarnessError(f"{where}: {kind}: {exc}; its params: {params or 'none'}") from exc


def _target(raw: Any, where: str, topics: dict[str, str], instances: int) -> tuple[Any, bool]:
    """The role a step aims at, and whether it is the apps' links."""
    if raw == "app-links":
        return Brokers(), True
    if raw == "brokers":
        return Brokers(), False
    if isinstance(raw, str) and raw.startswith("app-"):
        return App(_instance(raw, where, instances)), False
    if isinstance(raw, dict) and len(raw) in (1, 2):
        if "broker" in raw:
            return Node(int(raw["broker"])), False
        if "coordinator_of" in raw:
            number = int(_instance(raw["coordinator_of"], where, instances).rsplit("-", 1)[1])
            prefix = contract.transactional_id_prefix(topics["output"])
            return TxnCoordinator(contract.transactional_id(prefix, number)), False
        for role, kind in (("leader", Leader), ("followers", Followers)):
            if role in raw:
                return kind(topics.get(raw[role], raw[role]), int(raw.get("partition", 0))), False
    raise HarnessError(
        f'{where}: unknown target {raw!r}; one of "app-N", "app-links", "brokers", {{"broker": id}}, '
        '{"leader": "output", "partition": 0}, {"followers": ...}, {"coordinator_of": "app-N"}'
    )


def _instance(name: Any, where: str, instances: int) -> str:
    known = [instance_name(i) for i in range(1, instances + 1)]
    if name not in known:
        raise HarnessError(f"{where}: no instance {name!r}; with --instances {instances}: {', '.join(known)}")
    return str(name)


def _condition(raw: Any, where: str, topics: dict[str, str], instances: int) -> Any:
    if isinstance(raw, dict) and "output_at_least" in raw:
        return OutputAtLeast(topics["output"], int(raw["output_at_least"]))
    if isinstance(raw, dict) and "paused" in raw:
        return Paused(_instance(raw["paused"], where, instances))
    for bound in ("isr_at_most", "isr_at_least"):
        if isinstance(raw, dict) and bound in raw:
            topic = topics.get(raw.get("topic", "output"), raw.get("topic", "output"))
            size = {bound.removeprefix("isr_"): int(raw[bound])}
            return Isr(topic, int(raw.get("partition", 0)), **size)
    raise HarnessError(
        f'{where}: unknown condition {raw!r}; one of {{"output_at_least": n}}, {{"paused": "app-N"}}, '
        '{"isr_at_most": n, "topic": "output", "partition": 0}, {"isr_at_least": ...}'
    )
