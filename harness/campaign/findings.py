"""A campaign's findings: one row per failure signature (of failing runs, and of runs that could
not run), triaged, with its count and rate, the runs it came from, and what shrink and bisect
made of its first run; ``findings.json`` and the page ``findings.html`` with a picture of
outcomes by cell (Kafka release and client x fault family). Drawn from the campaign's folder
alone, so it can be drawn again at any time (``campaign findings``).

A row's **rate** is its runs over the runs finished in the cells it appeared in. Its **faulted
APIs** and **role kinds** are those every one of its runs shared. Its **shrunk** and **bisected**
columns show what ``kafka-harness shrink`` and ``bisect`` left in its first run's folder.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from harness.campaign import signature, triage
from harness.explore.trial import ERROR, RUN
from harness.report import figures
from harness.report import page as report_page
from harness.verdict.outcome import Outcome

FINDINGS_JSON, FINDINGS_HTML = "findings.json", "findings.html"


@dataclass
class Row:
    label: triage.Label
    failures: list[signature.Failure]  # in the campaign's order, all of one signature
    cells: set[str]
    rate: float = 0.0

    @property
    def signature(self) -> signature.Signature:
        return self.failures[0].signature

    @property
    def runs(self) -> list[str]:
        """Its runs' folders, relative to the campaign's."""
        return [f"{f.folder.parent.name}/{f.folder.name}" for f in self.failures]

    @property
    def apis(self) -> frozenset[str]:
        """The requests every one of its runs' faults caught."""
        return frozenset.intersection(*(f.apis for f in self.failures))

    @property
    def roles(self) -> frozenset[str]:
        """The kinds of role every one of its runs' faults hit."""
        return frozenset.intersection(*(f.roles for f in self.failures))

    def to_json(self, folder: Path) -> dict[str, Any]:
        first = folder / self.runs[0]
        return {
            "label": str(self.label),
            "kind": self.label.kind,
            "issue": self.label.issue.id if self.label.issue else "",
            "link": self.label.issue.link if self.label.issue else "",
            "also": list(self.label.others),
            "signature": self.signature.to_json(),
            "text": str(self.signature),
            "count": len(self.runs),
            "rate": round(self.rate, 3),
            "cells": sorted(self.cells),
            "first_run": self.runs[0],
            "runs": self.runs,
            "apis": sorted(self.apis),
            "roles": sorted(self.roles),
            "shrunk": _newest(first, "shrink-*/*.py"),
            "bisected": _bisected(first),
        }


def rows(folder: Path, doc: dict[str, Any], known: list[triage.KnownIssue] | None = None) -> list[Row]:
    """The campaign's failures in ``folder`` by signature, most frequent first."""
    known = triage.catalogue() if known is None else known
    by_signature: dict[signature.Signature, Row] = {}
    for run in doc["runs"]:
        if run["outcome"] not in (Outcome.FAILED, ERROR):  # a run that could not run may be the harness's own defect
            continue
        if not (folder / run["folder"] / RUN).exists():  # removed by hand since: nothing left to read
            continue
        failure = signature.of_run(folder / run["folder"])
        row = by_signature.setdefault(failure.signature, Row(triage.Label(triage.UNKNOWN), [], set()))
        row.failures.append(failure)
        row.cells.add(run["cell"])
    ran = Counter(run["cell"] for run in doc["runs"])
    for row in by_signature.values():
        # Matched on what any of its runs' faults caught or hit, where the row shows what all shared.
        every_api = frozenset().union(*(f.apis for f in row.failures))
        every_role = frozenset().union(*(f.roles for f in row.failures))
        row.label = triage.label(row.signature, every_api, every_role, known)
        row.rate = len(row.failures) / sum(ran[c] for c in row.cells)
    return sorted(by_signature.values(), key=lambda r: (r.label.kind != triage.UNKNOWN, -len(r.runs), str(r.signature)))


def by_cell(doc: dict[str, Any]) -> dict[tuple[str, str], Counter[str]]:
    """Outcomes by (Kafka release and client, fault family)."""
    found: dict[tuple[str, str], Counter[str]] = {}
    for run in doc["runs"]:
        subject = run["subject"]
        where = f"Kafka {subject['kafka_version']} · {subject['client'] or 'own client'}"
        found.setdefault((where, run["families"][0] if run["families"] else "?"), Counter())[run["outcome"]] += 1
    return found


