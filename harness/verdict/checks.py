"""Conditions a side must meet besides its finding counts, each with the reason it matters:
a bound on a count or a stat, how an app's incarnations ended, what an app reported, how
long readers stalled.

A scenario declares them on a variant (``Variant.checks``) next to its expectations;
``judge`` evaluates them, the verdict JSON lists each (``checks``: name, why, ok, seen),
and one that fails fails the side exactly as a finding against its expectation does. So
``kafka-harness run`` and the tests judge a pair alike: a scenario carries its whole
expectation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.verdict.document import VariantVerdict

# How each client names "a newer producer took the transactional.id": librdkafka folds
# them into _FENCED; Kafka's Java client reports the broker's error.
FENCING_ERRORS = ("_FENCED", "PRODUCER_FENCED", "INVALID_PRODUCER_EPOCH")


@dataclass(frozen=True)
class Check:
    name: str  # what is checked, as the summary shows it
    why: str  # why the scenario needs it
    seen: Callable[[VariantVerdict], str | None]  # None when it holds, else what was seen instead
    # True: it asks that the pair's own fault did its part (a kill, fencing, a held request's
    # answer): failing, the side is inconclusive; an exploration, which draws faults of its own,
    # leaves it out (harness.explore).
    of_the_fault: bool = False
    # True: what it asks holds only under the pair's own schedule (an exact count): failing, the
    # side fails, but an exploration leaves it out too.
    of_the_schedule: bool = False
    # What it saw when it holds, worth showing anyway (e.g. where each fault hit); None: nothing.
    detail: Callable[[VariantVerdict], str | None] | None = None

    def run(self, side: VariantVerdict) -> dict[str, Any]:
        try:
            seen = self.seen(side)
            detail = self.detail(side) if self.detail is not None and seen is None else None
        except Exception as exc:  # what it needs is not there: it cannot tell, which is no violation
            cannot = f"cannot tell: {type(exc).__name__} {exc}"
            return {"name": self.name, "why": self.why, "ok": False, "seen": cannot, "unknown": True}
        ran = {"name": self.name, "why": self.why, "ok": seen is None, "seen": seen, "of_the_fault": self.of_the_fault}
        return {**ran, "detail": detail} if detail else ran


def at_most(finding: str, n: int, why: str) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        return None if side.count(finding) <= n else f"{side.count(finding)} {finding}"

    return Check(f"{finding} <= {n}", why, seen)


def at_least(finding: str, n: int, why: str) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        return None if side.count(finding) >= n else f"{side.count(finding)} {finding}"

    return Check(f"{finding} >= {n}", why, seen, of_the_fault=True)


def exactly(finding: str, n: int, why: str) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        return None if side.count(finding) == n else f"{side.count(finding)} {finding}"

    return Check(f"{finding} == {n}", why, seen)


def stat(name: str, n: int, why: str) -> Check:
    """A run statistic is exactly ``n``: what the pair's own schedule gives. Under other faults
    the count moves by design (a restarted producer's open transaction aborted, an abortable
    error aborting one more), so an exploration leaves it out."""

    def seen(side: VariantVerdict) -> str | None:
        return None if side.result.stats[name] == n else f"{name} {side.result.stats[name]}"

    return Check(f"{name} == {n}", why, seen, of_the_schedule=True)


def _reports(side: VariantVerdict, app: str) -> list[dict[str, Any]]:
    return [r for r in side.record.workload if r["app"] == app]


def _report(side: VariantVerdict, app: str) -> dict[str, Any]:
    found = _reports(side, app)
    if not found:
        raise KeyError(f"no report of {app}")
    return found[-1]


def ended(app: str, exits: tuple[int, ...], why: str) -> Check:
    """The app's incarnations exited with ``exits``, in order (-9: SIGKILLed)."""

    def seen(side: VariantVerdict) -> str | None:
        got = tuple(r["exit"] for r in _reports(side, app))
        return None if got == exits else f"exits {list(got)}"

    return Check(f"{app} exits {list(exits)}", why, seen, of_the_fault=True)


def killed_by_the_schedule(app: str, kills: int, why: str) -> Check:
    """At least ``kills`` incarnations of the app ended by SIGKILL, one per kill fault, and
    the last one finished by itself."""

    def seen(side: VariantVerdict) -> str | None:
        injected = sum(1 for f in side.record.faults if f["fault"] == "kill")
        exits = [r["exit"] for r in _reports(side, app)]
        ok = injected >= kills and exits == [-9] * injected + [0]
        return None if ok else f"{injected} kills, exits {exits}"

    return Check(f"{app} killed {kills}+ times, then finished", why, seen, of_the_fault=True)


