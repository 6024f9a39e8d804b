"""``verify-config --junit``: a suite of static findings (an error fails; a warning or info passes,
its text in ``system-out``; a rule that lacked its file or its versions is skipped) and a suite of
dynamic rows. A *violated* row fails. *Unavailable*, *unknown* and *inconclusive* rows are **skipped** with
their reason: they prove nothing either way, and the command exits 0 for them, so the file's
failures are exactly what makes ``verify-config`` exit 1. Built with ``harness.report.junit``'s
common form.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING

from harness.configcheck.rulebook import Severity
from harness.report import junit
from harness.report.page import REPORT

if TYPE_CHECKING:
    from harness.configcheck.report import Report


def tree(report: Report) -> ET.ElementTree:
    root = ET.Element("testsuites", name="kafka-harness verify-config")
    for section, findings in report.sections.items():
        suite = junit.new_suite(root, f"{section} checks")
        for f in findings:
            case = junit.new_case(suite, f"verify-config.{section}", f"{f.rule} at {f.where}")
            text = f"{f.severity}: {f.what}\nfix: {f.fix}\nscenarios: {', '.join(f.scenarios) or '-'}"
            if f.severity is Severity.ERROR:
                junit.add_text(case, "failure", text, message=f.what, type=str(f.severity))
            else:
                junit.add_text(case, "system-out", text)
        for rule, needs in report.skipped_rules.items():
            case = junit.new_case(suite, f"verify-config.{section}", rule)
            ET.SubElement(case, "skipped", message=f"needs {needs}")
    if report.dynamic:
        suite = junit.new_suite(root, "dynamic checks")
        for row in report.dynamic.rows:
            label = f"{row.scenario} ({row.bug})" if row.bug else row.scenario
            case = junit.new_case(suite, f"verify-config.dynamic.{row.scenario}", f"{label} on Kafka {row.version}")
            page = Path(row.run_dir).parent / REPORT if row.run_dir else "none"
            detail = f"{row.title}\nfault: {row.fault}\nproducer: {row.producer}\nreport: {page}"
            if row.outcome == "violated":
                junit.add_text(case, "failure", f"{detail}\ne.g. {row.example}", message=row.reason, type="violated")
            elif row.outcome in ("unavailable", "unknown", "inconclusive"):
                ET.SubElement(case, "skipped", message=f"{row.outcome}: {row.reason}")
            junit.add_text(case, "system-out", f"{row.outcome}: {row.reason}\n{detail}")
    return junit.counted(root)
