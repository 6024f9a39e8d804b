"""The one JSON form of a fault schedule: what scenarios are written as, explore draws, replay
and shrink run again, a written scenario file holds, and ``check-app --schedule`` takes.

A schedule is a tuple of ``Step``s; in JSON (``SCHEMA``)::

    {"schema": "kafka-eos-harness/schedule/2",
     "steps": [
       {"at_s": 4.0, "fault": "kill", "target": {"role": "App", "name": "transformer-1"},
        "params": {}, "duration_s": 1.0,
        "when": {"condition": "BatchUncommitted", "app": "transformer-1", "after": 300},
        "when_timeout_s": 60.0},
       {"at_s": 2.0, "fault": "latency",
        "target": {"role": "Leader", "topic": {"plan": "input"}, "partition": 1},
        "listener": ["client"], "direction": "from_broker",
        "params": {"ms": 3000, "jitter_ms": 0, "toxicity": 1.0}, "duration_s": 6.5}]}

- ``fault``: a kind of ``harness.faults.kinds``; ``params``: its constructor's arguments (as
  ``kafka-harness faults`` lists them) but the target, ``listener`` and ``direction``, which
  stand beside it for the kinds that take them;
- ``target`` and ``when``: a role or condition by its class name, with its fields; a field
  that is itself one (Streams' ``CommitCoordinator(seen=CommitLogged(...))``) nests, and
  equal conditions in one schedule are one object, so a role sees what its step's condition saw;
- a part of the run's plan (``harness.faults.plan``) is ``{"plan": "main"|"input"|"output"|
  "totals"}`` (a topic), ``{"plan": "transactional_id", "app": NAME}`` or ``{"plan":
  "group_id", "app": NAME}``; a string is a literal name (``"__transaction_state"``).

Aliases, shorter to write by hand (check-app's schedule files), are read as the form above:
a ``target`` ``"brokers"``, ``"app-links"`` (every broker, on the apps' own links), any other
string (the app of that name), ``{"broker": id}``, ``{"leader"|"followers": PART_OR_TOPIC,
"partition": p}``, ``{"coordinator_of": APP}``; a ``when`` ``{"output_at_least": n}``,
``{"paused": APP}``, ``{"isr_at_most"|"isr_at_least": n, "topic": PART_OR_TOPIC, "partition":
p}``; ``listener`` ``"app"`` (the apps' own links); and ``schema`` left out. A document of
``kafka-eos-harness/schedule/1`` (names of one run written with placeholders) is read as this
form (``harness.faults.serial_v1``).

``dumps(steps)`` and ``steps(loads(text))`` round-trip exactly. Roles and conditions a workload
defines are made known here with ``@serial.role`` / ``@serial.condition``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Sequence
from typing import Any, TypeVar

from harness.faults import conditions, kinds, roles, serial_v1
from harness.faults.kinds.base import OWN_LINKS, FaultKind, FaultSpec
from harness.faults.kinds.protocol import Hits
from harness.faults.plan import TOPIC_PARTS, GroupId, Part, Topic, TransactionalId
from harness.faults.schedule import Step

SCHEMA = "kafka-eos-harness/schedule/2"
# Constructor arguments written beside ``params``, not in it.
_BESIDE = ("listener", "direction")
_STEP_KEYS = {"at_s", "fault", "target", "params", *_BESIDE, "duration_s", "when", "when_timeout_s"}
# The listener alias of the apps' own links (check-app's apps reach the brokers there).
_APP_LISTENER = "app"
# Parts of the plan that name an app's, by their ``{"plan": ...}`` word.
_OF_APP: dict[str, type[TransactionalId] | type[GroupId]] = {"transactional_id": TransactionalId, "group_id": GroupId}

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


# --- writing ------------------------------------------------------------------------


def to_json(steps: Sequence[Step]) -> dict[str, Any]:
    """The schedule document of ``steps``."""
    return {"schema": SCHEMA, "steps": [_step_json(step) for step in steps]}


def dumps(steps: Sequence[Step]) -> str:
    return dumps_doc(to_json(steps))


def dumps_doc(doc: dict[str, Any]) -> str:
    """A schedule document as text: the same document, byte for byte the same text."""
    return json.dumps(doc, indent=2) + "\n"


def _step_json(step: Step) -> dict[str, Any]:
    fault = step.fault
    beside, params = _arguments(fault)
    out: dict[str, Any] = {"at_s": step.at_s, "fault": fault.kind.name, "target": _object_json(fault.target)}
    out.update({k: _value_json(v) for k, v in beside.items()})
    out["params"] = {k: _value_json(v) for k, v in params.items()}
    out["duration_s"] = step.duration_s
    if step.when is not None:
        out["when"] = _object_json(step.when)
        out["when_timeout_s"] = step.when_timeout_s
    return out


def _arguments(spec: FaultSpec) -> tuple[dict[str, Any], dict[str, Any]]:
    """The constructor's arguments that rebuild ``spec``: (listener and direction, the rest)."""
    kind = spec.kind
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
    if _build(kind, spec.target, beside, params) != spec:
        raise ValueError(
            f"{spec.describe()} cannot be written as {kind.make.__name__}'s arguments: give its kind the "
            "params_as of every argument named otherwise in FaultSpec.params (harness.faults.kinds.base)"
        )
    return beside, params


