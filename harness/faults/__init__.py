"""Faults: link toxics and process faults behind one API, aimed at roles, healed on demand.

A fault is data (``specs.FaultSpec``): what to do, to which *role* (``roles``: "the leader
of orders-0", "the app producer-1"), on which listener and direction. The role is resolved
to concrete brokers only when the fault fires, as in Jepsen (``inject.Faults``). A
``schedule.Schedule`` is a timed list of steps (at, optional ``conditions`` to wait for,
fault, duration) run beside a workload, and always heals at its end.

Scenario files import their vocabulary from here: ``from harness.faults import Leader,
Step, blackhole``.
"""

from harness.faults.conditions import AppSent, Condition, Isr, Paused
from harness.faults.inject import Faults, Injected
from harness.faults.roles import App, Brokers, Followers, Leader, Node, Replicas, Target, TxnCoordinator, java_hash
from harness.faults.schedule import Schedule, Step
from harness.faults.specs import (
    FAULT_KINDS,
    OWN_LINKS,
    FaultSpec,
    bandwidth,
    blackhole,
    cut,
    elect_preferred,
    kill,
    latency,
    launch,
    limit_data,
    pause,
    reset_peer,
    restart,
    slicer,
    stop,
)

__all__ = [
    "FAULT_KINDS",
    "OWN_LINKS",
    "App",
    "AppSent",
    "Brokers",
    "Condition",
    "FaultSpec",
    "Faults",
    "Followers",
    "Injected",
    "Isr",
    "Leader",
    "Node",
    "Paused",
    "Replicas",
    "Schedule",
    "Step",
    "Target",
    "TxnCoordinator",
    "bandwidth",
    "blackhole",
    "cut",
    "elect_preferred",
    "java_hash",
    "kill",
    "latency",
    "launch",
    "limit_data",
    "pause",
    "reset_peer",
    "restart",
    "slicer",
    "stop",
]
