"""A fault schedule: timed steps (at, optional condition, fault, duration) run beside a
workload, each on its own thread; it always heals everything at its end. Steps are plain
data naming parts of the plan; ``Schedule`` binds them to its run's names
(``harness.faults.plan``)."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from harness.faults.conditions import Condition
from harness.faults.inject import Faults
from harness.faults.kinds.base import FaultSpec, SelfEnding
from harness.faults.plan import RunNames, bind
from harness.progress import say
from harness.waits import Deadline


@dataclass(frozen=True)
class Step:
    """Inject ``fault`` ``at_s`` seconds after the schedule starts, or later once ``when``
    holds; heal ``duration_s`` after injecting (``None``: at the end of the schedule)."""

    at_s: float
    fault: FaultSpec
    duration_s: float | None = None
    when: Condition | None = None
    when_timeout_s: float = 60.0  # the step is skipped, with an error noted, if ``when`` never holds


class Schedule:
    """Runs each step on its own thread beside a workload; ``finish()`` heals everything.

    A thread per step lets a step wait for its condition without delaying the others.
    """

    def __init__(self, faults: Faults, steps: Sequence[Step], names: RunNames | None) -> None:
        self.faults = faults
        self.steps = sorted(bind(list(steps), names), key=lambda s: s.at_s)
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(s,), name=f"fault-step-{i}", daemon=True)
            for i, s in enumerate(self.steps)
        ]

    def start(self) -> Schedule:
        self._started = time.monotonic()
        for t in self._threads:
            t.start()
        return self

    def _elapsed(self) -> float:
        return time.monotonic() - self._started

    def _run(self, step: Step) -> None:
        try:
            if self._stop.wait(max(0.0, step.at_s - self._elapsed())):
                return
            if step.when is not None:
                cond = step.when
                # A Deadline, not poll_until: between looks it waits on the stop, which ends it at once.
                deadline = Deadline(step.when_timeout_s)
                while not cond.holds(self.faults):
                    if deadline.expired():
                        raise TimeoutError(f"{cond} did not hold within {step.when_timeout_s:.0f}s; step skipped")
                    if self._stop.wait(0.5):
                        return
                say(f"condition met at {self._elapsed():.1f}s: {cond}")
            injected = self.faults.inject(step.fault)
            if isinstance(injected.undo, SelfEnding):
                if self._until(injected.undo.ended, step.duration_s):
                    injected.heal()
                    if injected.found.get("missed"):  # it did not happen as written
                        self.errors.append(
                            f"at {self._elapsed():.1f}s, {step.fault.describe()}: {injected.found['missed']}"
                        )
            elif step.duration_s is not None and not self._stop.wait(step.duration_s):
                injected.heal()
        except Exception as exc:
            self.errors.append(f"at {self._elapsed():.1f}s, {step.fault.describe()}: {type(exc).__name__}: {exc}")
            say(f"fault schedule error: {step.fault.describe()}: {exc}")

    def _until(self, ended: threading.Event, longest_s: float | None) -> bool:
        """Until ``ended`` is set or ``longest_s`` passed (True), or the schedule is stopped (False)."""
        deadline = Deadline(math.inf if longest_s is None else longest_s)
        while not ended.wait(0.1):
            if self._stop.is_set():
                return False
            if deadline.expired():  # its duration is up: healed as written, not given up
                return True
        return True

    def wait(self, timeout_s: float) -> None:
        """Until every step has been injected and, where it has a duration, healed; past
        ``timeout_s`` it says which steps were still under way (``finish`` cuts them short)."""
        deadline = Deadline(timeout_s)
        for t in self._threads:
            t.join(deadline.remaining())
        left = [s.fault.describe() for s, t in zip(self.steps, self._threads, strict=True) if t.is_alive()]
        if left:
            say(f"fault schedule: after {timeout_s:.0f}s still under way, to be cut short: {'; '.join(left)}")

    def finish(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
        self.faults.heal_all()
