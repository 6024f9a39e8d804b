"""Plotly figures of a side (its timeline, its partitions) and of repeated runs (the spread
of the control's counts), as HTML fragments that share one inlined copy of plotly.js.

The timeline has one time axis (seconds since the side started) over up to three panels:
acknowledgements and errors per second per app; lanes of events (faults, each app's
incarnations and its stretches without acknowledgements, anomalous records' send and
store marks, ``read_committed`` stalls); Spark micro-batch durations. Every fault is also
shaded across all panels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import plotly.graph_objects as go
from markupsafe import Markup
from plotly.offline import get_plotlyjs
from plotly.subplots import make_subplots

from harness.report.series import Life, Span, Timeline

_CONFIG = {"displaylogo": False, "responsive": True, "modeBarButtonsToRemove": ["select2d", "lasso2d"]}
_FAULT_FILL = "rgba(214, 39, 40, 0.13)"
_FAULT_BAR = "rgba(214, 39, 40, 0.55)"
_GAP = "rgba(255, 127, 14, 0.8)"
_STALL = "rgba(148, 103, 189, 0.75)"
_HIT = "rgba(120, 20, 20, 0.95)"
_BATCH = "rgba(23, 190, 207, 0.8)"
_PALETTE = ("#1f77b4", "#2ca02c", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#9467bd")
_MARK_COLOURS = ("#d62728", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
_LANE_PX = 26
MAX_ACK_POINTS = 5000  # per partition: more only weigh the page down (a big run's acks are drawn thinned)
# At the foot of the figure, below the time axis's title (the figure's bottom margin holds it).
_LEGEND = {"orientation": "h", "x": 0, "y": 0, "yref": "container", "yanchor": "bottom"}
_FOOT = 110


def plotly_js() -> Markup:
    """plotly.js itself, to inline once per page (a page must open from disk with no network)."""
    return Markup(get_plotlyjs())


def fragment(fig: go.Figure, div_id: str) -> Markup:
    return Markup(fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, config=_CONFIG))


def exit_text(life: Life) -> str:
    if life.end is None:
        return "still running"
    if life.exit is None:
        return "ended (exit unknown)"
    return f"killed by signal {-life.exit}" if life.exit < 0 else f"exit {life.exit}"


def _shade_faults(fig: go.Figure, faults: list[Span]) -> None:
    """Each fault across every panel: shapes on the first x axis (the others match it)."""
    for f in faults:
        if f.seconds > 0:
            fig.add_shape(
                type="rect",
                xref="x",
                yref="paper",
                x0=f.start,
                x1=f.end,
                y0=0,
                y1=1,
                fillcolor=_FAULT_FILL,
                line_width=0,
            )
        else:
            fig.add_shape(
                type="line", xref="x", yref="paper", x0=f.start, x1=f.start, y0=0, y1=1, line_color=_FAULT_BAR
            )


def timeline(tl: Timeline) -> go.Figure:
    lanes = _lanes(tl)
    spark = bool(tl.batches)
    rows = 3 if spark else 2
    lanes_px = max(3, len(lanes)) * _LANE_PX
    heights = [220, lanes_px + 40] + ([170] if spark else [])
    titles = ["acknowledgements and errors per second", "events"] + (["Spark micro-batch duration"] if spark else [])
    fig = make_subplots(
        rows=rows,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=50 / sum(heights),
        row_heights=[h / sum(heights) for h in heights],
        subplot_titles=titles,
    )
    _rates(fig, tl)
    _events(fig, tl, lanes)
    if spark:
        _batches(fig, tl)
    _shade_faults(fig, tl.faults)
    fig.update_layout(
        height=sum(heights) + 140,
        barmode="overlay",
        margin={"l": 10, "r": 10, "t": 30, "b": _FOOT},
        legend=_LEGEND,
        hovermode="closest",
    )
    fig.update_xaxes(range=[-0.5, tl.end + 0.5])
    fig.update_xaxes(title_text="seconds since the side started", row=rows, col=1)
    fig.update_yaxes(title_text="per second", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=lanes[::-1], automargin=True, row=2, col=1)
    return fig


def _lanes(tl: Timeline) -> list[str]:
    """Event lanes, top to bottom: faults (one per distinct fault), each app and its
    unavailability, each anomaly, stalls."""
    lanes = list(dict.fromkeys(f"fault: {f.label.split(' ', 1)[0]} {i + 1}" for i, f in enumerate(_distinct(tl))))
    for app in dict.fromkeys([life.app for life in tl.lives] + list(tl.rates)):
        lanes.append(app)
        if tl.unavailable.get(app):
            lanes.append(f"{app}: no ack")
    lanes += list(tl.marks)
    if tl.stalls:
        lanes.append("read_committed stall")
    return lanes


def _distinct(tl: Timeline) -> list[Span]:
    """The first of each distinct fault label (a schedule may repeat one, e.g. every 4 s)."""
    return list({f.label: f for f in reversed(tl.faults)}.values())[::-1]


def _rates(fig: go.Figure, tl: Timeline) -> None:
    for i, (app, r) in enumerate(tl.rates.items()):
        colour = _PALETTE[i % len(_PALETTE)]
        fig.add_trace(
            go.Scatter(
                x=r.seconds,
                y=r.acks,
                mode="lines",
                name=f"{app} acks/s",
                line={"color": colour, "shape": "hv"},
                legendgroup=app,
            ),
            row=1,
            col=1,
        )
        if r.errors.any():
            fig.add_trace(
                go.Scatter(
                    x=r.seconds,
                    y=r.errors,
                    mode="lines",
                    name=f"{app} errors/s (fail + info)",
                    line={"color": colour, "shape": "hv", "dash": "dot"},
                    legendgroup=app,
                ),
                row=1,
                col=1,
            )


def _bar(
    fig: go.Figure, spans: list[Span], lanes: list[str], colour: str, name: str, text: list[str] | None = None
) -> None:
    """Spans as horizontal bars in the events panel, ``lanes[i]`` the lane of ``spans[i]``."""
    if not spans:
        return
    fig.add_trace(
        go.Bar(
            orientation="h",
            base=[s.start for s in spans],
            x=[max(s.seconds, 0.05) for s in spans],
            y=lanes,
            marker_color=colour,
            name=name,
            text=text,
            textposition="inside" if text else None,
            insidetextanchor="start",
            hovertext=[
                f"{s.label}<br>{s.start:.2f}s → {s.end:.2f}s" + (f"<br>{s.detail}" if s.detail else "") for s in spans
            ],
            hoverinfo="text",
            width=0.6,
        ),
        row=2,
        col=1,
    )


def _hits(fig: go.Figure, hits: list[Span], fault_lane: dict[str, str]) -> None:
    """A protocol fault's requests in its lane: a cross when acted on, a line while held."""
    if not hits:
        return
    held_x: list[float | None] = []
    held_y: list[str | None] = []
    for h in hits:
        if h.seconds > 0:
            held_x += [h.start, h.end, None]
            held_y += [fault_lane[h.label], fault_lane[h.label], None]
    if held_x:
        fig.add_trace(
            go.Scatter(
                x=held_x, y=held_y, mode="lines", line={"color": _HIT, "width": 3}, name="held", hoverinfo="skip"
            ),
            row=2,
            col=1,
        )
    hover = [f"{h.detail}<br>{h.start:.3f}s → {h.end:.3f}s" for h in hits]
    _points(
        fig, hits, [fault_lane[h.label] for h in hits], {"symbol": "x", "size": 9, "color": _HIT}, "requests hit", hover
    )


