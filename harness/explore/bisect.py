"""Bisection over releases: a failing run's schedule replayed on releases chosen by binary search,
until the last release that fails it and the first that does not are neighbours.

``kafka-harness bisect RUN_DIR --kafka 3.3.0..4.4.0`` (or ``--client librdkafka 2.0.2..2.16.1``,
``--client java 3.3.0..4.4.0``): the releases are the registry's final ones in the range
(``harness.registry``); each release judged is replayed ``--times`` times (a rate, not one run)
and counts as *affected* when any replay failed, *clean* when none did and at least one was
judged (all inconclusive: the bisection stops, saying so). Both ends are judged first; they
must differ (affected then clean: a fix; clean then affected: a regression). Kafka releases get
a cluster each; client releases share one cluster of the run's own Kafka.

It ends by writing a regression pair (``harness.explore.scenario_file.regression_text``): the
explored side under the run's schedule, its control on the affected release of the boundary
(required to show one of the findings the failing replays showed), its guarantee on the clean
one; ``kafka-harness run`` takes the file. Every replay goes into ``bisect-<time>/<release>/``
in the run's folder, and ``bisect.json`` there holds the rates.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness import registry, versions
from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.explore import clusters, scenario_file, trial
from harness.explore.kept import Kept
from harness.explore.replay import replay
from harness.progress import say
from harness.settings import DEFAULT_KAFKA_VERSION, OLDEST_KAFKA_VERSION, Settings
from harness.verdict.document import FORBIDDEN
from harness.verdict.outcome import Outcome
from harness.workloads import clients, librdkafka_versions

# What can be bisected, and the oldest release of each the harness runs.
AXES = {"kafka": OLDEST_KAFKA_VERSION, "librdkafka": clients.OLDEST["librdkafka"][0], "java": clients.OLDEST["java"][0]}


def releases(axis: str, span: str) -> list[str]:
    """The published final releases of ``axis`` from LO to HI (``span``: ``LO..HI``), both ends
    included and published; a HarnessError saying what is wrong otherwise."""
    if axis not in AXES:
        raise HarnessError(f"unknown release axis {axis!r}: kafka, librdkafka or java")
    lo, sep, hi = span.partition("..")
    if not sep:
        raise HarnessError(f"a release range is LO..HI (e.g. 3.3.0..4.4.0), not {span!r}")
    why = "the oldest the harness runs"
    lo, hi = (versions.release(v.strip(), axis, AXES[axis], why) for v in (lo, hi))
    if versions.key(lo) >= versions.key(hi):
        raise HarnessError(f"a release range goes from older to newer: {lo}..{hi}")
    known = registry.published(axis)
    for end in (lo, hi):
        if end not in known:
            raise HarnessError(f"{axis} {end} is not a published release ({registry.source(axis)})")
    return [v for v in known if versions.key(lo) <= versions.key(v) <= versions.key(hi)]


def pin(axis: str, release: str) -> dict[str, str]:
    """The Variant (and Subject) fields that put a side on ``release`` of ``axis``."""
    return {"kafka_version": release} if axis == "kafka" else {"client": f"{axis}=={release}"}


@dataclass
class Point:
    """One release judged: its replays' outcomes and the findings of those that failed."""

    release: str
    outcomes: list[str]
    findings: Counter[str] = field(default_factory=Counter)
    folder: Path | None = None

    @property
    def failed(self) -> int:
        return self.outcomes.count(Outcome.FAILED)

    @property
    def affected(self) -> bool:
        return self.failed > 0

    @property
    def judged(self) -> bool:
        return any(o in (Outcome.FAILED, Outcome.PASSED) for o in self.outcomes)

    def row(self) -> dict[str, Any]:
        return {
            "release": self.release,
            "failed": self.failed,
            "of": len(self.outcomes),
            "outcomes": self.outcomes,
            "findings": dict(self.findings),
        }


@dataclass
class Bisection:
    axis: str
    folder: Path
    points: dict[str, Point]
    # Neighbours where the state changes, each (older, newer), oldest first: one, or two when
    # the run's own release split a range clean at both ends (where it broke, where it was fixed).
    boundaries: list[tuple[Point, Point]]
    pair: Path | None  # the regression pair file, when the failures named a finding

    def in_order(self) -> list[Point]:
        """Every release judged, oldest first."""
        return sorted(self.points.values(), key=lambda p: versions.key(p.release))

    @property
    def pair_boundary(self) -> tuple[Point, Point]:
        """The boundary the regression pair stands on: the fix if there is one, else the break."""
        return next((b for b in self.boundaries if b[0].affected), self.boundaries[0])

    @property
    def affected(self) -> Point:
        older, newer = self.pair_boundary
        return older if older.affected else newer

    @property
    def clean(self) -> Point:
        older, newer = self.pair_boundary
        return newer if older.affected else older


