"""Faults: link toxics, process faults and protocol faults behind one API, aimed at roles,
healed on demand.

A fault is data (``kinds.base.FaultSpec``): what to do (its kind), to which *role* (``roles``:
"the leader of the input topic's partition 0", "the app producer-1"), on which listener and
direction. Roles and conditions name the parts of the run's plan (``plan``: ``INPUT``,
``TransactionalId("producer-1")``), bound to the run's names when its schedule starts. Each
kind of fault is one module of ``kinds`` (its constructor, how it starts and heals); the role
is resolved to concrete brokers only when the fault fires, as in Jepsen (``inject.Faults``).
A ``schedule.Schedule`` is a timed list of steps (at, optional ``conditions`` to wait for,
fault, duration) run beside a workload, and always heals at its end.

Scenario files, explore and users' apps import their vocabulary from here: ``from
harness.faults import Leader, Step, MAIN, blackhole``. Every kind's constructor is here (a
test checks it).
"""

from harness.faults.conditions import AppSent, Committed, Condition, Isr, Paused
from harness.faults.inject import Faults, Injected
from harness.faults.kinds.bandwidth import bandwidth
from harness.faults.kinds.base import OWN_LINKS, FaultSpec
from harness.faults.kinds.blackhole import blackhole
from harness.faults.kinds.crash_at_commit import crash_at_commit
from harness.faults.kinds.crash_in_produce import crash_in_produce
from harness.faults.kinds.cut import cut
from harness.faults.kinds.elect_preferred import elect_preferred
from harness.faults.kinds.kill import kill
from harness.faults.kinds.latency import latency
from harness.faults.kinds.launch import launch
from harness.faults.kinds.limit_data import limit_data
from harness.faults.kinds.pause import pause
from harness.faults.kinds.protocol import Hits, protocol
from harness.faults.kinds.reset_peer import reset_peer
from harness.faults.kinds.restart import restart
from harness.faults.kinds.slicer import slicer
from harness.faults.kinds.stop import stop
from harness.faults.plan import INPUT, MAIN, OUTPUT, TOTALS, GroupId, RunNames, Topic, TransactionalId
from harness.faults.roles import (
    App,
    Brokers,
    Controller,
    Followers,
    GroupCoordinator,
    Leader,
    Node,
    Replicas,
    Target,
    TxnCoordinator,
    java_hash,
)
from harness.faults.schedule import Schedule, Step

__all__ = [
    "INPUT",
    "MAIN",
    "OUTPUT",
    "OWN_LINKS",
    "TOTALS",
    "App",
    "AppSent",
    "Brokers",
    "Committed",
    "Condition",
    "Controller",
    "FaultSpec",
    "Faults",
    "Followers",
    "GroupCoordinator",
    "GroupId",
    "Hits",
    "Injected",
    "Isr",
    "Leader",
    "Node",
    "Paused",
    "Replicas",
    "RunNames",
    "Schedule",
    "Step",
    "Target",
    "Topic",
    "TransactionalId",
    "TxnCoordinator",
    "bandwidth",
    "blackhole",
    "crash_at_commit",
    "crash_in_produce",
    "cut",
    "elect_preferred",
    "java_hash",
    "kill",
    "latency",
    "launch",
    "limit_data",
    "pause",
    "protocol",
    "reset_peer",
    "restart",
    "slicer",
    "stop",
]