def _points(
    fig: go.Figure, spans: list[Span], lanes: list[str], marker: dict[str, Any], name: str, hover: list[str]
) -> None:
    """Markers at the spans' starts in the events panel, ``lanes[i]`` the lane of ``spans[i]``."""
    fig.add_trace(
        go.Scatter(
            x=[s.start for s in spans],
            y=lanes,
            mode="markers",
            marker=marker,
            name=name,
            hovertext=hover,
            hoverinfo="text",
        ),
        row=2,
        col=1,
    )


def _events(fig: go.Figure, tl: Timeline, lanes: list[str]) -> None:
    distinct = _distinct(tl)
    fault_lane = {f.label: lanes[i] for i, f in enumerate(distinct)}
    lasting = [f for f in tl.faults if f.seconds > 0]
    _bar(fig, lasting, [fault_lane[f.label] for f in lasting], _FAULT_BAR, "faults")
    instants = [f for f in tl.faults if f.seconds == 0]
    if instants:
        star = {"symbol": "star", "size": 11, "color": _FAULT_BAR}
        hover = [f"{f.label} at {f.start:.2f}s" for f in instants]
        _points(fig, instants, [fault_lane[f.label] for f in instants], star, "operations", hover)
    _hits(fig, tl.hits, fault_lane)
    for f in distinct:
        fig.add_annotation(
            x=f.start,
            y=fault_lane[f.label],
            xref="x2",
            yref="y2",
            text=f.label,
            showarrow=False,
            xanchor="left",
            font={"size": 11},
            xshift=4,
        )
    for i, app in enumerate(dict.fromkeys(life.app for life in tl.lives)):
        lives = [life for life in tl.lives if life.app == app]
        spans = [
            Span(life.start, tl.end if life.end is None else life.end, f"{app}#{life.incarnation}") for life in lives
        ]
        texts = [
            f"#{life.incarnation} {exit_text(life)}" + (" (times from files)" if life.approximate else "")
            for life in lives
        ]
        _bar(fig, spans, [app] * len(spans), _PALETTE[i % len(_PALETTE)], f"{app} incarnations", texts)
        ended = [life for life in lives if life.end is not None]
        if ended:
            fig.add_trace(
                go.Scatter(
                    x=[life.end for life in ended],
                    y=[app] * len(ended),
                    mode="markers",
                    marker={
                        "symbol": ["x" if (life.exit or 0) < 0 else "line-ns" for life in ended],
                        "size": 12,
                        "color": "black",
                        "line": {"width": 2, "color": "black"},
                    },
                    name=f"{app} ends",
                    hovertext=[f"{app}#{life.incarnation}: {exit_text(life)} at {life.end:.2f}s" for life in ended],
                    hoverinfo="text",
                    showlegend=False,
                ),
                row=2,
                col=1,
            )
    for app, spans in tl.unavailable.items():
        _bar(fig, spans, [f"{app}: no ack"] * len(spans), _GAP, f"{app}: ≥1 s without an ack while sending")
    for i, (anomaly, m) in enumerate(tl.marks.items()):
        colour = _MARK_COLOURS[i % len(_MARK_COLOURS)]
        for times, symbol, what in ((m.sent, "x-thin-open", "sent"), (m.stored, "diamond", "stored (acknowledged)")):
            known = ~np.isnan(times)
            if not known.any():
                continue
            fig.add_trace(
                go.Scatter(
                    x=times[known],
                    y=[anomaly] * int(known.sum()),
                    mode="markers",
                    marker={"symbol": symbol, "size": 9, "color": colour, "line": {"width": 1.5, "color": colour}},
                    name=f"{anomaly}: {what}",
                    hovertext=[
                        f"{anomaly} id {i} {what} at {t:.3f}s" for i, t in zip(m.ids[known], times[known], strict=True)
                    ],
                    hoverinfo="text",
                ),
                row=2,
                col=1,
            )
    stall = "read_committed stall"
    _bar(fig, tl.stalls, [stall] * len(tl.stalls), _STALL, f"{stall} (LSO probe)")


