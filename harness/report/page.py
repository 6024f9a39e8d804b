"""``report.html`` of one pair's run folder: the story, the outcome, per side the verdict
table, the timeline and partitions, the apps, and links to every file the run left.

``build`` renders ``templates/report.html.j2`` (Jinja2) into the folder; the page carries
its styles and plotly.js inline, so it opens from disk with no network. ``write`` is what
the runner calls after every pair, finished or not: it never raises, since a report that
cannot be drawn must not cost the verdict.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import plotly

import scenarios
from harness.errors import HarnessError
from harness.progress import say
from harness.report import figures
from harness.report.run_folder import INCOMPLETE, Pair, SideFolder, read_pair
from harness.report.series import Timeline, timeline
from harness.report.verdicts import Expectation, expectations
from harness.verdict.outcome import Outcome
from harness.verdict.summary import pair_summary, side_lines, versions_text

REPORT = "report.html"
DEFAULT_CLIENT = "librdkafka"  # the workloads' client, unless a verdict names another
UNTOLD = "a check could not be made (the checker raised, or a check cannot tell): a violation may be there unseen"
OUTCOMES = {
    Outcome.PASSED: "the control showed its anomaly and the guarantee was clean, under the same fault",
    Outcome.FAILED: "the guarantee showed an anomaly it forbids",
    Outcome.UNKNOWN: UNTOLD,
    Outcome.INCONCLUSIVE: "the guarantee was clean but the control did not show its anomaly, or a fault step "
    "failed: a clean result proves nothing",
    Outcome.REPORTED: "a research pair: no claim; the findings of both sides are the result",
    INCOMPLETE: "the run did not finish: there is no pair verdict; below is what it left",
}
# A user's app checked alone (harness.userapps): one side, no control.
APP_OUTCOMES = {
    Outcome.PASSED: "every input read committed was named by exactly one output, and none read from an aborted "
    "transaction, under the faults",
    Outcome.FAILED: "the app broke exactly-once or one of its checks: see its findings",
    Outcome.UNKNOWN: UNTOLD,
    Outcome.INCONCLUSIVE: "a fault step failed or was skipped, or no fault hit the app as it must: a clean "
    "result proves nothing",
    INCOMPLETE: "the run did not finish: there is no verdict; below is what it left",
}
# Link groups: (heading, does this relative path belong to it)
_LINK_GROUPS = (
    ("verdicts", lambda p: p.name in ("verdict.json", "anomalies.parquet")),
    ("ledgers", lambda p: p.parent.name == "ledgers"),
    ("read-backs", lambda p: p.parent.name in ("reads", "sink-reads")),
    ("app specs and output", lambda p: p.name.endswith((".spec.json", ".out"))),
    ("container logs", lambda p: p.parent.name == "logs"),
)


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("harness.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["compact"] = lambda value: json.dumps(value, separators=(", ", ": "))
    env.filters["clock"] = _clock
    env.filters["versions"] = versions_text
    return env


def render(template: str, **values: Any) -> str:
    return _environment().get_template(template).render(**values)


@dataclass
class SideView:
    """What the template shows of one side."""

    name: str
    side: SideFolder
    timeline: Timeline
    expectations: list[Expectation]
    figures: list[Any]
    links: list[tuple[str, list[Path]]]
    apps: list[dict[str, Any]]


def _links(files: list[Path]) -> list[tuple[str, list[Path]]]:
    groups: dict[str, list[Path]] = {}
    for path in files:
        heading = next((h for h, belongs in _LINK_GROUPS if belongs(path)), "other")
        groups.setdefault(heading, []).append(path)
    return [(h, groups[h]) for h, _ in (*_LINK_GROUPS, ("other", None)) if h in groups]


def _apps(side: SideFolder, tl: Timeline) -> list[dict[str, Any]]:
    """One row per incarnation: its life on the time axis and what its report says."""
    reports = {(r["app"], r["incarnation"]): r for r in side.record.workload}
    rows = []
    for life in tl.lives:
        r = reports.get((life.app, life.incarnation), {})
        said = [
            f"{k}: {r[k].get('error', '')} {r[k].get('message', r[k].get('call', ''))}"
            for k in ("setup_error", "fenced", "stuck")
            if k in r
        ]
        if r.get("resent"):
            said.append(f"resent {r['resent']} record(s) its earlier incarnation had not finished")
        rows.append(
            {
                "name": f"{life.app}#{life.incarnation}",
                "start": life.start,
                "end": life.end,
                "exit": figures.exit_text(life),
                "approximate": life.approximate,
                "outcomes": r.get("outcomes"),
                "errors": r.get("errors") or {},
                "gap": r.get("longest_ack_gap_s"),
                "said": said,
            }
        )
    return rows


def _side_view(side: SideFolder) -> SideView:
    tl = timeline(side)
    shown = [figures.fragment(figures.timeline(tl), f"{side.name}-timeline")]
    by_partition = figures.partitions(tl)
    if by_partition is not None:
        shown.append(figures.fragment(by_partition, f"{side.name}-partitions"))
    rows = expectations(side.verdict) if side.verdict else []
    return SideView(side.name, side, tl, rows, shown, _links(side.files), _apps(side, tl))


def _told(pair: Pair) -> tuple[str, str]:
    """The scenario's title and story as its sides recorded them when they ran; for a folder of an
    older harness, the registered scenario's (today's words); for one it does not know, none (the
    page then shows the id alone)."""
    recorded = [s.verdict.record for s in pair.sides if s.verdict and s.verdict.record.title]
    if recorded:
        return recorded[0].title, recorded[0].story
    try:
        s = scenarios.get(pair.scenario)
    except HarnessError:
        return "", ""
    return s.title, s.story


def _summary(pair: Pair) -> str:
    if pair.verdict:
        return pair_summary(pair.verdict)
    side = pair.sides[0].verdict if pair.alone else None
    return "\n".join([f"{pair.scenario}: {pair.outcome.upper()}", *side_lines(side)]) if side else ""


def build(folder: Path, story: str | None = None, title: str | None = None) -> Path:
    """Write ``folder/report.html`` from what the folder holds; its path. ``story`` and ``title``
    default to what the folder recorded (``_told``)."""
    pair = read_pair(folder)
    sides = [_side_view(s) for s in pair.sides]
    records = [s.verdict.record for s in pair.sides if s.verdict]
    told_title, told_story = _told(pair)
    html = render(
        "report.html.j2",
        pair=pair,
        title=title if title is not None else pair.verdict.title if pair.verdict else told_title,
        story=(told_story if story is None else story).strip(),
        outcome=pair.outcome,
        outcome_text=(APP_OUTCOMES if pair.alone else OUTCOMES)[pair.outcome],
        kafka_versions=sorted({r.kafka_version or "?" for r in records}),
        client=", ".join(sorted({r.client for r in records if r.client})) or DEFAULT_CLIENT,
        summary=_summary(pair),
        sides=sides,
        started=_clock(min((s.timeline.t0 for s in sides if s.timeline.t0), default=0)),
        made=time.strftime("%Y-%m-%d %H:%M:%S"),
        plotly_js=figures.plotly_js(),
        plotly_version=plotly.__version__,
    )
    return write_whole(folder / REPORT, html)


def write_whole(path: Path, html: str) -> Path:
    """``html`` into ``path`` whole or not at all: an interrupted run may stop this process mid-write."""
    partial = path.with_suffix(".html.partial")
    partial.write_text(html, encoding="utf-8")
    partial.replace(path)
    return path


def _clock(t: float) -> str:
    """Wall-clock seconds as local date and time, to the millisecond."""
    if not t:
        return "unknown"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(t)) + f".{int(t * 1000) % 1000:03d}"


def write(folder: Path, story: str | None = None, title: str | None = None) -> Path | None:
    """``build``, saying where the page went, or why there is none; never raises."""
    if not folder.is_dir():
        return None
    try:
        path = build(folder, story, title)
    except Exception as exc:  # the verdict stands without a page; say why there is none
        say(f"report: not written ({type(exc).__name__}: {exc})")
        return None
    say(f"report: {path}")
    return path