def caught_at_commit(app: str, windows: int, why: str) -> Check:
    """A ``crash_at_commit`` fault killed the app ``windows`` times with its commit swallowed
    on the wire (outputs handed over, offsets not committed), and its last incarnation finished."""

    def seen(side: VariantVerdict) -> str | None:
        caught = sum(f.get("windows_hit", 0) for f in side.record.faults if f["fault"] == "crash_at_commit")
        exits = [r["exit"] for r in _reports(side, app)]
        ok = caught >= windows and exits[-1:] == [0]
        return None if ok else f"{caught} commits caught, exits {exits}"

    return Check(f"{app} killed at {windows} commit(s), then finished", why, seen, of_the_fault=True)


def resent(app: str, incarnation: int, why: str) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        (r,) = [r for r in _reports(side, app) if r["incarnation"] == incarnation]
        return None if r.get("resent", 0) > 0 else "resent nothing"

    return Check(f"{app}#{incarnation} resent records", why, seen, of_the_fault=True)


def fenced(app: str, why: str) -> Check:
    """The app stopped because it was fenced (exit 3), with a fencing error."""

    def seen(side: VariantVerdict) -> str | None:
        r = _report(side, app)
        error = r.get("fenced", {}).get("error")
        return None if r["exit"] == 3 and error in FENCING_ERRORS else f"exit {r['exit']}, fenced {error}"

    return Check(f"{app} fenced", why, seen, of_the_fault=True)


def stopped_by(app: str, message: str, why: str) -> Check:
    """The app stopped on an error it could not go on from (exit 3: fenced or fatal) whose
    message says ``message``."""

    def seen(side: VariantVerdict) -> str | None:
        stops = [r["fenced"] for r in _reports(side, app) if "fenced" in r]
        if any(message in f"{s.get('error', '')}: {s.get('message', '')}" for s in stops):
            return None
        return f"stops {[s.get('message', s.get('error')) for s in stops] or 'none'}"

    return Check(f"{app} stopped by: {message}", why, seen, of_the_fault=True)


def client_error(app: str, error: str, present: bool, why: str) -> Check:
    """The app's incarnations reported ``error`` among the errors their client gave them
    (``present``), or never did."""

    def seen(side: VariantVerdict) -> str | None:
        errors = {name: n for r in _reports(side, app) for name, n in r.get("errors", {}).items()}
        if (error in errors) == present:
            return None
        return f"{error} x{errors[error]}" if error in errors else f"errors {sorted(errors) or 'none'}"

    # Being told an error is the fault's doing; never being told one is a promise kept.
    return Check(f"{app} {'was' if present else 'never'} told {error}", why, seen, of_the_fault=present)


def refused(app: str, error: str, why: str) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        got = _report(side, app).get("setup_error", {}).get("error")
        return None if got == error else f"setup error {got}"

    return Check(f"{app} refused: {error}", why, seen)


def delivered(app: str, records: int, why: str) -> Check:
    """The app finished by itself, unfenced, with ``records`` acknowledged (``0``: any)."""

    def seen(side: VariantVerdict) -> str | None:
        r = _report(side, app)
        ok = r.get("outcomes", {}).get("ok", 0)
        good = r["exit"] == 0 and "fenced" not in r and "setup_error" not in r and (not records or ok == records)
        return None if good else f"exit {r['exit']}, {ok} acknowledged, fenced {'fenced' in r}"

    return Check(f"{app} delivered {records}" if records else f"{app} finished unfenced", why, seen)


def stall_between(low_s: float, high_s: float, why: str) -> Check:
    """One read_committed stall, of ``low_s`` to ``high_s`` seconds."""

    def seen(side: VariantVerdict) -> str | None:
        stalls = [s["seconds"] for s in side.record.read_committed_stalls]
        return None if len(stalls) == 1 and low_s <= stalls[0] <= high_s else f"stalls {stalls}"

    return Check(f"one read_committed stall of {low_s:g}-{high_s:g} s", why, seen, of_the_fault=True)


