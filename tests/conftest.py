"""Shared fixtures: one real cluster per test session (per xdist worker), fresh topics per test.

Tests that damage the cluster heal it before they end (faults are healed by the fault API
itself), so the session cluster stays shared; that is what keeps `make test` fast.
Verdict summaries of scenario tests are printed at the end of the pytest output.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import settings

from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.settings import Settings

_SUMMARY = "scenario verdict"  # a test's user property, so it travels from xdist workers to the summary


@pytest.fixture(scope="session")
def cluster() -> Iterator[KafkaCluster]:
    try:
        started = KafkaCluster(Settings()).start()
    except HarnessError as exc:  # show the brokers' log tails, not just the one-liner
        pytest.fail(f"{exc}\n{exc.detail}", pytrace=False)
    with started as c:
        yield c


@pytest.fixture
def topic(cluster: KafkaCluster, request: pytest.FixtureRequest) -> str:
    """A fresh RF-3 single-partition topic named after the test."""
    name = f"t-{request.node.name[:40].replace('[', '-').replace(']', '')}-{uuid.uuid4().hex[:6]}"
    cluster.create_topic(name, partitions=1)
    return name


@pytest.fixture
def report(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """Call with a text block to have it printed in the session's summary."""
    return lambda text: request.node.user_properties.append((_SUMMARY, text))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that asks for the cluster (or a Spark session) is marked so, so `make test-unit`
    can leave it out by marker; tests that start their own do it by a module mark.

    Then the slow ones go first, the scenario pairs (a minute or two each) before the other
    cluster and JVM tests: xdist hands tests out in this order as workers come free, so the
    seconds-long tests that need neither fill the end of the run on every worker instead of
    one worker finishing a two-minute pair alone."""
    for item in items:
        for fixture in ("cluster", "spark"):
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(fixture)

    def cost(item: pytest.Item) -> int:
        if item.nodeid.startswith("tests/scenarios/"):
            return 0
        return 1 if any(item.get_closest_marker(m) for m in ("cluster", "spark", "jvm")) else 2

    items.sort(key=cost)


# `make test` runs on three xdist workers (the Makefile's TEST_WORKERS), each with its own
# session cluster. A module that starts a costly JVM session once (a module-scoped fixture)
# is one unit of work, so only one worker pays for it; every other test is scheduled on its
# own. (Not xdist's own `--dist loadgroup`: its group marks rename test ids in a way pytest
# 9.2 ignores.)
_ONE_WORKER_MODULES = ("tests/harness/checker/spark/test_engine.py", "tests/harness/jvm/test_spark.py")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):  # type: ignore[no-untyped-def]
    from xdist.scheduler import LoadScopeScheduling

    class ModulesWithSessionsTogether(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if module in _ONE_WORKER_MODULES else nodeid

    return ModulesWithSessionsTogether(config, log)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    summaries = [
        text
        for reports in terminalreporter.stats.values()
        for r in reports
        if getattr(r, "when", None) == "call"
        for name, text in r.user_properties
        if name == _SUMMARY
    ]
    if summaries:
        terminalreporter.section("scenario verdicts")
        for text in summaries:
            terminalreporter.write_line(text)


# Property tests (tests/harness/checker/test_properties.py): bounded and the same every run by
# default; `--hypothesis-profile=deep` (make test-properties) searches wider, with new examples each run.
settings.register_profile("default", max_examples=150, derandomize=True, deadline=None, print_blob=True)
settings.register_profile("deep", max_examples=3000, deadline=None, print_blob=True)
settings.load_profile("default")
