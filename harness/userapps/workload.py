"""A user's app as a workload: its input written first (``write_input``), its instances started with
the contract's environment (``user_apps``), and what the runner reads back and judges
(``app_plan``, ``APP_VARIANT``). ``UserAppWorkload`` puts them together for ``check-app``; the
pytest plugin uses the same parts one fixture at a time.

A user's app is a pipeline app (harness.workloads.pipeline) whose command and environment are
the user's and which writes no ledger. So its outputs are judged as the Streams and Spark
workloads judge theirs: the output topic read back is the history of what the app did, each
output naming its input, counted per committed input (harness.userapps.output). The checker's
``eos_missing`` / ``eos_repeated`` need each output's send in a ledger, which only the
harness's own apps write; the sink findings say the same thing of outputs read back, and
``sink_aborted`` adds what a ledger could not show: an app that read an aborted input.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from harness.cluster.kafka import OWN_LINK_LISTENERS, KafkaCluster
from harness.faults.plan import RunNames
from harness.history.format import view_path
from harness.history.readback import read_back
from harness.report.run_folder import APP_SIDE
from harness.scenario import Variant
from harness.userapps import contract
from harness.userapps.app import GroupProgress, UserApp, instance_name
from harness.userapps.contract import ContractError, Naming
from harness.userapps.moments import FAULT_HIT_WORK
from harness.userapps.output import SINK_FINDINGS, AppOutput
from harness.verdict.checks import Check
from harness.verdict.document import FORBIDDEN, VariantVerdict
from harness.workloads.base import Plan, SideSetup
from harness.workloads.input import INPUT_PRODUCER, Pace, fill, input_app
from harness.workloads.process import AppProcess
from harness.workloads.producer import ProducerWorkload

# The input's transactions: this many records each, every ABORT_EVERY-th aborted, so an app
# reading uncommitted data has aborted records to read.
INPUT_TXN_SIZE = 10
INPUT_ABORT_EVERY = 5
# How long an app may go without committing an offset or writing an output before it is
# stopped: above a restarted instance's wait for its dead predecessor's session to expire
# (librdkafka's and Java's default session.timeout.ms is 45 s).
IDLE_TIMEOUT_S = 60.0
# The apps' budget: their inputs at a slow pace, plus starts, rebalances and the idle wait.
_INPUTS_PER_S, _SLACK_S = 10, 300
# How a live input is written: 500 records a second in bursts of 250, two seconds apart (2000
# inputs: about 20 s), so the app reaches the end of its partitions again and again.
LIVE = Pace(rate_per_s=500.0, burst=250, pause_s=2.0)
# The listener the apps reach the brokers through: a fault on OWN_LINKS hits them alone.
APP_LINKS = OWN_LINK_LISTENERS[0]
USER_APP_CLIENT = "your app"  # what the verdict and report name as the apps' client


@dataclass(frozen=True)
class Input:
    """An input written for a user's app: its topic, the ledgers of its writer, and per partition
    the offset after its last committed record (where a caught-up group's offsets are). A live
    input is still to be written, by ``writer`` beside the app: its ledgers come with the
    writer's, and its ``targets`` once the writer is done (``targets_when_written``)."""

    topic: str
    partitions: int
    written: int
    ledgers: list[Path]
    targets: dict[int, int] | None
    writer: AppProcess | None = None


def write_input(
    cluster: KafkaCluster,
    run_dir: Path,
    topic: str,
    count: int,
    partitions: int,
    config: dict[str, str] | None = None,
    live: Pace | None = None,
) -> Input:
    """Create ``topic`` and fill it with ``count`` records in transactions (every
    ``INPUT_ABORT_EVERY``-th aborted), each carrying its id in its value and its header; with
    ``live``, only make its writer, which the app's plan starts beside the app, writing at that pace."""
    cluster.create_topic(topic, partitions, config=config)
    records = ProducerWorkload(
        count=count,
        keys=partitions * 4,
        txn_size=INPUT_TXN_SIZE,
        abort_every=INPUT_ABORT_EVERY,
        source_header=True,
    )
    writer = {**INPUT_PRODUCER, "transactional.id": f"{topic}-input-{uuid.uuid4().hex[:6]}"}
    if live is not None:
        return Input(topic, partitions, count, [], None, input_app(cluster, run_dir, topic, records, writer, live))
    ledgers = fill(cluster, run_dir, topic, records, writer)
    return Input(topic, partitions, count, ledgers, committed_ends(cluster, topic, partitions))


def committed_ends(cluster: KafkaCluster, topic: str, partitions: int) -> dict[int, int]:
    """Per partition of ``topic``, the offset after its last committed record."""
    with tempfile.TemporaryDirectory(prefix="input-") as tmp:
        reads = read_back(cluster.bootstrap_servers(), [topic], Path(tmp), login=cluster.client_config())
        committed = pq.read_table(view_path(reads, "read_committed"), columns=["partition", "offset"])
    targets = dict.fromkeys(range(partitions), 0)
    for partition, offset in zip(committed["partition"].to_pylist(), committed["offset"].to_pylist(), strict=True):
        targets[partition] = max(targets[partition], offset + 1)
    return targets


def targets_when_written(cluster: KafkaCluster, source: Input) -> Callable[[], dict[int, int] | None]:
    """The input's targets once its live writer has finished writing it (None until then)."""

    def targets() -> dict[int, int] | None:
        writer = source.writer
        if writer is None or not writer.incarnations or writer.current.proc.poll() != 0:
            return None
        return committed_ends(cluster, source.topic, source.partitions)

    return targets


@dataclass
class UserApps:
    """The instances of one user's app over one input, and what they share."""

    command: list[str]
    input: Input
    output_topic: str
    group: str
    transactional_id_prefix: str
    apps: list[UserApp]
    progress: GroupProgress | None  # None: an app whose group the harness does not know (run by a test itself)

    @property
    def transactional_ids(self) -> list[str]:
        return [contract.transactional_id(self.transactional_id_prefix, i) for i in range(1, len(self.apps) + 1)]

    @property
    def names(self) -> RunNames:
        """The parts of the app's plan a schedule may name: its topics, each instance's
        transactional.id and group."""
        return RunNames(
            {"main": self.output_topic, "input": self.input.topic, "output": self.output_topic},
            transactional_ids=dict(zip((a.name for a in self.apps), self.transactional_ids, strict=True)),
            groups={a.name: self.group for a in self.apps},
        )


def user_apps(
    cluster: KafkaCluster,
    run_dir: Path,
    command: list[str],
    source: Input,
    output_topic: str,
    instances: int = 1,
    idle_timeout_s: float = IDLE_TIMEOUT_S,
    links: str = APP_LINKS,
) -> UserApps:
    """Instances ``app-1`` … of ``command`` (not started), each with the contract's environment,
    reaching the brokers through the listener ``links``."""
    group, prefix = contract.group_id(output_topic), contract.transactional_id_prefix(output_topic)
    progress = GroupProgress(
        cluster.bootstrap_servers(),
        cluster.client_config(),
        group,
        source.topic,
        source.targets,
        output_topic,
        targets_when_written(cluster, source),
    )
    bootstrap = cluster.bootstrap_servers(links)

    def command_line(spec_path: Path, spec: dict[str, Any]) -> list[str]:
        return list(command)  # the user's, as given, in every incarnation

    apps = []
    for i in range(1, instances + 1):
        env = contract.environment(bootstrap, source.topic, output_topic, group, prefix, i, instances)

        def spec_for(ledger: Path, earlier: list[Path], env: dict[str, str] = env) -> dict[str, Any]:
            # No ledger: the spec file records what the incarnation was started with.
            return {"command": command, "environment": env, "incarnation": len(earlier) + 1}

        apps.append(UserApp(instance_name(i), run_dir, spec_for, command_line, env, progress, idle_timeout_s))
    return UserApps(list(command), source, output_topic, group, prefix, apps, progress)


def app_plan(users: UserApps, run_dir: Path, naming: Naming, view: str = "read_committed") -> Plan:
    """What the runner runs, reads back (the input; the output as the sink) and judges."""
    writers = [users.input.writer] if users.input.writer is not None else []  # a live input's, first
    return Plan(
        [*writers, *users.apps],
        [*writers, *users.apps],
        topics=[users.input.topic],
        names=users.names,
        partitions=users.input.partitions,
        config={
            "command": " ".join(users.command),
            "instances": len(users.apps),
            "group.id": users.group,
            "transactional.id prefix": users.transactional_id_prefix,
            "outputs name inputs by": naming.describe(),
            "output read as": view,
        },
        budget_s=users.input.written / _INPUTS_PER_S + _SLACK_S + (LIVE.seconds(users.input.written) if writers else 0),
        prefix_ledgers=users.input.ledgers,
        transactional_ids=users.transactional_ids,
        sink=AppOutput(users.input.topic, users.output_topic, run_dir, naming, view, users.progress),
        client=USER_APP_CLIENT,
        helpers=tuple(w.name for w in writers),
    )


@dataclass(frozen=True)
class UserAppWorkload:
    """``check-app``'s workload: the user's command over a fresh input, ``instances`` at once."""

    command: tuple[str, ...]
    input_topic: str
    output_topic: str
    inputs: int = 1000
    partitions: int = 3
    instances: int = 1
    naming: Naming = field(default_factory=Naming)
    view: str = "read_committed"
    idle_timeout_s: float = IDLE_TIMEOUT_S
    # The input written while the app runs, in bursts and pauses (``LIVE``), rather than before it starts.
    live_input: bool = False

    def plan(self, side: SideSetup) -> Plan:
        cluster, run_dir = side.cluster, side.run_dir
        cluster.create_topic(self.output_topic, self.partitions, config=side.topic_config)
        live = LIVE if self.live_input else None
        source = write_input(cluster, run_dir, self.input_topic, self.inputs, self.partitions, side.topic_config, live)
        users = user_apps(
            cluster,
            run_dir,
            list(self.command),
            source,
            self.output_topic,
            self.instances,
            self.idle_timeout_s,
            side.own_links,
        )
        return app_plan(users, run_dir, self.naming, self.view)


# --- how a run of a user's app is judged ------------------------------------------------------


def _reports(side: VariantVerdict) -> list[dict[str, Any]]:
    return [r for r in side.record.workload if "crashed" in r]


def _crashes(side: VariantVerdict) -> str | None:
    crashed = [r for r in _reports(side) if r["crashed"]]
    said = [f"{r['app']}#{r['incarnation']} exited {r['exit']}: {r.get('last_line', '')[:120]}" for r in crashed]
    return "; ".join(said) or None


def _stalled(side: VariantVerdict) -> str | None:
    stopped = [f"{r['app']}: {r['stopped']}" for r in _reports(side) if r.get("stopped", "caught up") != "caught up"]
    return "; ".join(stopped) or None


NO_CRASH = Check(
    "no instance crashed",
    "an incarnation that exits with a failure status nobody asked for did not survive what happened to it",
    _crashes,
)
CAUGHT_UP = Check(
    "the app caught up",
    "its group's committed offsets must reach the end of the input; an app stopped for making no progress "
    "left inputs unprocessed that the counts then show as missing",
    _stalled,
)
# Every input exactly once in the output, and nothing read from aborted transactions; the app
# neither crashed nor gave up. The side's name is its folder's (harness.report.run_folder.APP_SIDE).
# And some fault hit it with work in hand, or the run proves nothing (harness.userapps.moments).
APP_VARIANT = Variant(
    APP_SIDE, {}, expect=dict.fromkeys(SINK_FINDINGS, FORBIDDEN), checks=(NO_CRASH, CAUGHT_UP, FAULT_HIT_WORK)
)


def contract_breach(side: VariantVerdict) -> ContractError | None:
    """Why the run says nothing about exactly-once, if it does not: an app that crashed on start,
    wrote outputs naming no input, never read, or never committed an offset."""
    sink = side.record.sink
    group_committed = sink.get("group_committed")
    committed = group_committed is None or group_committed > 0  # None: the group is not known
    crashed = [r for r in _reports(side) if r["crashed"]]
    if crashed and not committed:
        r = crashed[0]
        took = (r["ended_at"] or r["started_at"]) - r["started_at"]
        out = Path(side.record.run_dir) / f"{r['app']}.{r['incarnation']}.out"
        return contract.crashed_at_start(r["app"], r["exit"], took, out, r.get("last_line", ""))
    if sink.get("contract"):
        return ContractError(sink["contract"])
    if not committed:
        group = side.record.producer_config.get("group.id", "?")
        # What reached the output at all, committed or not (its high watermarks): a transactional
        # app that read and wrote but hung in its first transaction did not break the contract.
        written = max((s["outputs"] for s in sink.get("progress") or []), default=0)
        if written and side.record.faults:
            return None  # a fault stopped it mid-transaction: the verdict says what became of its inputs
        if sink.get("outputs", 0) or written:
            return contract.never_committed(instance_name(1), group, sink.get("outputs", 0) or written)
        ran = (side.record.ended_at or 0) - (side.record.started_at or 0)
        return contract.never_read(instance_name(1), group, side.record.topics[0], ran)
    return None