def outage_is_unavailability(app: str, why: str) -> Check:
    """The app lived through an outage as unavailability: sends that timed out (``info``,
    never counted lost) or a long wait for acknowledgements, and every indeterminate send
    is one it was told timed out or never finished."""

    def seen(side: VariantVerdict) -> str | None:
        r = _report(side, app)
        outcomes = r.get("outcomes", {})
        unsure = outcomes.get("info", 0) + outcomes.get("unfinished", 0)
        felt = unsure > 0 or r.get("longest_ack_gap_s", 0) > 10
        same = side.result.stats["indeterminate"] == unsure
        if felt and same:
            return None
        indeterminate, gap = side.result.stats["indeterminate"], r.get("longest_ack_gap_s")
        return f"{unsure} timed out or unfinished, {indeterminate} indeterminate, longest gap {gap} s"

    return Check(f"{app}'s outage shows as unavailability", why, seen, of_the_fault=True)


def lost_were_acknowledged(why: str) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        examples = side.result.anomalies["lost"].examples
        return None if examples and all(e.get("acked_at") for e in examples) else f"examples {examples[:2]}"

    return Check("lost records were acknowledged", why, seen)


def aborted_or_fenced(app: str, why: str) -> Check:
    """The app's last incarnation had transactions aborted or was told it was fenced (a Streams
    app handles fencing itself: it rejoins instead of exiting)."""

    def seen(side: VariantVerdict) -> str | None:
        r = _report(side, app)
        fencing = {*FENCING_ERRORS, "CommitFailedException", "ILLEGAL_GENERATION"} & set(r.get("errors", {}))
        aborts = r.get("outcomes", {}).get("aborts", 0)
        return None if aborts > 0 or fencing else f"{aborts} aborts, errors {sorted(r.get('errors', {}))}"

    return Check(f"{app} aborted or fenced", why, seen, of_the_fault=True)


def restored(app: str, incarnation: int, why: str) -> Check:
    """That incarnation of the app restored state from its changelog."""

    def seen(side: VariantVerdict) -> str | None:
        (r,) = [r for r in _reports(side, app) if r["incarnation"] == incarnation]
        count = r.get("outcomes", {}).get("restored", 0)
        return None if count > 0 else "restored nothing"

    return Check(f"{app}#{incarnation} restored from the changelog", why, seen, of_the_fault=True)


def sink_at_least(name: str, n: int, why: str) -> Check:
    """A count in the side's sink section (``context["sink"]``) is at least ``n``."""

    def seen(side: VariantVerdict) -> str | None:
        got = side.record.sink[name]
        return None if got >= n else f"{name} {got}"

    return Check(f"{name} >= {n}", why, seen)


def late_copy_answered(errors: tuple[str, ...], why: str) -> Check:
    """A request a protocol fault held reached the broker after its client had given up on it
    (a late copy), and the broker answered it with one of ``errors`` ("NONE": it was carried
    out; none given: any answer)."""
    return _held_answered(errors, why, late_only=True)


def held_answered(errors: tuple[str, ...], why: str) -> Check:
    """A request a protocol fault held, late copy or not, was answered with one of ``errors``
    (none given: any answer)."""
    return _held_answered(errors, why, late_only=False)


def _held_answered(errors: tuple[str, ...], why: str, late_only: bool) -> Check:
    def seen(side: VariantVerdict) -> str | None:
        hits = [h for f in side.record.faults for h in f.get("hits") or [] if h["action"] == "hold"]
        chosen = [h for h in hits if h.get("client_closed") or not late_only]
        answers = [h.get("broker_error", "no answer seen") for h in chosen]
        if any(a in errors or (not errors and a != "no answer seen") for a in answers):
            return None
        late = f", {len(chosen)} late copies" if late_only else ""
        return f"{len(hits)} held{late}, answered {answers}"

    what = "a late copy" if late_only else "a held request"
    return Check(f"{what} was answered {' or '.join(errors) or 'at all'}", why, seen, of_the_fault=True)


def answered(apis: tuple[str, ...], client_id: str, errors: tuple[str, ...], why: str) -> Check:
    """A request of one of ``apis`` from ``client_id``, recorded by a protocol fault that sees
    answers (e.g. a 1 ms ``delay_response``), was answered with one of ``errors`` ("NONE": carried out)."""

    def seen(side: VariantVerdict) -> str | None:
        hits = [h for f in side.record.faults for h in f.get("hits") or []]
        mine = [h for h in hits if h["api"] in apis and h.get("client_id") == client_id]
        if any(h.get("broker_error") in errors for h in mine):
            return None
        return f"answered {[(h['api'], h.get('broker_error', 'no answer seen')) for h in mine] or 'nothing recorded'}"

    return Check(f"{client_id}'s {' or '.join(apis)} answered {' or '.join(errors)}", why, seen, of_the_fault=True)
