"""A saved run checked again (``kafka-harness check RUN_DIR``): each side's ledgers and
read-backs go through either checker engine and are judged against the expectations the
side ran with.

``python`` is the numpy engine on this machine; ``spark`` the Spark engine on any Spark
master (``local[2]`` by default), the route for histories beyond one machine. Both give
the same verdict JSON. What the run recorded besides the history (the apps' reports, the
faults, the sink's findings, the notes on ignored ledger lines) is taken from the side's
saved ``verdict.json`` (its record, harness.verdict.record): it describes the run, not the
check. The side's checks (harness.verdict.checks) are code: they come from the scenario as
registered. An engine that raises, as in a run, gives no result and the outcome unknown (the
record's ``unknown`` says why), never a violation.
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
from harness.verdict.judge import CHECKER, judge, untold
from harness.verdict.outcome import Outcome
from harness.verdict.record import SideRecord

ENGINES = ("python", "spark")
SIDES = ("control", "guarantee")


def recheck(run_dir: Path, engine: str = "python", master: str = "local[2]") -> PairVerdict | VariantVerdict:
    """The verdict of a saved pair (a folder with ``control/`` and ``guarantee/``) or of one
    saved side (a folder with its own ``verdict.json``), computed again by ``engine``."""
    if engine not in ENGINES:
        raise HarnessError(f"unknown engine {engine!r}: one of {', '.join(ENGINES)}")
    if engine == "spark":  # a missing engine is the command's error, not the run's unknown
        from harness.jvm.spark import require_pyspark

        require_pyspark("the checker's Spark engine (--engine spark)")
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
    research = bool(pair and pair.get("research", pair["verdict"] == Outcome.REPORTED))
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
    record = SideRecord.from_json({k: v for k, v in saved.items() if k not in JUDGED_KEYS})
    eos_pairs = tuple((a, b) for a, b in record.eos_pairs)
    # What the run could not tell of its checker is told again (or not) here; a sink's stands.
    record.unknown = [u for u in record.unknown if not u.startswith(f"{CHECKER} raised ")]
    try:
        if engine == "python":
            result = check(loading.load(ledgers, reads), CheckOptions(view=record.consumer_view, eos_pairs=eos_pairs))
        else:
            result = _spark(ledgers, reads, record.consumer_view, eos_pairs, master)
    except Exception as exc:  # as in a run: unknown, never a violation, never a crash
        result, why = untold(exc)
        record.unknown.append(why)
    result.notes = list(saved.get("notes", []))
    return judge(saved["scenario"], saved["variant"], result, saved["expect"], record, _checks(saved))


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
    from harness.checker.spark import engine  # pyspark: a second or so to import, only when asked for

    spark = engine.session("recheck", master, kafka=False)
    try:
        found = engine.check(spark, ledgers, reads, view=view, eos_pairs=eos_pairs)
    finally:
        spark.stop()
    return CheckResult.from_json(found)