def bisect(
    kept: Kept, axis: str, span: list[str], times: int, settings: Settings, out: Path | None = None
) -> Bisection:
    """Judge the ends of ``span`` (releases, oldest first), then halve until the boundary; write
    the regression pair (to ``out``, else into the bisection's folder)."""
    if times < 1:
        raise HarnessError(f"--times must be 1 or more, not {times}")
    if len(span) < 2:
        raise HarnessError("a bisection needs two releases or more")
    folder = kept.folder / f"bisect-{time.strftime('%Y%m%d-%H%M%S')}"
    points: dict[str, Point] = {}
    shared = _SharedCluster(kept, settings) if axis != "kafka" else None
    try:

        def judge(release: str) -> Point:
            if release not in points:
                points[release] = _judge(kept, axis, release, times, settings, folder / release, shared)
                p = points[release]
                say(
                    f"bisect: {axis} {release}: {p.failed} of {len(p.outcomes)} failed "
                    f"({'affected' if p.affected else 'clean'})"
                )
            return points[release]

        ends = judge(span[0]), judge(span[-1])
        if ends[0].affected != ends[1].affected:
            boundaries = [_halve(span, 0, len(span) - 1, judge)]
        else:
            # Both ends alike: the run's own release, failing inside the range, splits it in two.
            own = _own_release(kept, axis)
            inside = own in span[1:-1] and not ends[0].affected and judge(own).affected
            if not inside:
                state = "affected" if ends[0].affected else "clean"
                raise HarnessError(
                    f"both ends are {state} ({span[0]}: {ends[0].failed} of {times} failed, {span[-1]}: "
                    f"{ends[1].failed} of {times}): nothing to bisect; widen the range (to the run's own release "
                    "or past it) or raise --times"
                )
            middle = span.index(own)
            boundaries = [_halve(span, 0, middle, judge), _halve(span, middle, len(span) - 1, judge)]
    finally:
        if shared is not None:
            shared.close()
    result = Bisection(axis, folder, points, [(points[a], points[b]) for a, b in boundaries], None)
    result.pair = _write_pair(kept, result, times, out)
    (folder / "bisect.json").write_text(json.dumps(_summary(kept, result, times), indent=2) + "\n")
    return result


class _SharedCluster:
    """One cluster of the run's own Kafka for every client release judged (started on first use)."""

    def __init__(self, kept: Kept, settings: Settings) -> None:
        self.session = clusters.Session(kept.subject.settings(settings), kept.subject.broker_settings())

    def cluster(self) -> KafkaCluster:
        return self.session.cluster

    def close(self) -> None:
        self.session.__exit__(None, None, None)


def _halve(span: list[str], lo: int, hi: int, judge: Callable[[str], Point]) -> tuple[str, str]:
    """The neighbours in ``span[lo..hi]`` where the state changes (the ends differ)."""
    first = judge(span[lo]).affected
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if judge(span[mid]).affected == first:
            lo = mid
        else:
            hi = mid
    return span[lo], span[hi]


def _own_release(kept: Kept, axis: str) -> str:
    """The release of ``axis`` the run itself failed on."""
    side = kept.subject.scenario().guarantee
    kafka = kept.subject.kafka_version or side.kafka_version or DEFAULT_KAFKA_VERSION
    if axis == "kafka":
        return kafka
    spec = clients.ClientSpec.parse(kept.subject.client or side.client or clients.LIBRDKAFKA)
    if spec.name != axis:
        return ""
    return spec.version or (librdkafka_versions.PINNED if axis == clients.LIBRDKAFKA else kafka)


def _judge(
    kept: Kept, axis: str, release: str, times: int, settings: Settings, folder: Path, shared: _SharedCluster | None
) -> Point:
    on_release = replace(kept, subject=replace(kept.subject, **pin(axis, release)))
    _, trials = replay(on_release, times, settings, shared.cluster() if shared else None, folder)
    point = Point(release, [t.outcome for t in trials], folder=folder)
    if not point.judged:
        raise HarnessError(
            f"{axis} {release}: none of {times} replays could be judged ({', '.join(point.outcomes)}): "
            f"see {folder}; the schedule may need what this release lacks"
        )
    forbidden = {n for n, rule in kept.subject.guarantee().expect.items() if rule == FORBIDDEN} | set(trial.APP_ERRORS)
    for t in trials:
        if t.failed:
            point.findings.update({n: c for n, c in t.counts.items() if n in forbidden and c})
    return point


def _write_pair(kept: Kept, result: Bisection, times: int, out: Path | None) -> Path | None:
    findings = sorted(result.affected.findings)
    if not findings:
        say("bisect: the failing replays broke a check, not a finding: no regression pair written")
        return None
    sid = f"{kept.subject.like}-bisect-{result.affected.release}-{result.clean.release}".replace("/", "-")
    others = {k: v for k, v in (("kafka_version", kept.subject.kafka_version), ("client", kept.subject.client)) if v}
    pins = (
        {**others, **pin(result.axis, result.affected.release)},
        {**others, **pin(result.axis, result.clean.release)},
    )
    path = out or result.folder / f"{sid.lower().replace('-', '_').replace('.', '_')}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(scenario_file.regression_text(kept, sid, pins, findings, _evidence(kept, result, times)))
    return path


def _evidence(kept: Kept, result: Bisection, times: int) -> str:
    rows = []
    for p in result.in_order():
        findings = ", ".join(f"{n} {c}" for n, c in p.findings.items()) or "-"
        rows.append(f"| {p.release} | {p.failed} of {len(p.outcomes)} | {findings} |")
    return (
        f"Bisected by `kafka-harness bisect {kept.folder}` over {result.axis} releases, {times} replays each of\n"
        f"the run's schedule: {'; '.join(describe(b) for b in result.boundaries)}.\n\n"
        "| release | failed | findings of the failing replays |\n|---|---|---|\n" + "\n".join(rows)
    )


def describe(boundary: tuple[Point, Point]) -> str:
    older, newer = boundary
    if older.affected:
        return f"last affected {older.release}, first clean {newer.release}"
    return f"last clean {older.release}, first affected {newer.release}"


def _summary(kept: Kept, result: Bisection, times: int) -> dict[str, Any]:
    return {
        "run": str(kept.folder),
        "axis": result.axis,
        "times": times,
        "boundaries": [describe(b) for b in result.boundaries],
        "last_affected": result.affected.release,
        "first_clean": result.clean.release,
        "points": [p.row() for p in result.in_order()],
        "pair": str(result.pair) if result.pair else None,
    }
