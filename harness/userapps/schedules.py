"""The fault schedules a user's app runs under: a default one, a scenario's (``--like``), or one
written in a JSON file (``--schedule``). Each is plain data in the harness's one form of a
schedule (``harness.faults.serial``), aimed at the parts of the app's plan: its ``INPUT`` and
``OUTPUT`` topics, its instances ``app-1`` … and each one's ``TransactionalId`` (what
``harness.userapps.workload.UserApps.names`` calls them in a run).

**``--like SCENARIO``** takes a consume-transform-produce scenario's schedule (its workload is a
``PipelineWorkload``) onto the user's app (``onto_app``): its transformer apps ``transformer-i``
become the user's instances ``app-i``, and link faults it aims at the ``client`` listener (where
its transformers were) go to the user's app links. Steps that wait for what only the harness's
own apps write in their ledgers (``BatchUncommitted``, ``AppSent``), or that launch a
replacement instance, cannot be carried over: such a scenario is refused, saying why.

**The JSON file** is read by ``harness.faults.serial``, aliases and all (docs/your-app.md has
examples)::

    {"steps": [
      {"at_s": 0, "fault": "kill", "target": "app-1", "duration_s": 1,
       "when": {"output_at_least": 200}, "when_timeout_s": 30},
      {"at_s": 5, "fault": "blackhole", "target": "app-links", "duration_s": 8},
      {"at_s": 3, "fault": "latency", "target": {"leader": "output", "partition": 0},
       "params": {"ms": 300}, "direction": "from_broker", "duration_s": 5},
      {"at_s": 8, "fault": "kill", "target": {"coordinator_of": "app-1"}, "duration_s": 10}
    ]}

and then taken onto the app as ``--like``'s are: a link fault on ``client`` (the default) hits
the app's own links, where it reaches the brokers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import scenarios
from harness import faults
from harness.errors import HarnessError
from harness.faults import OUTPUT, App, Step, serial
from harness.userapps.app import instance_name
from harness.userapps.output import OutputAtLeast
from harness.userapps.workload import APP_LINKS
from harness.workloads.pipeline import PipelineWorkload, transformer

Steps = tuple[Step, ...]
# The harness's conditions that read ledgers, which a user's app does not write.
_LEDGER_CONDITIONS = ("BatchUncommitted", "AppSent")
# The share of the input written to the output when the default schedule's kill comes.
_DEFAULT_KILL_AT = 0.25
_DEFAULT_WHEN_TIMEOUT_S = 30.0


def default(inputs: int) -> Steps:
    """One SIGKILL of ``app-1`` once a quarter of the input's outputs are written, restarted a
    second later: a crash mid-stream."""
    when = OutputAtLeast(OUTPUT, max(1, int(inputs * _DEFAULT_KILL_AT)))
    kill = faults.kill(App(instance_name(1)))
    return (Step(0.0, kill, duration_s=1.0, when=when, when_timeout_s=_DEFAULT_WHEN_TIMEOUT_S),)


def none() -> Steps:
    return ()


def like(scenario_id: str, instances: int) -> tuple[Steps, PipelineWorkload]:
    """``scenario_id``'s schedule for the user's instances, checked now; and its workload (its
    input size and partitions are what the schedule was timed for)."""
    scenario = scenarios.get(scenario_id)
    workload = scenario.workload
    if not isinstance(workload, PipelineWorkload):
        raise HarnessError(
            f"--like {scenario.id}: {scenario.id} runs a {type(workload).__name__}, not a consume-transform-produce "
            f"app; pick one of {', '.join(usable())}, or write a schedule (--schedule FILE)"
        )
    apps = {transformer(i): instance_name(i) for i in range(1, workload.instances + workload.standby + 1)}
    return onto_app(serial.to_json(scenario.schedule), f"--like {scenario.id}", instances, apps), workload


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


def from_file(path: Path, instances: int) -> Steps:
    """The schedule written in ``path`` (harness.faults.serial's form, aliases and all), checked now."""
    try:
        doc = serial.loads(path.read_text())
    except OSError as exc:
        raise HarnessError(f"--schedule {path}: cannot read it: {exc.strerror}") from exc
    except serial.ScheduleError as exc:
        raise HarnessError(f"--schedule {path}: {exc} (see docs/your-app.md)") from exc
    return onto_app(doc, f"--schedule {path}", instances, {})


def onto_app(doc: dict[str, Any], where: str, instances: int, apps: Mapping[str, str]) -> Steps:
    """Schedule document ``doc`` taken onto the user's app: the one place a schedule meets the
    app's plan. Apps named in ``apps`` get the instance names it maps them to; a link fault on
    the ``client`` listener goes to the app's own links; a step the app cannot take is refused."""
    known = [instance_name(i) for i in range(1, instances + 1)]
    for n, item in enumerate(doc["steps"], 1):
        said = f"{where}: its step {n} ({item['fault']})"
        condition = (item.get("when") or {}).get("condition")
        if condition in _LEDGER_CONDITIONS:
            raise HarnessError(
                f"{said} waits for {condition}, which it reads from the harness app's ledger; your app writes "
                "none: write the schedule yourself (--schedule FILE, docs/your-app.md)"
            )
        if item["fault"] == "launch":
            raise HarnessError(
                f"{said} starts a replacement instance mid-run; check-app starts every instance at once: write the "
                "schedule yourself (--schedule FILE)"
            )
        for name in _app_names(item):
            if apps.get(name, name) not in known:
                raise HarnessError(f"{said} aims at {name}; with --instances {instances} there is no such instance")
    steps = renamed(doc, apps)["steps"]
    for item in steps:
        if "listener" in item:
            item["listener"] = renamed(item["listener"], {"client": APP_LINKS})
    return serial.steps({**doc, "steps": steps})


def _app_names(raw: Any) -> list[str]:
    """The apps a step's JSON names: as a target, a condition's or a part of the plan's."""
    if isinstance(raw, list):
        return [n for v in raw for n in _app_names(v)]
    if not isinstance(raw, dict):
        return []
    own = [raw["name"]] if raw.get("role") == "App" else []
    own += [raw["app"]] if "app" in raw and isinstance(raw["app"], str) else []
    return own + [n for v in raw.values() for n in _app_names(v)]


def renamed(doc: Any, names: Mapping[str, str]) -> Any:
    """``doc`` with every string that is one of ``names`` replaced by its new name."""
    if isinstance(doc, dict):
        return {k: renamed(v, names) for k, v in doc.items()}
    if isinstance(doc, list):
        return [renamed(v, names) for v in doc]
    return names.get(doc, doc) if isinstance(doc, str) else doc
