"""A failing run reduced to its signature, so that many failures of one cause count as one row.

A signature is what went wrong and where: its **effect** (data went wrong, an app stopped, both,
an app crashed, only a client stalled or was refused, only a check failed, or the run could not
run at all), the **findings** (names, not counts, and the checks that failed as ``check: NAME``),
the **errors** that stopped apps (the client's error code, or the call that outlived its
timeout), and the **versions** (Kafka, client). Two failures with these equal are one signature.

Beside it, a run's **faulted APIs** (protocol faults that caught a request) and **role kinds**
(who its faults hit: leader, followers, coordinator, app …) are kept; a row of many runs shows
those every one of its runs shared, which is where a cause is to be looked for.

When an app stopped, inputs it never reached have no outputs: ``eos_missing`` then says the app
stopped, not that it skipped inputs while running, and the signature writes it
``eos_missing (after the app stopped)``. A ``read_committed_stall`` longer than the transaction
timeout (and a margin) is written ``read_committed_stall (past the transaction timeout)``: a
hanging transaction, where a shorter one is an open transaction waiting for its producer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.checker import catalogue
from harness.explore import trial
from harness.verdict.document import JUDGED_KEYS
from harness.verdict.record import SideRecord

DATA, STOPPED, BOTH = "data went wrong", "an app stopped", "data went wrong; an app stopped"
CRASHED, NOT_RUN, CLIENT_ONLY = "an app crashed", "could not run", "a client stalled or was refused"
CHECK = "a check failed"
UNREACHED = "eos_missing (after the app stopped)"
STALL = "read_committed_stall"
_TRANSACTION_TIMEOUT_MS = 60_000  # both clients' default transaction.timeout.ms
_STALL_MARGIN_S = 15.0  # the coordinator's abort and the markers' writing after the timeout
_STOPPING = set(trial.APP_ERRORS)


@dataclass(frozen=True)
class Signature:
    effect: str
    findings: tuple[str, ...]
    errors: tuple[str, ...]
    kafka: str
    client: str  # "librdkafka 2.16.0", "java 4.4.0"

    def __str__(self) -> str:
        what = ", ".join(self.findings) or "no data finding"
        errors = f"; stopped by {', '.join(self.errors)}" if self.errors else ""
        return f"{self.effect}: {what}{errors} (Kafka {self.kafka}, {self.client})"

    def to_json(self) -> dict[str, Any]:
        return {
            "effect": self.effect,
            "findings": list(self.findings),
            "errors": list(self.errors),
            "kafka": self.kafka,
            "client": self.client,
        }


@dataclass(frozen=True)
class Failure:
    """One failing run: its signature, and where its faults hit."""

    folder: Path
    signature: Signature
    apis: frozenset[str]
    roles: frozenset[str]


def of_run(folder: Path) -> Failure:
    """The failing run kept in ``folder`` (explore's layout: run.json, schedule.json, guarantee/verdict.json)."""
    info = json.loads((folder / trial.RUN).read_text())
    verdict_file = folder / trial.SIDE / "verdict.json"
    verdict = json.loads(verdict_file.read_text()) if verdict_file.exists() else {}
    record = SideRecord.from_json({k: v for k, v in verdict.items() if k not in JUDGED_KEYS})
    subject = info.get("subject", {})
    kafka = record.kafka_version or subject.get("kafka_version") or "?"
    ran = record.client_ran or [record.client_version]
    if verdict:
        client = f"{record.client or '?'} {ran[0] if ran else ''}".strip()
    else:  # the side never ran: the client as asked for (its package's release, not librdkafka's)
        client = f"{subject.get('client', '').replace('==', ' ') or 'own client'} (asked)"
    roles = frozenset(step["target"]["role"] for step in _steps(folder))
    if info["outcome"] == trial.ERROR or not verdict:  # the side could not run: its error is the signature
        return Failure(
            folder, Signature(NOT_RUN, (), (_first_words(info["reasons"]),), kafka, client), frozenset(), roles
        )
    counts = {k: n for k, n in verdict.get("counts", {}).items() if n}
    stops = _stops(record.workload)
    crashed = any(trial.crashed(r) for r in record.workload)
    stopped = bool(stops) or any(name in _STOPPING for name in counts)
    named = {"eos_missing": UNREACHED if stopped else "eos_missing", "read_committed_stall": _stall(record)}
    data = sorted(named.get(name, name) for name in counts if name not in _STOPPING)
    # A check that could not tell is no effect seen (the run failed for another reason).
    data += [f"check: {c['name']}" for c in verdict.get("checks", []) if not c.get("ok", True) and not c.get("unknown")]
    # What the readers saw of the data; a client's own observation (a read_committed reader
    # stalled behind an open transaction) is listed but is not data gone wrong.
    wrong = [name for name in data if name in catalogue.BY_NAME and catalogue.BY_NAME[name].source != catalogue.CLIENT]
    if crashed:
        effect = CRASHED
    elif stopped:
        effect = BOTH if wrong else STOPPED
    else:
        effect = DATA if wrong else CLIENT_ONLY if counts else CHECK
    apis = frozenset(f["params"]["api"] for f in record.faults if f.get("params", {}).get("api") and f.get("matched"))
    return Failure(folder, Signature(effect, tuple(data), tuple(sorted(stops)), kafka, client), apis, roles)


def _stall(record: SideRecord) -> str:
    """``read_committed_stall``, or ``read_committed_stall (past the transaction timeout)`` when the
    longest stall outlasted it by more than ``_STALL_MARGIN_S``: until then an open transaction whose
    producer stopped holds the last stable offset by design (its coordinator aborts it at the
    timeout); past it, a transaction hangs."""
    timeout_s = float(record.producer_config.get("transaction.timeout.ms", _TRANSACTION_TIMEOUT_MS)) / 1000
    longest = max((float(s.get("seconds", 0)) for s in record.read_committed_stalls), default=0.0)
    return f"{STALL} (past the transaction timeout)" if longest > timeout_s + _STALL_MARGIN_S else STALL


def _stops(workload: list[dict[str, Any]]) -> set[str]:
    """What stopped each app that stopped: the client's error code (and where, if it never got
    going: ``_TIMED_OUT at init_transactions``), or the call stuck past its timeout."""
    found = set()
    for r in workload:
        if isinstance(r.get("fenced"), dict):
            found.add(str(r["fenced"].get("error") or "fenced"))
        if isinstance(r.get("stuck"), dict):
            found.add(f"{r['stuck'].get('call')} stuck")
        if isinstance(r.get("setup_error"), dict):
            found.add(f"{r['setup_error'].get('error')} at {r['setup_error'].get('stage')}")
    return found


def _steps(folder: Path) -> list[dict[str, Any]]:
    try:
        return list(trial.schedule_of(folder).get("steps", []))
    except (OSError, ValueError):
        return []


def _first_words(reasons: list[str]) -> str:
    """An error's kind without its run's names: the text before the first colon."""
    return (reasons[0].split(":")[0] if reasons else "error")[:80]
