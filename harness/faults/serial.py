"""The one JSON form of a fault schedule: what explore draws, replay and shrink run again, a
written scenario file holds, and a schedule file names.

A schedule is a list of ``Step``s; in JSON (``SCHEMA``)::

    {"schema": "kafka-eos-harness/schedule/1",
     "steps": [
       {"at_s": 4.0, "fault": "kill", "target": {"role": "App", "name": "transformer-1"},
        "params": {}, "duration_s": 1.0,
        "when": {"condition": "BatchUncommitted", "app": "transformer-1", "after": 300},
        "when_timeout_s": 60.0},
       {"at_s": 2.0, "fault": "latency", "target": {"role": "Leader", "topic": "{side}-in", "partition": 1},
        "listener": ["client"], "direction": "from_broker",
        "params": {"ms": 3000, "jitter_ms": 0, "toxicity": 1.0}, "duration_s": 6.5}]}

- ``fault``: a kind of ``harness.faults.kinds``; ``params``: its constructor's arguments (as
  ``kafka-harness faults`` lists them) but the target, ``listener`` and ``direction``, which
  stand beside it for the kinds that take them;
- ``target`` and ``when``: a role or condition by its class name, with its fields; a field
  that is itself one (Streams' ``CommitCoordinator(seen=CommitLogged(...))``) nests, and
  equal conditions in one schedule are one object, so a role sees what its step's condition saw;
- names of one run are written with placeholders: ``{topic}`` is the main topic the schedule
  is built for (``Scenario.schedule(topic)``), ``{side}`` the side's name, which prefixes every
  topic, group and transactional.id its workload makes (the main topic without ``-out``):
  ``{side}-in`` is a pipeline's input, ``{side}-app-1`` its first transactional.id.

``dumps(steps, topic)`` and ``steps(loads(text), topic)`` round-trip exactly. Roles and
conditions a workload defines are made known here with ``@serial.role`` / ``@serial.condition``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Callable
from typing import Any, TypeVar

from harness.faults import conditions, kinds, roles
from harness.faults.kinds.protocol import Hits
from harness.faults.schedule import Step
from harness.faults.specs import FaultSpec

SCHEMA = "kafka-eos-harness/schedule/1"
TOPIC, SIDE = "{topic}", "{side}"
# Every workload names its main topic after its side, or that with this suffix (an output topic).
_OUTPUT_SUFFIX = "-out"
# Constructor arguments written beside ``params``, not in it.
_BESIDE = ("listener", "direction")

T = TypeVar("T")
_ROLES: dict[str, type] = {}
_CONDITIONS: dict[str, type] = {}


def role(cls: type[T]) -> type[T]:
    """Make a fault target class (a frozen dataclass with ``resolve``) known to schedules in JSON."""
    _ROLES[cls.__name__] = cls
    return cls


def condition(cls: type[T]) -> type[T]:
    """Make a condition class (a frozen dataclass with ``holds``) known to schedules in JSON."""
    _CONDITIONS[cls.__name__] = cls
    return cls


for _cls in (
    roles.Node,
    roles.Brokers,
    roles.Leader,
    roles.Followers,
    roles.Replicas,
    roles.TxnCoordinator,
    roles.GroupCoordinator,
    roles.Controller,
    roles.App,
):
    role(_cls)
for _cls in (conditions.Isr, conditions.AppSent, conditions.Committed, conditions.Paused, Hits):
    condition(_cls)


class ScheduleError(ValueError):
    """A schedule in JSON that cannot be read: says which step and what is wrong."""


def side_of(topic: str) -> str:
    return topic.removesuffix(_OUTPUT_SUFFIX)


# --- writing ------------------------------------------------------------------------


def to_json(steps: list[Step], topic: str | None) -> dict[str, Any]:
    """The schedule document of ``steps``, built for main topic ``topic`` (None: their names are
    written with the placeholders already, as explore draws them)."""
    names = _Names(topic)
    return {"schema": SCHEMA, "steps": [_step_json(step, names) for step in steps]}


def dumps(steps: list[Step], topic: str | None) -> str:
    return dumps_doc(to_json(steps, topic))


def dumps_doc(doc: dict[str, Any]) -> str:
    """A schedule document as text: the same document, byte for byte the same text."""
    return json.dumps(doc, indent=2) + "\n"


def _step_json(step: Step, names: _Names) -> dict[str, Any]:
    fault = step.fault
    beside, params = _arguments(fault)
    out: dict[str, Any] = {"at_s": step.at_s, "fault": fault.kind, "target": _object_json(fault.target, names)}
    out.update({k: names.out(v) for k, v in beside.items()})
    out["params"] = {k: names.out(v) for k, v in params.items()}
    out["duration_s"] = step.duration_s
    if step.when is not None:
        out["when"] = _object_json(step.when, names)
        out["when_timeout_s"] = step.when_timeout_s
    return out


def _arguments(spec: FaultSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    """The constructor's arguments that rebuild ``spec``: (listener and direction, the rest)."""
    kind = kinds.get(spec.kind)
    accepted = inspect.signature(kind.make).parameters
    beside: dict[str, Any] = {}
    if "listener" in accepted:
        beside["listener"] = list(spec.listeners)
    if "direction" in accepted:
        beside["direction"] = spec.direction
    params: dict[str, Any] = {}
    for name in accepted:
        if name in ("target", *_BESIDE):
            continue
        key = kind.params_as.get(name, name)
        if name == "toxicity":
            params[name] = spec.toxicity
        elif key in spec.params:
            params[name] = spec.params[key]
        elif "target" not in accepted and hasattr(spec.target, name):  # e.g. elect_preferred(topic, partition)
            params[name] = getattr(spec.target, name)
    if _build(spec.kind, spec.target, beside, params) != spec:
        raise ValueError(
            f"{spec.describe()} cannot be written as {kind.make.__name__}'s arguments: give its kind the "
            "params_as of every argument named otherwise in FaultSpec.params (harness.faults.kinds.base)"
        )
    return beside, params


