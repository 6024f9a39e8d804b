"""A control for a user's app: the reference app (``harness.userapps.reference_app``, at-least-once
by construction) under the same schedule, on the same cluster, on topics of its own.

A pair's guarantee counts only when its control showed the anomaly under the same fault; a
user's app has no control of its own, so check-app runs this one beside it. When the reference
app repeats inputs, the schedule could expose the anomaly; when it repeats none, the schedule
proved nothing, and the user's verdict, had it passed, is *inconclusive* (a check of the fault:
``REFERENCE_REPEATED``). Found anomalies in the user's app fail it whatever the reference did.

The two run at once when every fault of the schedule hits only the app it aims at (the app
itself, or its own links: each side has its own listener), else the reference first.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from harness.cluster.kafka import OWN_LINK_LISTENERS
from harness.faults import App, serial
from harness.report.run_folder import REFERENCE_SIDE
from harness.scenario import Variant
from harness.userapps.contract import Naming
from harness.userapps.output import SINK_FINDINGS
from harness.userapps.schedules import Steps, renamed
from harness.userapps.workload import APP_LINKS, APP_VARIANT, NO_CRASH, UserAppWorkload
from harness.verdict.checks import Check
from harness.verdict.document import ALLOWED, REQUIRED, VariantVerdict
from harness.verdict.judge import judge

COMMAND = (sys.executable, "-m", "harness.userapps.reference_app")
LINKS = OWN_LINK_LISTENERS[1]  # the user's app has OWN_LINK_LISTENERS[0] (APP_LINKS)
# The reference must repeat (a control); it never loses or reads aborted data by construction.
VARIANT = Variant(
    REFERENCE_SIDE,
    {},
    expect={**dict.fromkeys(SINK_FINDINGS, ALLOWED), "sink_repeated": REQUIRED},
    checks=(NO_CRASH,),
)


def workload(app: UserAppWorkload) -> UserAppWorkload:
    """The reference app with the user's input size, partitions and instances, on its own topics."""
    return replace(
        app,
        command=COMMAND,
        input_topic=f"{app.input_topic}-reference",
        output_topic=f"{app.output_topic}-reference",
        naming=Naming(),
        view="read_committed",
    )


def schedule_for(schedule: Steps, app: UserAppWorkload, twin: UserAppWorkload) -> Steps:
    """``schedule`` aimed at the reference's topics: its parts of the plan are bound to the
    reference's run as they are; a topic a schedule file names outright (``orders``) is renamed."""
    names = {app.input_topic: twin.input_topic, app.output_topic: twin.output_topic}
    return serial.steps(renamed(serial.to_json(schedule), names))


def apart_from_the_app(steps: Steps) -> bool:
    """Whether each step hits only the app it aims at: the app itself, or only its own links."""
    return all(
        isinstance(step.fault.target, App) or (step.fault.kind.on_links and set(step.fault.listeners) <= {APP_LINKS})
        for step in steps
    )


def _repeated(reference: VariantVerdict) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        n = reference.count("sink_repeated")
        return None if n else f"the reference repeated nothing ({'; '.join(reference.reasons) or 'clean'})"

    return Check(
        "the reference at-least-once app repeated under the same schedule",
        "a schedule that cannot make an at-least-once app repeat proves nothing about yours",
        seen,
        of_the_fault=True,
        detail=lambda side: f"{reference.count('sink_repeated')} of its inputs repeated",
    )


def with_reference(side: VariantVerdict, reference: VariantVerdict, folder: Path) -> VariantVerdict:
    """The user's side judged again with ``REFERENCE_REPEATED`` (its ``verdict.json`` rewritten)."""
    again = judge(
        side.scenario,
        side.variant,
        side.result,
        side.expect,
        replace(side.record, reference={"repeated": reference.count("sink_repeated"), "folder": REFERENCE_SIDE}),
        (*APP_VARIANT.checks, _repeated(reference)),
    )
    (folder / "verdict.json").write_text(json.dumps(again.to_json(), indent=2))
    return again
