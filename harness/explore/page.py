"""An exploration's ``index.html``: one row per run (its schedule in words, outcome, why,
counts, times, links), failing runs first, and a picture of the outcomes by fault family and
by trigger. Drawn from ``explore.json`` alone, so it can be drawn again at any time."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from harness.explore import subject as subjects
from harness.explore.trial import ERROR
from harness.report import figures
from harness.report import page as report_page
from harness.verdict.outcome import Outcome

INDEX = "index.html"
_OUTCOME_COLOURS = {
    Outcome.FAILED: "#c62828",
    Outcome.PASSED: "#2e7d32",
    Outcome.UNKNOWN: "#ad1457",
    Outcome.INCONCLUSIVE: "#ef8f00",
    ERROR: "#6a1b9a",
}


def rows(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs in the order the page lists them: failing first, then by run number."""
    return sorted(doc["trials"], key=lambda t: (t["outcome"] != Outcome.FAILED, t["run"]))


def outcomes_by(doc: dict[str, Any], key: str) -> dict[str, Counter[str]]:
    """For each family (``key`` "families") or trigger ("triggers"): the outcomes of the runs
    with at least one step of it."""
    found: dict[str, Counter[str]] = {}
    for t in doc["trials"]:
        for value in sorted(set(t[key])):
            found.setdefault(value, Counter())[t["outcome"]] += 1
    return dict(sorted(found.items()))


def figure(doc: dict[str, Any]) -> go.Figure | None:
    if not doc["trials"]:
        return None
    fig = make_subplots(rows=1, cols=2, subplot_titles=("by fault family", "by trigger"), horizontal_spacing=0.08)
    for col, key in ((1, "families"), (2, "triggers")):
        by = outcomes_by(doc, key)
        for outcome, colour in _OUTCOME_COLOURS.items():
            fig.add_bar(
                x=list(by),
                y=[c[outcome] for c in by.values()],
                name=outcome,
                marker_color=colour,
                legendgroup=outcome,
                showlegend=col == 1,
                row=1,
                col=col,
            )
    fig.update_layout(barmode="stack", height=340, margin={"t": 40, "b": 40, "l": 50, "r": 20})
    fig.update_yaxes(title_text="runs with such a step", row=1, col=1)
    return fig


def write(folder: Path, doc: dict[str, Any]) -> Path:
    fig = figure(doc)
    listed = [{**t, "report": (folder / t["folder"] / report_page.REPORT).exists()} for t in rows(doc)]
    html = report_page.render(
        "explore.html.j2",
        doc=doc,
        subject=str(subjects.Subject.from_json(doc["subject"])),
        trials=doc["trials"],
        rows=listed,
        failures=sum(t["outcome"] == Outcome.FAILED for t in doc["trials"]),
        figure=figures.fragment(fig, "explore-outcomes") if fig else "",
        plotly_js=figures.plotly_js() if fig else "",
        made=time.strftime("%Y-%m-%d %H:%M:%S"),
    )
    return report_page.write_whole(folder / INDEX, html)
