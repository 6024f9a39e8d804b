"""The common JUnit schema every ``--junit`` file is held to: testsuites / testsuite / testcase
with name, classname and time; a failure has a message; every suite's tests, failures, errors
and skipped agree with its cases, and the totals with the suites."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

_OUTCOMES = ("failure", "error", "skipped")
_CASE_CHILDREN = {*_OUTCOMES, "system-out", "system-err", "properties"}


def check_schema(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites"
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name"), suite.attrib
        cases = suite.findall("testcase")
        assert {c.tag for c in suite} <= {"testcase", "properties", "system-out", "system-err"}
        for case in cases:
            assert case.get("name") and case.get("classname"), case.attrib
            assert float(case.get("time", "x")) >= 0
            assert {c.tag for c in case} <= _CASE_CHILDREN, [c.tag for c in case]
            assert sum(case.find(t) is not None for t in _OUTCOMES) <= 1, case.attrib
            failure = case.find("failure")
            assert failure is None or failure.get("message"), case.attrib
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        assert {k: int(suite.get(k, "-1")) for k in counts} == counts, suite.attrib
        for k, n in counts.items():
            totals[k] += n
    assert {k: int(root.get(k, "-1")) for k in totals} == totals, root.attrib
    return root


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {f"{c.get('classname')} {c.get('name')}": c for c in root.iter("testcase")}