def _object_json(obj: Any) -> dict[str, Any]:
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
            is_object = dataclasses.is_dataclass(value) and not isinstance(value, Part)
            out[f.name] = _object_json(value) if is_object else _value_json(value)
    return out


def _value_json(value: Any) -> Any:
    if isinstance(value, Topic):
        return {"plan": value.part}
    if isinstance(value, TransactionalId | GroupId):
        word = next(w for w, cls in _OF_APP.items() if isinstance(value, cls))
        return {"plan": word, "app": value.app}
    if isinstance(value, list | tuple):
        return [_value_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _value_json(v) for k, v in value.items()}
    return value


# --- reading ------------------------------------------------------------------------


def loads(text: str) -> dict[str, Any]:
    """A schedule document from its text, checked (``ScheduleError`` says what is wrong), in
    this form: a ``schedule/1`` document or one without ``schema`` comes back with it."""
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ScheduleError(f"not JSON: {exc}") from exc
    if isinstance(doc, dict) and doc.get("schema") == serial_v1.SCHEMA:
        try:
            doc = {"schema": SCHEMA, "steps": serial_v1.converted(doc)}
        except ValueError as exc:
            raise ScheduleError(str(exc)) from exc
    if not isinstance(doc, dict) or doc.get("schema", SCHEMA) != SCHEMA or not isinstance(doc.get("steps"), list):
        raise ScheduleError(f'expected {{"schema": "{SCHEMA}", "steps": [...]}}')
    return to_json(steps(doc))


def steps(doc: dict[str, Any]) -> tuple[Step, ...]:
    """The steps of schedule document ``doc``."""
    seen = _Interned()
    built = []
    for n, item in enumerate(doc["steps"], 1):
        try:
            built.append(_step(item, seen))
        except (KeyError, TypeError, ValueError) as exc:
            raise ScheduleError(f"step {n}: {type(exc).__name__}: {exc}") from exc
    return tuple(built)


def _step(item: Any, seen: _Interned) -> Step:
    if not isinstance(item, dict):
        raise TypeError("expected an object with at_s, fault and target")
    unknown = sorted(set(item) - _STEP_KEYS)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; known: {', '.join(sorted(_STEP_KEYS))}")
    raw_target = item["target"]
    kind = kinds.get(item["fault"])
    beside = {k: _listener(item[k]) if k == "listener" else item[k] for k in _BESIDE if k in item}
    if raw_target == "app-links":
        if "listener" not in inspect.signature(kind.make).parameters:
            raise ValueError(f"{kind.name} is no link fault: it takes no app-links target")
        beside["listener"] = OWN_LINKS
    target = _object(_target_alias(raw_target), seen)
    params = {k: _value(v) for k, v in (item.get("params") or {}).items()}
    fault = _build(kind, target, beside, params)
    when = _object(_when_alias(item["when"]), seen) if item.get("when") is not None else None
    return Step(
        float(item["at_s"]),
        fault,
        duration_s=None if item.get("duration_s") is None else float(item["duration_s"]),
        when=when,
        when_timeout_s=float(item.get("when_timeout_s", Step.when_timeout_s)),
    )