def figure(doc: dict[str, Any]) -> go.Figure | None:
    cells = by_cell(doc)
    if not cells:
        return None
    ys = sorted({y for y, _ in cells})
    xs = sorted({x for _, x in cells})
    rate = [[_rate(cells.get((y, x))) for x in xs] for y in ys]
    text = [[_text(cells.get((y, x))) for x in xs] for y in ys]
    fig = go.Figure(
        go.Heatmap(
            x=xs,
            y=ys,
            z=rate,
            text=text,
            texttemplate="%{text}",
            zmin=0,
            zmax=1,
            colorscale=[[0, "#e8f5e9"], [0.001, "#ffe0b2"], [1, "#c62828"]],
            colorbar={"title": "failed"},
        )
    )
    fig.update_layout(
        height=120 + 40 * len(ys), margin={"t": 30, "b": 40, "l": 220, "r": 20}, title="failed / ran, by cell"
    )
    return fig


def write(folder: Path, doc: dict[str, Any]) -> Path:
    found = rows(folder, doc)
    listed = [r.to_json(folder) for r in found]
    outcomes = Counter(run["outcome"] for run in doc["runs"])
    summary = {
        "digest": doc["digest"],
        "campaign": doc["campaign"],
        "runs": len(doc["runs"]),
        "planned": doc.get("planned", len(doc["runs"])),
        "outcomes": dict(outcomes),
        "hours": round(sum(run.get("wall_s", 0.0) for run in doc["runs"]) / 3600, 2),
        "signatures": listed,
    }
    (folder / FINDINGS_JSON).write_text(json.dumps(summary, indent=2) + "\n")
    fig = figure(doc)
    html = report_page.render(
        "campaign.html.j2",
        summary=summary,
        rows=listed,
        reports={r: (folder / r / report_page.REPORT).exists() for row in listed for r in row["runs"]},
        figure=figures.fragment(fig, "campaign-cells") if fig else "",
        plotly_js=figures.plotly_js() if fig else "",
        made=time.strftime("%Y-%m-%d %H:%M:%S"),
    )
    return report_page.write_whole(folder / FINDINGS_HTML, html)


def _rate(outcomes: Counter[str] | None) -> float | None:
    return outcomes[Outcome.FAILED] / sum(outcomes.values()) if outcomes else None


def _text(outcomes: Counter[str] | None) -> str:
    return f"{outcomes[Outcome.FAILED]}/{sum(outcomes.values())}" if outcomes else ""


def _newest(folder: Path, pattern: str) -> str:
    found = sorted(folder.glob(pattern))
    return str(found[-1].relative_to(folder.parent.parent)) if found else ""


def _bisected(folder: Path) -> list[str]:
    """The boundaries bisect found, newest bisection first, as it printed them."""
    found = sorted(folder.glob("bisect-*/bisect.json"))
    if not found:
        return []
    doc = json.loads(found[-1].read_text())
    return [str(b) for b in doc.get("boundaries", [])]


def markdown(summary: dict[str, Any]) -> str:
    """``findings.json`` as Markdown: what was covered, then a row per signature."""
    matrix = summary["campaign"]
    outcomes = ", ".join(f"{n} {o}" for o, n in sorted(summary["outcomes"].items()))
    lines = [
        f"Campaign `{summary['digest']}`: {summary['runs']} of {summary['planned']} runs ({outcomes}), "
        f"{summary['hours']} run-hours; sides {', '.join(matrix['sides'])}; Kafka {', '.join(matrix['kafka'])}; "
        f"clients {', '.join(c or 'own' for c in matrix['clients'])}; families {', '.join(matrix['families'])}; "
        f"seeds {', '.join(map(str, matrix['seeds']))}; {matrix['runs']} runs per cell.",
        "",
        "| label | effect | findings | stopped by | versions | runs | rate | faulted APIs | first run |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in summary["signatures"]:
        s = row["signature"]
        label = f"{row['kind']} ([{row['issue']}]({row['link']}))" if row["link"] else row["label"]
        lines.append(
            f"| {label} | {s['effect']} | {', '.join(s['findings']) or '-'} | {', '.join(s['errors']) or '-'} "
            f"| Kafka {s['kafka']}, {s['client']} | {row['count']} | {100 * row['rate']:.0f} % "
            f"| {', '.join(row['apis']) or '-'} | `{row['first_run']}` |"
        )
    return "\n".join(lines)
