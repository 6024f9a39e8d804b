"""Shared fixtures: one real cluster per test session, fresh topics per test.

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

_SUMMARIES = pytest.StashKey[list[str]]()


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
    return request.config.stash.setdefault(_SUMMARIES, []).append


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that asks for the cluster (or a Spark session) is marked so, so `make test-unit`
    can leave it out by marker; tests that start their own do it by a module mark."""
    for item in items:
        for fixture in ("cluster", "spark"):
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(fixture)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    summaries = config.stash.get(_SUMMARIES, [])
    if summaries:
        terminalreporter.section("scenario verdicts")
        for text in summaries:
            terminalreporter.write_line(text)


# Property tests (tests/harness/checker/test_properties.py): bounded and the same every run by
# default; `--hypothesis-profile=deep` (make test-properties) searches wider, with new examples each run.
settings.register_profile("default", max_examples=150, derandomize=True, deadline=None, print_blob=True)
settings.register_profile("deep", max_examples=3000, deadline=None, print_blob=True)
settings.load_profile("default")
