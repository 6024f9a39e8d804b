"""The harness as a pytest plugin, for testing your own app (registered under the ``pytest11``
entry point, so installing kafka-eos-harness is enough; docs/your-app.md).

Fixtures, all lazy (a session that asks for none of them starts nothing):

- ``kafka_cluster`` (session): three KRaft brokers behind Toxiproxy. ``bootstrap_servers`` is
  the address your app uses (its own links: a fault on ``APP_LINKS`` hits it alone);
  ``create_topic(name)`` makes a topic with a name unique to the run and returns it; the Kafka
  version comes from ``--keh-kafka-version`` or the ini value ``keh_kafka_version``.
- ``eos_input(topic, n)``: a new topic filled with ``n`` records carrying harness ids, in
  transactions some of which abort, their writer's ledger kept for the check (one per test).
- ``kafka_app(command, input, output, instances=1)``: your app started as OS processes with
  the contract's environment (harness.userapps.contract), ``app-1`` …: faults kill, pause and
  restart them.
- ``faults``: ``with faults(kill(App("app-1"))):`` injects a fault and heals it at the end of
  the block (a killed app then starts again); ``with faults.schedule([Step(...)]):`` runs a
  timed schedule beside the block; roles as the scenarios use them (``Leader(topic, p)``,
  ``TxnCoordinator(id)``, ``Brokers()`` with ``listener=APP_LINKS`` for your app's links).
- ``assert_exactly_once(input=..., output=...)``: waits for the app to catch up, heals, reads
  the output back (read_committed, and read_uncommitted beside it) and fails with the findings
  and example records, as a failed assertion does (``ExactlyOnceViolation``), or returns the
  verdict; either way the run's ``report.html`` is written and named.

Everything a test started is stopped at its end, on failure and on Ctrl-C: faults healed, app
processes killed; the cluster is removed at the end of the session.

pytest imports this module in every session of a project that installed the harness, so it
imports only pytest and the standard library: each fixture imports what it does
(harness.pytest_fixtures, with numpy, pyarrow, confluent-kafka, Docker's client and the rest)
when a test first asks for one. The names a test imports from here (``APP_LINKS``,
``ExactlyOnceViolation``, …) are looked up there on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # for type checkers the names are this module's own (__all__)
    from harness.pytest_fixtures import (
        APP_LINKS,
        Checked,
        ExactlyOnceViolation,
        FaultsFixture,
        HarnessRun,
        KafkaFixture,
        RunningApp,
    )
    from harness.userapps.workload import Input

__all__ = ["APP_LINKS", "Checked", "ExactlyOnceViolation", "FaultsFixture", "KafkaFixture", "RunningApp"]

_FIXTURES = "harness.pytest_fixtures"


def __getattr__(name: str) -> Any:
    """The public names, from the fixtures' module, imported on first use (PEP 562)."""
    if name in __all__:
        return getattr(importlib.import_module(_FIXTURES), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kafka-eos-harness", "your app under faults (kafka-eos-harness)")
    group.addoption("--keh-kafka-version", help="Kafka version of kafka_cluster (ini: keh_kafka_version)")
    group.addoption(
        "--keh-runs-dir", help="where each test's run folder goes (ini: keh_runs_dir; default <rootdir>/runs)"
    )
    parser.addini("keh_kafka_version", "Kafka version of kafka_cluster (default: the harness's)")
    parser.addini("keh_runs_dir", "where each test's run folder goes, relative to the rootdir (default runs)")


def _option(config: pytest.Config, name: str) -> str:
    return str(config.getoption(f"--keh-{name.replace('_', '-')}") or config.getini(f"keh_{name}") or "")


@pytest.fixture(scope="session")
def kafka_cluster(request: pytest.FixtureRequest) -> Iterator[KafkaFixture]:
    """Three KRaft brokers behind Toxiproxy for the session: ``.bootstrap_servers``, ``.create_topic(name)``."""
    from harness import pytest_fixtures

    yield from pytest_fixtures.kafka_cluster(_option(request.config, "kafka_version"))


@pytest.fixture
def _kafka_eos_run(kafka_cluster: KafkaFixture, request: pytest.FixtureRequest) -> Iterator[HarnessRun]:
    from harness import pytest_fixtures

    runs = request.config.rootpath / (_option(request.config, "runs_dir") or "runs")
    yield from pytest_fixtures.harness_run(kafka_cluster, runs, request.node.name)


@pytest.fixture
def faults(_kafka_eos_run: HarnessRun) -> FaultsFixture:
    """``with faults(spec):`` injects a fault and heals it at the block's end; ``faults.schedule([...])``."""
    from harness import pytest_fixtures

    return pytest_fixtures.FaultsFixture(_kafka_eos_run)


@pytest.fixture
def eos_input(_kafka_eos_run: HarnessRun) -> Callable[..., Input]:
    """``eos_input(topic, n, partitions=3)``: a new topic of ``n`` records with harness ids (one per test)."""
    from harness import pytest_fixtures

    return pytest_fixtures.eos_input(_kafka_eos_run)


@pytest.fixture
def kafka_app(_kafka_eos_run: HarnessRun) -> Callable[..., RunningApp]:
    """``kafka_app(command, input, output, instances=1)``: your app as processes ``app-1`` … (one per test)."""
    from harness import pytest_fixtures

    return pytest_fixtures.kafka_app(_kafka_eos_run)


@pytest.fixture
def assert_exactly_once(_kafka_eos_run: HarnessRun, request: pytest.FixtureRequest) -> Callable[..., Checked]:
    """``assert_exactly_once(input=, output=)``: judges the app; ``ExactlyOnceViolation`` or ``Checked``."""
    from harness import pytest_fixtures

    return pytest_fixtures.assert_exactly_once(_kafka_eos_run, request.node.name)