def _object_json(obj: Any, names: _Names) -> dict[str, Any]:
    name = type(obj).__name__
    if _ROLES.get(name) is type(obj):
        out: dict[str, Any] = {"role": name}
    elif _CONDITIONS.get(name) is type(obj):
        out = {"condition": name}
    else:
        raise ValueError(f"{name} is neither a known role nor condition: mark it @serial.role or @serial.condition")
    for f in dataclasses.fields(obj):
        if f.compare:  # fields left out of comparison are what a condition remembers while it runs
            value = getattr(obj, f.name)
            out[f.name] = _object_json(value, names) if dataclasses.is_dataclass(value) else names.out(value)
    return out


# --- reading ------------------------------------------------------------------------


def loads(text: str) -> dict[str, Any]:
    """A schedule document from its text, checked (``ScheduleError`` says what is wrong)."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ScheduleError(f"not JSON: {exc}") from exc
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("steps"), list):
        raise ScheduleError(f'expected {{"schema": "{SCHEMA}", "steps": [...]}}')
    steps(doc, "check-out")  # every step built once, so a mistake is said now
    return doc


def steps(doc: dict[str, Any], topic: str | None) -> list[Step]:
    """The steps of schedule document ``doc`` for main topic ``topic`` (None: with the placeholders)."""
    names, seen = _Names(topic), _Interned()
    built = []
    for n, item in enumerate(doc["steps"], 1):
        try:
            built.append(_step(item, names, seen))
        except (KeyError, TypeError, ValueError) as exc:
            raise ScheduleError(f"step {n}: {type(exc).__name__}: {exc}") from exc
    return built


def schedule(doc: dict[str, Any]) -> Callable[[str], list[Step]]:
    """A scenario's ``schedule``: the document's steps for each run's main topic."""
    return lambda topic: steps(doc, topic)


def _step(item: dict[str, Any], names: _Names, seen: _Interned) -> Step:
    target = _object(item["target"], names, seen)
    beside = {k: names.into(item[k]) for k in _BESIDE if k in item}
    fault = _build(item["fault"], target, beside, {k: names.into(v) for k, v in item.get("params", {}).items()})
    when = _object(item["when"], names, seen) if item.get("when") is not None else None
    return timed_step(item, fault, when)


def timed_step(item: dict[str, Any], fault: FaultSpec, when: Any) -> Step:
    """``fault`` as step ``item`` times it: ``at_s``, ``duration_s`` (absent: healed at the end),
    ``when_timeout_s`` (absent: the default); the one reading of these fields, also for
    check-app's shorter form (harness.userapps.schedules)."""
    return Step(
        float(item["at_s"]),
        fault,
        duration_s=None if item.get("duration_s") is None else float(item["duration_s"]),
        when=when,
        when_timeout_s=float(item.get("when_timeout_s", Step.when_timeout_s)),
    )


def _build(kind_name: str, target: Any, beside: dict[str, Any], params: dict[str, Any]) -> FaultSpec:
    make = kinds.get(kind_name).make
    args = {**{k: tuple(v) if isinstance(v, list) else v for k, v in beside.items()}, **params}
    if "target" in inspect.signature(make).parameters:
        return make(target, **args)
    return make(**args)


def _object(raw: dict[str, Any], names: _Names, seen: _Interned) -> Any:
    if "role" in raw:
        table, name = _ROLES, raw["role"]
    elif "condition" in raw:
        table, name = _CONDITIONS, raw["condition"]
    else:
        raise ValueError(f"expected a role or condition object, not {raw!r}")
    if name not in table:
        raise ValueError(f"unknown {'role' if table is _ROLES else 'condition'} {name!r}; one of {', '.join(table)}")
    fields = {
        k: _object(v, names, seen) if isinstance(v, dict) else names.into(v)
        for k, v in raw.items()
        if k not in ("role", "condition")
    }
    return seen.one(table[name](**fields))


class _Interned:
    """Equal roles and conditions of one schedule as one object (see the module's doc)."""

    def __init__(self) -> None:
        self._objects: list[Any] = []

    def one(self, obj: Any) -> Any:
        for earlier in self._objects:
            if type(earlier) is type(obj) and earlier == obj:
                return earlier
        self._objects.append(obj)
        return obj


class _Names:
    """A run's names to placeholders and back."""

    def __init__(self, topic: str | None) -> None:
        self.pairs = ((topic, TOPIC), (side_of(topic), SIDE)) if topic is not None else ()

    def out(self, value: Any) -> Any:
        if isinstance(value, str):
            for name, placeholder in self.pairs:
                value = value.replace(name, placeholder) if name else value
            return value
        if isinstance(value, list | tuple):
            return [self.out(v) for v in value]
        return value

    def into(self, value: Any) -> Any:
        if isinstance(value, str):
            for name, placeholder in self.pairs:
                value = value.replace(placeholder, name)
            return value
        if isinstance(value, list):
            return [self.into(v) for v in value]
        return value
