"""Fetch and build steps run side by side where they may: each after the steps it names, never more
at once than allowed (and of those that keep a core busy, one per core), one line each, and the
first failure stops the rest from starting."""

from __future__ import annotations

import graphlib
import re
import threading
import time

import pytest

from harness import build_steps, progress
from harness.build_steps import BuildStep
from harness.errors import HarnessError


class Recorder:
    """Steps that note when they start and end, and how many ran at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []
        self.running: set[str] = set()
        self.most = 0
        self.most_cpu = 0
        self.cpu: set[str] = set()

    def step(
        self, name: str, after: tuple[str, ...] = (), cpu: bool = False, fails: bool = False, seconds: float = 0.05
    ) -> BuildStep:
        def run() -> None:
            with self.lock:
                self.events.append(("start", name))
                self.running.add(name)
                self.most = max(self.most, len(self.running))
                self.most_cpu = max(self.most_cpu, len(self.running & self.cpu))
            with progress.step(name):
                time.sleep(seconds)
                if fails:
                    raise HarnessError(f"{name} failed")
            with self.lock:
                self.running.discard(name)
                self.events.append(("end", name))

        if cpu:
            self.cpu.add(name)
        return BuildStep(name, run, after=after, cpu=cpu)

    def started(self) -> list[str]:
        return [name for kind, name in self.events if kind == "start"]

    def position(self, kind: str, name: str) -> int:
        return self.events.index((kind, name))


def test_each_step_starts_after_the_steps_it_names_and_no_more_run_at_once_than_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(build_steps.os, "cpu_count", lambda: 2)
    r = Recorder()
    steps = [
        r.step("rootfs", cpu=True),
        *(r.step(f"jars {v}") for v in range(4)),
        *(r.step(f"image {v}", after=("rootfs", f"jars {v}")) for v in range(4)),
        *(r.step(f"archive {v}", after=(f"jars {v}",), cpu=True) for v in range(4)),
    ]
    build_steps.run(steps, at_once=3)
    assert sorted(r.started()) == sorted(s.name for s in steps)
    for v in range(4):
        assert r.position("start", f"image {v}") > r.position("end", "rootfs")
        assert r.position("start", f"image {v}") > r.position("end", f"jars {v}")
    assert r.most == 3
    assert r.most_cpu == 2


def test_one_at_once_runs_the_steps_in_their_order_with_their_start_lines(capsys: pytest.CaptureFixture[str]) -> None:
    r = Recorder()
    build_steps.run([r.step("image", after=("jars",)), r.step("jars"), r.step("other")], at_once=1)
    assert r.started() == ["jars", "other", "image"]
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "==> jars ..."
    assert re.fullmatch(r"==> jars: done in \d+\.\ds", lines[1])


def test_side_by_side_each_step_prints_one_line_how_it_ended(capsys: pytest.CaptureFixture[str]) -> None:
    r = Recorder()
    build_steps.run([r.step(f"jars {v}") for v in range(3)], at_once=3)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("==> 3 steps, up to 3 at once")
    assert sorted(re.sub(r"\d+\.\ds$", "Ns", line) for line in lines[1:4]) == [
        f"==> jars {v}: done in Ns" for v in range(3)
    ]
    assert lines[4].startswith("==> 3 steps done in ")
    assert len(lines) == 5


def test_steps_of_one_name_are_one_step_and_a_step_named_after_one_not_in_the_plan_is_not_held() -> None:
    r = Recorder()
    twice = [r.step("rootfs", cpu=True), r.step("image", after=("rootfs", "jars cached already"))]
    build_steps.run([*twice, r.step("rootfs", after=("never",))], at_once=2)
    assert r.started() == ["rootfs", "image"]


def test_the_first_failure_stops_new_steps_lets_those_under_way_finish_and_is_raised() -> None:
    r = Recorder()
    steps = [r.step("bad jars", fails=True), r.step("slow rootfs", seconds=0.5), r.step("image", after=("bad jars",))]
    steps += [r.step(f"later {v}", after=("slow rootfs",)) for v in range(2)]
    with pytest.raises(HarnessError, match=r"^bad jars failed$"):
        build_steps.run(steps, at_once=2)
    assert ("end", "slow rootfs") in r.events  # under way: it finished, publishing whole
    assert set(r.started()) == {"bad jars", "slow rootfs"}  # nothing started after the failure


def test_steps_that_wait_for_each_other_in_a_loop_are_refused_before_any_runs() -> None:
    r = Recorder()
    with pytest.raises(graphlib.CycleError):
        build_steps.run([r.step("a", after=("b",)), r.step("b", after=("a",))], at_once=2)
    assert r.events == []


def test_the_tools_of_the_steps_are_named_once() -> None:
    steps = [BuildStep("a", print, tools=("mvn",)), BuildStep("b", print, tools=("mvn", "go")), BuildStep("c", print)]
    assert build_steps.tools(steps) == ["go", "mvn"]
