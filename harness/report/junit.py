"""JUnit XML for CI in the common form (testsuites / testsuite / testcase with name, classname
and time; failure and skipped with a message; counts on every suite): the builders every
command's file is made with (``new_suite``, ``new_case``, ``add_text``, ``counted``, ``write``), the pairs of
``kafka-harness run --junit`` and the app of ``check-app --junit``. ``verify-config --junit``
is ``harness.configcheck.junit``, on these builders.

- **run**: a suite per pair, a case per side. A guarantee that did not hold fails with its
  reasons; a control that did not show its anomaly fails, saying the pair is inconclusive
  (or failed); a side that could not be told (its checker raised) fails saying so, its
  ``type`` the pair's outcome (``unknown``, unless the guarantee was violated). A research
  pair claims nothing: its sides fail only by a check that says the run did not do what the
  research needs; their findings are in ``system-out``. Every case's ``system-out`` has its
  expected-against-observed lines and the pair's ``report.html``.
- **check-app**: a suite with one case, the user's app: it fails with its reasons when it broke
  exactly-once or a check (``type="violated"``), could not be told (``type="unknown"``) or a
  fault did not happen as written (``type="inconclusive"``); an app that breaks the harness's
  contract (crashed on start, never read, outputs naming no input) is an ``error`` with the one
  line the command printed.
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path

from harness.report.page import REPORT
from harness.report.run_folder import folder_of
from harness.report.verdicts import expectations
from harness.verdict.document import PairVerdict, VariantVerdict, side_outcome, untold, violated
from harness.verdict.outcome import Outcome


def new_suite(parent: ET.Element, name: str, started: float | None = None) -> ET.Element:
    suite = ET.SubElement(parent, "testsuite", name=name)
    if started:
        suite.set("timestamp", time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(started)))
    return suite


def new_case(suite: ET.Element, classname: str, name: str, seconds: float = 0.0) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=classname, name=name, time=f"{seconds:.3f}")


def add_text(case: ET.Element, tag: str, text: str, **attrs: str) -> None:
    ET.SubElement(case, tag, attrs).text = text


def counted(root: ET.Element) -> ET.ElementTree:
    """Fill in every suite's counts, and the totals, from the cases."""
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    seconds = 0.0
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        took = sum(float(c.get("time", "0")) for c in cases)
        for k, n in counts.items():
            suite.set(k, str(n))
            totals[k] += n
        suite.set("time", f"{took:.3f}")
        seconds += took
    for k, n in totals.items():
        root.set(k, str(n))
    root.set("time", f"{seconds:.3f}")
    ET.indent(root)
    return ET.ElementTree(root)


def write(tree: ET.ElementTree, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tree.write(path, encoding="utf-8", xml_declaration=True)
    return path


# --- kafka-harness run ---------------------------------------------------------------------


def _seconds(v: VariantVerdict) -> float:
    started, ended = v.record.started_at, v.record.ended_at
    return ended - started if started and ended else 0.0


def pairs(runs: list[PairVerdict]) -> ET.ElementTree:
    root = ET.Element("testsuites", name="kafka-harness run")
    seen: dict[str, int] = {}
    repeated = {p.scenario for p in runs if sum(q.scenario == p.scenario for q in runs) > 1}
    for pair in runs:
        seen[pair.scenario] = seen.get(pair.scenario, 0) + 1
        nth = f" (run {seen[pair.scenario]})" if pair.scenario in repeated else ""
        suite = new_suite(root, f"{pair.scenario}{nth}: {pair.title}", pair.control.record.started_at)
        report = folder_of(pair) / REPORT
        for v in (pair.control, pair.guarantee):
            case = new_case(suite, f"kafka-harness.{pair.scenario}", f"{v.variant}{nth}", _seconds(v))
            if not v.passed:  # a research side fails only by a check
                _side_failure(case, pair, v)
            lines = [e.line for e in expectations(v)] + [f"reason: {r}" for r in v.reasons]
            add_text(case, "system-out", "\n".join([*lines, f"pair outcome: {pair.outcome}", f"report: {report}"]))
    return counted(root)


def _side_failure(case: ET.Element, pair: PairVerdict, v: VariantVerdict) -> None:
    reasons = "; ".join(v.reasons)
    if untold(v) and not violated(v):
        message = f"what the {v.variant} showed could not be told, so the pair is {pair.outcome}: {reasons}"
    elif v.variant == "control":
        message = f"the control did not show its anomaly, so the pair is {pair.outcome}: {reasons}"
    else:
        message = f"the guarantee did not hold: {reasons}"
    kind = "violated" if v.variant != "control" and pair.outcome == Outcome.FAILED else pair.outcome.value
    add_text(case, "failure", "\n".join(v.reasons), message=message, type=kind)


# --- kafka-harness check-app ---------------------------------------------------------------


def app_run(title: str, side: VariantVerdict | None, report: Path | None, breach: str = "") -> ET.ElementTree:
    """The user's app as one case: its verdict, or the contract ``breach`` that left it without one."""
    root = ET.Element("testsuites", name="kafka-harness check-app")
    suite = new_suite(root, title, side.record.started_at if side else None)
    case = new_case(suite, "kafka-harness.check-app", "exactly once", _seconds(side) if side else 0.0)
    if breach or side is None:
        add_text(case, "error", breach, message=breach, type="contract")
    elif not side.passed:
        outcome = side_outcome(side)
        kind = "violated" if outcome == Outcome.FAILED else outcome.value
        add_text(case, "failure", "\n".join(side.reasons), message=f"{outcome}: {'; '.join(side.reasons)}", type=kind)
    lines = [e.line for e in expectations(side)] if side else []
    add_text(case, "system-out", "\n".join([*lines, f"report: {report or 'none'}"]))
    return counted(root)
