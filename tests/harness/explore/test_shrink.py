"""Shrinking, with pretend runs: a candidate "fails" by a rule of the test's own, so what is
kept, what is tried, in which order, and the budget can be checked without a cluster."""

from __future__ import annotations

from typing import Any

from harness.explore.shrink import shrink


def _step(name: str, at_s: float = 4.0, duration_s: float | None = 8.0, **extra: Any) -> dict[str, Any]:
    return {"at_s": at_s, "fault": name, "target": {"role": "Brokers"}, "params": {}, "duration_s": duration_s, **extra}


def _doc(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"schema": "kafka-eos-harness/schedule/1", "steps": list(steps)}


class Runs:
    """Pretends to run candidates: ``rule`` says which fail; every call is counted."""

    def __init__(self, rule: Any) -> None:
        self.rule, self.calls = rule, []

    def __call__(self, doc: dict[str, Any], change: str) -> bool:
        self.calls.append(change)
        return bool(self.rule(doc))


def _faults(doc: dict[str, Any]) -> list[str]:
    return [s["fault"] for s in doc["steps"]]


def test_one_step_that_fails_alone_is_kept_alone() -> None:
    runs = Runs(lambda d: "kill" in _faults(d))
    doc, attempts = shrink(_doc(_step("latency"), _step("kill"), _step("cut")), runs, budget=2)
    assert _faults(doc) == ["kill"]
    assert runs.calls == ["step 1 alone", "step 2 alone"]
    assert [a.failed for a in attempts] == [False, True]


def test_two_steps_needed_together_are_found_by_halves_or_leaving_out() -> None:
    runs = Runs(lambda d: {"kill", "cut"} <= set(_faults(d)))
    doc, _ = shrink(_doc(_step("kill"), _step("latency"), _step("cut"), _step("pause")), runs, budget=30)
    assert sorted(_faults(doc)) == ["cut", "kill"]


def test_simpler_parameters_shorter_earlier_fewer() -> None:
    def fails(d: dict[str, Any]) -> bool:
        (s,) = d["steps"]
        return bool(s["duration_s"] >= 2 and s["params"].get("times") == 1)

    step = _step(
        "protocol", at_s=6.0, duration_s=16.0, params={"times": 0, "after": 5}, listener=["client", "replication"]
    )
    doc, _ = shrink(_doc(step), Runs(fails), budget=40)
    (s,) = doc["steps"]
    assert (s["duration_s"], s["at_s"], s["params"], s["listener"]) == (2.0, 0.0, {"times": 1, "after": 1}, ["client"])


def test_a_fault_acting_by_chance_is_made_sure() -> None:
    step = _step("protocol", at_s=0.0, duration_s=0.5, params={"after": 1, "times": 1, "probability": 0.5, "seed": 9})
    doc, attempts = shrink(_doc(step), Runs(lambda d: True), budget=5)
    assert doc["steps"][0]["params"] == {"after": 1, "times": 1}
    assert any("surer (probability 0.5 -> 1)" in a.change for a in attempts)


def test_progress_conditions_fire_earlier() -> None:
    when = {"condition": "AppSent", "app": "producer-1", "records": 800}
    doc, _ = shrink(_doc(_step("kill", at_s=0.0, duration_s=0.5, when=when)), Runs(lambda d: True), budget=20)
    assert doc["steps"][0]["when"]["records"] == 1


def test_the_budget_is_kept_and_what_shrank_before_it_ran_out_stays() -> None:
    runs = Runs(lambda d: True)
    doc, attempts = shrink(_doc(_step("kill"), _step("cut")), runs, budget=3)
    assert len(runs.calls) == len(attempts) == 3
    (step,) = doc["steps"]  # alone, then shorter twice (8 -> 4 -> 2 s)
    assert (step["fault"], step["duration_s"], step["at_s"]) == ("kill", 2.0, 4.0)


def test_a_candidate_is_never_run_twice() -> None:
    runs = Runs(lambda d: False)
    shrink(_doc(_step("kill"), _step("cut"), _step("latency")), runs, budget=50)
    assert len(runs.calls) == len(set(runs.calls))


def test_nothing_to_try_costs_nothing() -> None:
    runs = Runs(lambda d: True)
    doc, attempts = shrink(_doc(_step("elect_preferred", at_s=0.0, duration_s=None)), runs, budget=5)
    assert attempts == [] and _faults(doc) == ["elect_preferred"]