def _listener(raw: Any) -> Any:
    if isinstance(raw, list):
        return [_listener(r) for r in raw]
    return OWN_LINKS if raw == _APP_LISTENER else raw


def _build(kind: FaultKind, target: Any, beside: dict[str, Any], params: dict[str, Any]) -> FaultSpec:
    make = kind.make
    args = {**{k: tuple(v) if isinstance(v, list) else v for k, v in beside.items()}, **params}
    if "target" in inspect.signature(make).parameters:
        return make(target, **args)
    return make(**args)


def _topic(raw: Any) -> dict[str, Any] | str:
    """An alias's topic: a part of the plan by its word, else a literal name."""
    return {"plan": raw} if raw in TOPIC_PARTS else str(raw)


def _target_alias(raw: Any) -> Any:
    if raw in ("brokers", "app-links"):
        return {"role": "Brokers"}
    if isinstance(raw, str):
        return {"role": "App", "name": raw}
    if isinstance(raw, dict) and "role" not in raw:
        if "broker" in raw:
            return {"role": "Node", "node_id": int(raw["broker"])}
        if "coordinator_of" in raw:
            return {
                "role": "TxnCoordinator",
                "transactional_id": {"plan": "transactional_id", "app": raw["coordinator_of"]},
            }
        for word, role_name in (("leader", "Leader"), ("followers", "Followers")):
            if word in raw:
                return {"role": role_name, "topic": _topic(raw[word]), "partition": int(raw.get("partition", 0))}
    return raw


def _when_alias(raw: Any) -> Any:
    if not isinstance(raw, dict) or "condition" in raw:
        return raw
    if "output_at_least" in raw:
        return {"condition": "OutputAtLeast", "topic": {"plan": "output"}, "records": int(raw["output_at_least"])}
    if "paused" in raw:
        return {"condition": "Paused", "app": raw["paused"]}
    for bound in ("isr_at_most", "isr_at_least"):
        if bound in raw:
            topic = _topic(raw.get("topic", "output"))
            return {
                "condition": "Isr",
                "topic": topic,
                "partition": int(raw.get("partition", 0)),
                bound[4:]: int(raw[bound]),
            }
    return raw


def _object(raw: Any, seen: _Interned) -> Any:
    if not isinstance(raw, dict):
        raise ValueError(f"expected a role or condition object, not {raw!r}")
    if "role" in raw:
        table, name = _ROLES, raw["role"]
    elif "condition" in raw:
        table, name = _CONDITIONS, raw["condition"]
    else:
        raise ValueError(f"expected a role or condition object (or an alias of one), not {raw!r}")
    if name not in table:
        raise ValueError(f"unknown {'role' if table is _ROLES else 'condition'} {name!r}; one of {', '.join(table)}")
    fields = {
        k: _object(v, seen) if isinstance(v, dict) and ("role" in v or "condition" in v) else _value(v)
        for k, v in raw.items()
        if k not in ("role", "condition")
    }
    return seen.one(table[name](**fields))


def _value(raw: Any) -> Any:
    if isinstance(raw, dict) and "plan" in raw:
        word = raw["plan"]
        if word in _OF_APP:
            return _OF_APP[word](str(raw["app"]))
        if word not in TOPIC_PARTS:
            raise ValueError(f"unknown part of the plan {word!r}; one of {', '.join([*TOPIC_PARTS, *_OF_APP])}")
        return Topic(word)
    if isinstance(raw, list):
        return [_value(v) for v in raw]
    if isinstance(raw, dict):
        return {k: _value(v) for k, v in raw.items()}
    return raw


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
