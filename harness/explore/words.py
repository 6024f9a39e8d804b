"""A schedule document in words, one line per step, for the exploration page, the console and
the scenario files shrink writes."""

from __future__ import annotations

from typing import Any

from harness.faults import serial


def step_lines(doc: dict[str, Any]) -> list[str]:
    """Parts of the plan are said as such: ``<input>``, ``<transactional.id of producer-1>``."""
    lines = []
    for step in serial.steps(doc):
        when = f"once {step.when}" if step.when else f"at {step.at_s:g} s"
        if step.fault.kind.instant:
            held = ""
        else:
            held = " until it ends" if step.duration_s is None else f" for {step.duration_s:g} s"
        lines.append(f"{when}: {step.fault.describe()}{held}")
    return lines


def families(doc: dict[str, Any]) -> list[str]:
    """Each step's fault family."""
    return [step.fault.kind.family for step in serial.steps(doc)]


def triggers(doc: dict[str, Any]) -> list[str]:
    """Each step's trigger: the condition it waits for, or ``time``."""
    return [step["when"]["condition"] if step.get("when") else "time" for step in doc["steps"]]
