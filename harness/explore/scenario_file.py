"""The scenario file shrink writes: a small module like those in ``scenarios/``, whose pair is
the explored pair (its control: the same workload with the guarantee's protection off) under
the shrunk schedule, kept in ``harness.faults.serial``'s JSON. ``kafka-harness run FILE`` runs it.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import scenarios
from harness.errors import HarnessError
from harness.explore import words
from harness.faults import serial
from harness.scenario import Scenario

if TYPE_CHECKING:
    from harness.explore.kept import Kept
    from harness.explore.subject import Subject
    from harness.explore.trial import Trial


def name_for(kept: Kept) -> str:
    return f"{_id(kept).lower().replace('-', '_')}.py"


def _id(kept: Kept) -> str:
    seed, run = kept.info.get("seed"), kept.info.get("run")
    like = scenarios.get(kept.subject.like).id
    return f"{like}-explore-{seed}-{run}" if seed is not None else f"{like}-shrunk"


def _like(like: str, scenario: Scenario) -> str:
    """The imports that give the written file the explored pair as ``LIKE``: from its built-in
    module, or from the scenario file it came from."""
    if like.endswith(".py"):
        return (
            "from pathlib import Path\n\nimport scenarios\nfrom harness.faults import serial\n\n"
            f'LIKE = scenarios.from_file(Path(r"{Path(like).resolve()}"))'
        )
    for found in pkgutil.iter_modules(scenarios.__path__):
        module = importlib.import_module(f"scenarios.{found.name}")
        if getattr(module, "SCENARIO", None) is not None and module.SCENARIO.id == scenario.id:
            return f"\nfrom harness.faults import serial\nfrom {module.__name__} import SCENARIO as LIKE"
    raise HarnessError(
        f"shrink writes scenario files for the built-in scenarios and scenario files; {scenario.id} is neither: "
        "its shrunk schedule is in the shrink folder's try folders (schedule.json)"
    )


def _changes(subject: Subject) -> list[str]:
    """What the explored side changes in its pair's guarantee, beyond leaving out the checks of
    the pair's own fault: the planted bug, the findings allowed (as ``replace`` arguments)."""
    changes = []
    if subject.planted_bug:
        changes.append(
            "workload=replace(LIKE.guarantee.workload or LIKE.workload, "
            f"bug_offsets_outside_txn_every={subject.planted_bug})"
        )
    if subject.allowed:
        allowed = ", ".join(f'"{name}": "allowed"' for name in subject.allowed)
        changes.append(f"expect={{**LIKE.guarantee.expect, {allowed}}}")
    return changes


def _schedule(doc: dict[str, Any]) -> str:
    return f'''SCHEDULE = serial.loads(
    r"""
{serial.dumps_doc(doc).rstrip()}
"""
)'''


def text(kept: Kept, doc: dict[str, Any], proof: Trial) -> str:
    subject = kept.subject
    like = scenarios.get(subject.like)
    sid = _id(kept)
    steps = doc["steps"]
    # Both sides at once only when every step hits the side's own app; anything on brokers or
    # shared links would hit both.
    together = like.sides_together and all(step["target"]["role"] == "App" for step in steps)
    options = (f" --client {subject.client}" if subject.client else "") + (
        f" --kafka-version {subject.kafka_version}" if subject.kafka_version else ""
    )
    found = f"run {kept.info.get('run')} of `kafka-harness explore --like {subject.like} --seed {kept.info.get('seed')}"
    found += f"{options}{f' --planted-bug {subject.planted_bug}' if subject.planted_bug else ''}"
    found += (" --allow " + ",".join(subject.allowed) if subject.allowed else "") + "`"
    bug = (
        "\nThe guarantee's transformer carries the planted bug (the offsets of one transaction in "
        f"{subject.planted_bug} committed outside it;\nharness.workloads.apps.transformer): a test of explore, not "
        "of Kafka.\n"
        if subject.planted_bug
        else ""
    )
    lines = "\n".join(f"- {line}" for line in words.step_lines(doc))
    reasons = "\n".join(f"- {r}" for r in proof.reasons)
    changes = _changes(subject)
    guarantee = "    guarantee=replace(\n        LIKE.guarantee.under_another_schedule(),\n"
    guarantee += "".join(f"        {change},\n" for change in changes) + "    ),\n"
    count = f"{len(steps)} step{'s' if len(steps) != 1 else ''}"
    return f'''"""{sid} — {like.id}'s pair under a schedule found by explore and shrunk ({count}).

Found by {found};
shrunk by `kafka-harness shrink`. The schedule:

{lines}

On the guarantee side, a run under it failed ({proof.folder}):

{reasons}
{bug}
Control: {like.id}'s control (the same workload with the guarantee's protection off).
Guarantee: {like.id}'s guarantee under this schedule. Run it: `kafka-harness run THIS_FILE{options}`.
"""

from dataclasses import replace
{_like(subject.like, like)}

{_schedule(doc)}

SCENARIO = replace(
    LIKE,
    id="{sid}",
    title="{like.id}'s pair under a shrunk explored schedule",
    story=__doc__ or "",
    schedule=serial.steps(SCHEDULE),
    sides_together={together},
    control=LIKE.control.under_another_schedule(),
{guarantee})
'''


def write(path: Path, kept: Kept, doc: dict[str, Any], proof: Trial) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text(kept, doc, proof))
    return path


def regression_text(
    kept: Kept, sid: str, pins: tuple[dict[str, str], dict[str, str]], findings: list[str], evidence: str
) -> str:
    """The regression pair ``bisect`` writes: the explored side under the kept run's schedule, its
    control pinned to the last affected release (``pins[0]``: Variant fields, e.g. ``kafka_version``)
    and required to show one of ``findings``, its guarantee pinned to the first clean (``pins[1]``)."""
    subject = kept.subject
    like = scenarios.get(subject.like)

    def side(name: str, pin: dict[str, str], expect: str) -> str:
        fields = [f'name="{name}"', *(f'{k}="{v}"' for k, v in pin.items()), *([expect] if expect else [])]
        return f"replace(_SIDE, {', '.join(fields)})"

    one_of = ", ".join(f'"{name}": ONE_OF' for name in findings)
    changes = "".join(f"    {change},\n" for change in _changes(subject))
    return f'''"""{sid} — {like.id}'s guarantee under an explored schedule, on the release before and after a change.

{evidence}

Control: the side on the last affected release: it must show one of {", ".join(findings)}.
Guarantee: the same side, schedule and expectations on the first clean release.
Run it: `kafka-harness run THIS_FILE`.
"""

from dataclasses import replace
{_like(subject.like, like)}
from harness.verdict.document import ONE_OF

{_schedule(kept.doc)}

_SIDE = replace(
    LIKE.guarantee.under_another_schedule(),
{changes})

SCENARIO = replace(
    LIKE,
    id="{sid}",
    title="{like.id}'s guarantee under an explored schedule: last affected vs first clean release",
    story=__doc__ or "",
    schedule=serial.steps(SCHEDULE),
    sides_together=False,  # each release on a cluster of its own
    control={side("control", pins[0], f"expect={{**_SIDE.expect, {one_of}}}")},
    guarantee={side("guarantee", pins[1], "")},
)
'''
