"""Shrinking a failing schedule within a budget of runs: each step alone, then halves, then
each step left out, then simpler parameters (shorter, earlier, fewer), keeping every change
with which the run still failed. On the guarantee side one failing run is proof, so one
failure accepts a candidate; a candidate tried before is not run again.

``shrink`` is pure: it is given ``fails(candidate, change)``, which runs a candidate (or, in
tests, pretends to); ``run`` drives it on a cluster.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

Doc = dict[str, Any]
Fails = Callable[[Doc, str], bool]

MIN_DURATION_S = 0.5
# Condition fields that count progress: halving them fires the step earlier in the run.
_PROGRESS_FIELDS = ("records", "after", "commits")


@dataclass(frozen=True)
class Attempt:
    change: str
    steps: int
    failed: bool


class _Spent(Exception):
    pass


def shrink(doc: Doc, fails: Fails, budget: int) -> tuple[Doc, list[Attempt]]:
    """The smallest failing schedule found within ``budget`` runs, and every run tried."""
    attempts: list[Attempt] = []
    known: dict[str, bool] = {json.dumps(doc, sort_keys=True): True}
    smallest = [doc]  # every candidate is made from the smallest so far: a failing one replaces it

    def attempt(candidate: Doc, change: str) -> bool:
        key = json.dumps(candidate, sort_keys=True)
        if key not in known:
            if len(attempts) >= budget:
                raise _Spent
            known[key] = fails(candidate, change)
            attempts.append(Attempt(change, len(candidate["steps"]), known[key]))
        if known[key]:
            smallest[0] = candidate
        return known[key]

    with contextlib.suppress(_Spent):  # the budget ran out: what shrank so far stands
        _simpler_steps(_fewer_steps(doc, attempt), attempt)
    return smallest[0], attempts


def _with(doc: Doc, steps: list[dict[str, Any]]) -> Doc:
    return {**doc, "steps": steps}


def _fewer_steps(doc: Doc, attempt: Callable[[Doc, str], bool]) -> Doc:
    steps = doc["steps"]
    if len(steps) > 1:
        for i, step in enumerate(steps, 1):
            if attempt(_with(doc, [step]), f"step {i} alone"):
                return _with(doc, [step])
    while len(doc["steps"]) > 2:
        steps, half = doc["steps"], (len(doc["steps"]) + 1) // 2
        for part, name in ((steps[:half], "the first half"), (steps[half:], "the second half")):
            if attempt(_with(doc, part), name):
                doc = _with(doc, part)
                break
        else:
            break
    left_out = True
    while left_out and len(doc["steps"]) > 1:
        left_out = False
        for i in range(len(doc["steps"])):
            rest = doc["steps"][:i] + doc["steps"][i + 1 :]
            if attempt(_with(doc, rest), f"without step {i + 1}"):
                doc, left_out = _with(doc, rest), True
                break
    return doc


def _simpler_steps(doc: Doc, attempt: Callable[[Doc, str], bool]) -> Doc:
    changed = True
    while changed:
        changed = False
        for i in range(len(doc["steps"])):
            for change, simpler in _simplifications(doc["steps"][i]):
                steps = [*doc["steps"][:i], simpler, *doc["steps"][i + 1 :]]
                if attempt(_with(doc, steps), f"step {i + 1} {change}"):
                    doc, changed = _with(doc, steps), True
                    break  # the next simplifications start from this one
    return doc


def _simplifications(step: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Simpler versions of one step: shorter, earlier, fewer (requests or links) hit, surer (not by chance)."""
    duration = step.get("duration_s")
    if duration is not None and duration > MIN_DURATION_S:
        shorter = max(MIN_DURATION_S, round(duration / 2, 1))
        yield f"shorter ({duration:g} -> {shorter:g} s)", {**step, "duration_s": shorter}
    if step["at_s"] > 0:
        earlier = 0.0 if step["at_s"] < 1 else round(step["at_s"] / 2, 1)
        yield f"earlier (at {step['at_s']:g} -> {earlier:g} s)", {**step, "at_s": earlier}
    when = step.get("when") or {}
    for name in _PROGRESS_FIELDS:
        if isinstance(when.get(name), int) and when[name] > 1:
            earlier_when = {**when, name: when[name] // 2}
            yield f"earlier ({name} {when[name]} -> {when[name] // 2})", {**step, "when": earlier_when}
    params = step.get("params", {})
    if params.get("times", 1) != 1:
        yield f"fewer (times {params['times']} -> 1)", {**step, "params": {**params, "times": 1}}
    if params.get("after", 1) > 1:
        yield f"earlier (after {params['after']} -> 1)", {**step, "params": {**params, "after": 1}}
    if "probability" in params:  # every match acted on: the same schedule, not left to chance
        sure = {k: v for k, v in params.items() if k not in ("probability", "seed")}
        yield f"surer (probability {params['probability']:g} -> 1)", {**step, "params": sure}
    listeners = step.get("listener", [])
    if len(listeners) > 1:
        yield f"fewer (listener {'+'.join(listeners)} -> {listeners[0]})", {**step, "listener": listeners[:1]}
