"""A1's report as a reader sees it: run the pair on the cluster, open its report.html in
headless Chromium, and look: no script error, the timeline drawn with the fault interval
where the fault was, the verdict table there."""

from __future__ import annotations

from pathlib import Path

import pytest

import scenarios
from harness.cluster.kafka import KafkaCluster
from harness.report import screenshot
from harness.report.page import REPORT
from harness.report.run_folder import folder_of
from harness.runner import run_pair

# Where the shaded fault sits in the page, against where its times put it on the axis (pixels).
_FAULT_IN_PAGE = """([id, x0, x1]) => {
    const gd = document.getElementById(id);
    const ax = gd._fullLayout.xaxis;
    const svg = gd.querySelector('.main-svg').getBoundingClientRect();
    const shade = gd.querySelector('.shapelayer path').getBoundingClientRect();
    return {
        drawn: [shade.left - svg.left, shade.right - svg.left],
        axis: [ax._offset + ax.l2p(x0), ax._offset + ax.l2p(x1)],
    };
}"""


@pytest.mark.cluster
def test_a1_report_opens_with_its_timeline_and_verdict(cluster: KafkaCluster, tmp_path: Path) -> None:
    pair = run_pair(cluster, scenarios.get("A1"), tmp_path)
    report = folder_of(pair) / REPORT
    assert report.exists(), "run_pair writes the report"
    (fault,) = pair.control.record.faults
    started = pair.control.record.started_at
    errors: list[str] = []
    with screenshot.browser() as b, screenshot.opened(b, report, errors) as page:
        for side in ("control", "guarantee"):
            timeline = page.locator(f"#{side}-timeline")
            assert timeline.locator(".main-svg").count() >= 1
            assert timeline.locator(".scatterlayer .trace").count() >= 1  # acks per second, marks
            assert timeline.locator(".barlayer .point").count() >= 2  # the fault, the incarnation
        control = page.locator("#control-timeline")
        labels = control.locator(".annotation-text").all_text_contents()
        assert any(label.startswith("blackhole leader of") and "(from_broker)" in label for label in labels), labels
        x0, x1 = fault["injected_at"] - started, fault["healed_at"] - started
        where = page.evaluate(_FAULT_IN_PAGE, ["control-timeline", x0, x1])
        assert where["drawn"] == pytest.approx(where["axis"], abs=2), where
        rows = page.locator("#control-verdict tr").all_inner_texts()
        assert any(r.startswith("duplicate\trequired\t") and "\tok\t" in r for r in rows), rows
        assert page.locator("#outcome").inner_text() == "passed"
        page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert errors == []
