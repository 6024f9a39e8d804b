"""Fetch and build steps that wait for each other only where they must.

``make setup`` and a run's first use of a version fetch and build many independent things
(each Kafka version's jars, each client's jars and class archive, the Java rootfs, Toxiproxy's
Go build, Spark's connector and class archive). ``run`` starts each step once the steps it
comes after are done, several at once: up to ``at_once`` in all, and of those that keep a core
busy (a compiler, a JVM writing a class archive, debootstrap) at most one per core. Each step
prints one line when it ends (``harness.progress``: what, and how long it took). The first
failure stops new steps from starting; the steps under way finish (each publishes whole or
not at all, harness.cache_folders) and that failure is raised. The ordering is
``graphlib.TopologicalSorter``'s, the threads ``concurrent.futures``'.
"""

from __future__ import annotations

import graphlib
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from harness import progress


@dataclass(frozen=True)
class BuildStep:
    """One thing to fetch or build. Steps of the same name are one step (the first listed)."""

    name: str
    run: Callable[[], object]
    # Names of the steps it needs done first; one not in the plan is taken as done already.
    after: tuple[str, ...] = ()
    # It keeps a core busy rather than waiting on the network or the disk.
    cpu: bool = False
    # The commands it runs (mvn, go, debootstrap, javac): setup installs the missing ones first.
    tools: tuple[str, ...] = ()


def plan(*lists: Iterable[BuildStep]) -> list[BuildStep]:
    """The steps of ``lists`` in their order, one per name: the order says which of the steps
    ready at the same time starts first."""
    found: dict[str, BuildStep] = {}
    for steps in lists:
        for step in steps:
            found.setdefault(step.name, step)
    return list(found.values())


def tools(steps: Iterable[BuildStep]) -> list[str]:
    """The commands ``steps`` run, each once."""
    return sorted({tool for step in steps for tool in step.tools})


def _side_by_side(step: BuildStep) -> None:
    with progress.side_by_side():
        step.run()


def run(steps: Iterable[BuildStep], at_once: int) -> None:
    """Run ``steps`` (see ``plan``), each after the steps it names in ``after``; side by side
    when there are several and ``at_once`` allows it, else one after another with the usual
    progress lines (what started, then how long it took)."""
    todo = plan(steps)
    by_name = {step.name: step for step in todo}
    rank = {step.name: n for n, step in enumerate(todo)}
    sorter = graphlib.TopologicalSorter({s.name: [a for a in s.after if a in by_name] for s in todo})
    sorter.prepare()  # a loop of steps raises graphlib.CycleError here, before anything runs
    if len(todo) <= 1 or at_once <= 1:
        while sorter.is_active():
            for name in sorted(sorter.get_ready(), key=rank.__getitem__):
                by_name[name].run()
                sorter.done(name)
        return
    cpu_at_once = min(at_once, os.cpu_count() or 1)
    ready: list[str] = []
    running: dict[Future[None], BuildStep] = {}
    failure: BaseException | None = None
    started = time.monotonic()
    progress.say(f"{len(todo)} steps, up to {at_once} at once ({cpu_at_once} of them busy on a core)")
    with ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="build-step") as pool:
        while True:
            if failure is None:
                ready = sorted([*ready, *sorter.get_ready()], key=rank.__getitem__)
                for name in list(ready):
                    step = by_name[name]
                    busy = sum(s.cpu for s in running.values())
                    if len(running) < at_once and not (step.cpu and busy >= cpu_at_once):
                        ready.remove(name)
                        running[pool.submit(_side_by_side, step)] = step
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                step = running.pop(future)
                if future.exception() is None:
                    sorter.done(step.name)
                elif failure is None:
                    failure = future.exception()
    if failure is not None:
        raise failure
    progress.say(f"{len(todo)} steps done in {time.monotonic() - started:.1f}s")