def _batches(fig: go.Figure, tl: Timeline) -> None:
    fig.add_trace(
        go.Bar(
            x=[(b.start + b.end) / 2 for b in tl.batches],
            width=[max(b.seconds, 0.05) for b in tl.batches],
            y=[b.seconds * 1000 for b in tl.batches],
            marker_color=_BATCH,
            name="micro-batch (ms)",
            hovertext=[b.label for b in tl.batches],
            hoverinfo="text",
        ),
        row=3,
        col=1,
    )
    fig.update_yaxes(title_text="ms", row=3, col=1)


def partitions(tl: Timeline) -> go.Figure | None:
    """Offsets over time per partition, transaction markers, and duplicates' copies joined."""
    if not tl.partitions:
        return None
    fig = go.Figure()
    for i, p in enumerate(tl.partitions):
        colour = _PALETTE[i % len(_PALETTE)]
        name = f"{p.topic}-{p.partition}"
        step = math.ceil(len(p.ack_time) / MAX_ACK_POINTS)
        fig.add_trace(
            go.Scatter(
                x=p.ack_time[::step],
                y=p.ack_offset[::step],
                mode="markers",
                marker={"size": 3, "color": colour},
                name=f"{name} acks" + (f" (every {step}th)" if step > 1 else ""),
                legendgroup=name,
                hovertemplate=f"{name}@%{{y}} acknowledged at %{{x:.3f}}s<extra></extra>",
            )
        )
        if len(p.marker_offset):
            fig.add_trace(
                go.Scatter(
                    x=p.marker_time,
                    y=p.marker_offset,
                    mode="markers",
                    marker={"symbol": "line-ew-open", "size": 12, "color": colour, "line": {"width": 2}},
                    name=f"{name} transaction markers",
                    legendgroup=name,
                    hovertemplate=f"marker at {name}@%{{y}} (placed at the ack below it, %{{x:.3f}}s)<extra></extra>",
                )
            )
    if tl.copies:
        xs: list[float | None] = []
        ys: list[int | None] = []
        texts: list[str | None] = []
        for c in tl.copies:
            xs += [*c.times, None]
            ys += [*c.offsets, None]
            texts += [f"duplicate id {c.id}: {c.topic}-{c.partition}@{o}" for o in c.offsets] + [None]
        fig.add_trace(
            go.Scatter(
                x=[None if x is None or math.isnan(x) else x for x in xs],
                y=ys,
                mode="lines+markers",
                line={"color": _MARK_COLOURS[0], "width": 1},
                marker={"symbol": "diamond", "size": 7, "color": _MARK_COLOURS[0]},
                name="duplicate: its copies",
                hovertext=texts,
                hoverinfo="text",
            )
        )
    _shade_faults(fig, tl.faults)
    fig.update_layout(
        height=420 + _FOOT,
        margin={"l": 10, "r": 10, "t": 30, "b": _FOOT},
        legend=_LEGEND,
        xaxis={"title": "seconds since the side started", "range": [-0.5, tl.end + 0.5]},
        yaxis={"title": "offset", "rangemode": "tozero"},
        hovermode="closest",
    )
    return fig


def spread(counts: dict[str, list[int]]) -> go.Figure:
    """Repeated runs: each judged anomaly's control counts ("A1 duplicate" -> one per run)."""
    fig = go.Figure()
    for i, (name, values) in enumerate(counts.items()):
        fig.add_trace(
            go.Box(
                y=values,
                name=name,
                boxpoints="all",
                jitter=0.4,
                pointpos=0,
                marker_color=_PALETTE[i % len(_PALETTE)],
                hovertemplate=f"{name}: %{{y}}<extra></extra>",
            )
        )
    fig.update_layout(
        height=360,
        showlegend=False,
        margin={"l": 10, "r": 10, "t": 40, "b": 40},
        title={"text": "control counts per run (the anomaly each control must show)", "x": 0.01},
        yaxis={"title": "count", "rangemode": "tozero"},
    )
    return fig
