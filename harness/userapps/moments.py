"""When each fault of a user's app run hit, against what the app had in hand: no PASSED unless a
fault could have mattered.

A user's app has no control to show that its schedule can expose an anomaly, so a run whose
faults all came before the app had written anything, or after it had caught up, proves nothing;
its verdict is *inconclusive*, with that reason, never passed. A fault **hit the app with work
in hand** when:

- it caught the app in a window of its own (``crash_at_commit``: its offsets commit swallowed
  on the wire, outputs written and their inputs' offsets not committed; ``crash_in_produce``:
  its outputs held on the wire, their inputs not committed), or
- at its injection the app's group had not caught up (input offsets left to commit) and the app
  had begun (outputs written or offsets committed), as the group's progress, looked at every
  half second from the app's start and right before every signal a fault sends the app
  (``GroupProgress.samples``), showed last before it.

A run without faults (``--no-faults``) claims nothing about faults, and an app whose group the
harness does not know (a test's own app, no group named) cannot be told: both are not judged.
"""

from __future__ import annotations

from typing import Any

from harness.verdict.checks import Check
from harness.verdict.document import VariantVerdict

# A look older than this before a fault says too little about the moment it hit.
_STALE_S = 5.0
IN_HAND = "with work in hand"


def moment(fault: dict[str, Any], samples: list[dict[str, Any]]) -> str:
    """Where one fault (a ``faults`` record of the verdict) hit the app, in words; ``IN_HAND`` first when it counts."""
    if "windows_hit" in fault:  # a window fault (harness.faults.kinds.app_window) says itself
        if fault["windows_hit"]:
            how = sorted({f"{w.get('action', 'kill')} at {w['api']}" for w in fault.get("windows", [])})
            said = f"{IN_HAND}: caught {fault['windows_hit']} time(s) on the wire"
            return f"{said} ({', '.join(how)})" if how else said
        return "missed: the app sent nothing it could catch while it was armed"
    at = fault["injected_at"]
    before = [s for s in samples if s["at"] <= at]
    if not before:
        return "before the app's group was first looked at"
    last = before[-1]
    if last["caught_up"]:  # its input is all written before it starts: caught up stays caught up
        return "after the app had caught up (every input's offset committed)"
    if at - last["at"] > _STALE_S:
        return f"when the group's progress was last looked at {at - last['at']:.0f} s before: cannot tell"
    if not last["outputs"] and not last["committed"]:
        return "before the app had written or committed anything"
    return f"{IN_HAND}: {last['committed']} input offsets committed, {last['outputs']} output offsets written"


def moments(side: VariantVerdict) -> list[tuple[str, str]] | None:
    """Each fault's description and moment; None when it cannot be told (no group watched)."""
    samples = side.record.sink.get("progress")
    if samples is None:
        return None
    return [(_described(f), moment(f, samples)) for f in side.record.faults]


def _described(fault: dict[str, Any]) -> str:
    return f"{fault['fault']} {fault['target']}"


def _seen(side: VariantVerdict) -> str | None:
    found = moments(side)
    if not found or any(m.startswith(IN_HAND) for _, m in found):
        return None
    return "no fault hit the app with work in hand: " + "; ".join(f"{f} {m}" for f, m in found)


def _detail(side: VariantVerdict) -> str | None:
    found = moments(side)
    return "; ".join(f"{f}: {m}" for f, m in found) if found else None


FAULT_HIT_WORK = Check(
    "a fault hit the app with work in hand",
    "a run whose faults all came before the app began or after it had caught up proves nothing about its "
    "exactly-once: inconclusive, not passed",
    _seen,
    of_the_fault=True,
    detail=_detail,
)
