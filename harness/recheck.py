"""A saved run checked again (``kafka-harness check RUN_DIR``): each side's ledgers and
read-backs go through either checker engine and are judged against the expectations the
side ran with.

``python`` is the numpy engine on this machine; ``spark`` the Spark engine on any Spark
master (``local[2]`` by default), the route for histories beyond one machine. Both give
the same verdict JSON. What the run recorded besides the history (the apps' reports, the
faults, the sink's findings, the notes on ignored ledger lines) is taken from the side's
saved ``verdict.json``: it describes the run, not the check. The side's checks
(harness.verdict.checks) are code: they come from the scenario as registered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import scenarios
from harness.checker.check import check
from harness.checker.result import CheckOptions, CheckResult
from harness.errors import HarnessError
from harness.history import ledger, loading
from harness.verdict.checks import Check
from harness.verdict.document import JUDGED_KEYS, PairVerdict, VariantVerdict
from harness.verdict.judge import judge

ENGINES = ("python", "spark")
SIDES = ("control", "guarantee")


def recheck(run_dir: Path, engine: str = "python", master: str = "local[2]") -> PairVerdict | VariantVerdict:
    """The verdict of a saved pair (a folder with ``control/`` and ``guarantee/``) or of one
    saved side (a folder with its own ``verdict.json``), computed again by ``engine``."""
    if engine not in ENGINES:
        raise HarnessError(f"unknown engine {engine!r}: one of {', '.join(ENGINES)}")
    if not run_dir.is_dir():
        raise HarnessError(
            f"{run_dir} is not a folder: give a run folder (runs/<time>-<scenario>-<id>) or a side of one"
        )
    pair = _saved(run_dir / "verdict.json") if (run_dir / "verdict.json").exists() else None
    if pair is not None and "variant" in pair:
        return _side(run_dir, pair, engine, master)
    if not all((run_dir / side / "verdict.json").exists() for side in SIDES):
        raise HarnessError(
            f"{run_dir} holds no saved run: expected verdict.json, or control/ and guarantee/ with one each"
        )
    control, guarantee = (
        _side(run_dir / side, _saved(run_dir / side / "verdict.json"), engine, master) for side in SIDES
    )
    title = pair["title"] if pair else ""
    research = bool(pair and pair.get("research", pair["verdict"] == "reported"))
    return PairVerdict(control.scenario, title, control, guarantee, research=research)


def _saved(path: Path) -> dict[str, Any]:
    try:
        return dict(json.loads(path.read_text()))
    except (OSError, ValueError) as exc:
        raise HarnessError(f"cannot read {path}: {exc}") from exc


def _side(side_dir: Path, saved: dict[str, Any], engine: str, master: str) -> VariantVerdict:
    ledgers = ledger.in_order(list((side_dir / "ledgers").glob("*.csv")))
    reads = side_dir / "reads"
    if not ledgers or not reads.is_dir():
        raise HarnessError(f"{side_dir} has no ledgers/ or reads/: the run did not get as far as its read-back")
    view = saved.get("consumer_view", "read_committed")
    eos_pairs = tuple((a, b) for a, b in saved.get("eos_pairs", []))
    if engine == "python":
        result = check(loading.load(ledgers, reads), CheckOptions(view=view, eos_pairs=eos_pairs))
    else:
        result = _spark(ledgers, reads, view, eos_pairs, master)
    result.notes = list(saved.get("notes", []))
    context = {k: v for k, v in saved.items() if k not in JUDGED_KEYS}
    return judge(saved["scenario"], saved["variant"], result, saved["expect"], context, _checks(saved))


def _checks(saved: dict[str, Any]) -> tuple[Check, ...]:
    """The side's checks: code, so from the scenario as registered now (none if it is gone)."""
    try:
        s = scenarios.get(saved["scenario"])
    except HarnessError:
        return ()
    variant = s.control if saved["variant"] == s.control.name else s.guarantee
    return variant.checks


def _spark(
    ledgers: list[Path], reads: Path, view: str, eos_pairs: tuple[tuple[str, str], ...], master: str
) -> CheckResult:
    from harness.jvm.spark import require_pyspark

    require_pyspark("the checker's Spark engine (--engine spark)")
    from harness.checker.spark import engine  # pyspark: a second or so to import, only when asked for

    spark = engine.session("recheck", master, kafka=False)
    try:
        found = engine.check(spark, ledgers, reads, view=view, eos_pairs=eos_pairs)
    finally:
        spark.stop()
    return CheckResult.from_json(found)
