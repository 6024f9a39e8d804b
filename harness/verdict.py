"""Verdicts: a check result judged against a scenario's expectation, and pairs of them.

Per anomaly a variant expects one of: REQUIRED (count > 0), FORBIDDEN (count == 0),
ONE_OF (at least one of the anomalies marked so has count > 0) or ALLOWED (reported, not
judged). Besides the checker's anomalies there are findings about the clients themselves
(``CLIENT_FINDINGS``), judged the same way:

- **config_error**: an app process whose client refused its configuration at start (the
  count of such processes).
- **txn_init_failed**: an app process whose ``init_transactions`` failed for a reason other
  than a refused configuration or a refused transactional.id (e.g. the transaction log
  cannot be written).
- **txn_id_unauthorized**: an app process the brokers refused its transactional.id
  (``TRANSACTIONAL_ID_AUTHORIZATION_FAILED``: no ACL lets its user use the id).
- **app_fenced**: an app process that stopped because it was fenced: a newer producer
  took its transactional.id (or its group's place), so it may not write any more.
- **client_stuck**: an app process that gave up because a client call outlived its own
  timeout (harness.workloads.transactions.bounded): a liveness bug of the client, not of
  the brokers; the report says which call and how long it waited.
- **sink_missing** / **sink_repeated**: for a pipeline whose effects go to a database
  (harness.sink), inputs read committed from the input topic with no row, or with two or
  more rows; examples under ``sink``.
- **sink_aborted** (a Spark job's sink, harness.spark_app): rows or output records naming an
  input record of an aborted transaction.
- **aggregate_mismatch** (the Spark aggregation): keys whose stored count or sum differs
  from the one recomputed from the committed input; examples under ``sink``.
- **read_committed_stall**: a stretch of ``REPORTED_STALL_S`` or more during which the
  main topic's last stable offset stood still below its high watermark, so
  ``read_committed`` readers got nothing new (harness.lso_probe); the count of such
  stretches, each listed with its length under ``read_committed_stalls``.

A pair is:

- **passed**: the control showed every required anomaly and the guarantee is clean;
- **failed**: the guarantee showed a forbidden anomaly;
- **inconclusive**: the guarantee is clean but the control did not show its anomaly, so
  the clean result proved nothing about the fault; or a step of the fault schedule failed
  on either side, so neither side ran the fault as written.

``verdict.json`` of one variant (schema ``SCHEMA``)::

    schema          "kafka-eos-harness/verdict/1"
    scenario        scenario id, e.g. "A1"
    variant         "control" or "guarantee"
    passed          the variant met its expectation
    reasons         why not, one line per unmet expectation
    expect          anomaly -> "required" | "forbidden" | "one of" | "allowed"
    counts          anomaly -> count (every anomaly of harness.checker.ANOMALIES, and
                    every client finding)
    result          the checker's comparable output:
      anomalies       anomaly -> {count, examples: [{id, producer, session, txn, at, ...}]}
      stats           sent, acknowledged, failed, indeterminate, indeterminate_read,
                      transactions_*, sessions, sessions_fenced, *_records, markers, distinct_read
      ledger_problems ledger file -> lines ignored (torn or malformed)
    notes           human detail: which ledger lines were ignored
    fault_errors    steps of the fault schedule that failed or were skipped (the variant
                    then does not pass: its fault did not happen as written)
    kafka_version, broker_settings (a side with its own cluster), client_security
    (PLAINTEXT or SASL_PLAINTEXT, harness.security), acls [{user, resource, operations}]
    granted for the run, topics, topic_config, consumer_view, read_partitions (the
    consumer's partitions of the main topic; empty: all), producer_config, run_dir
    read_committed_stalls  [{partition, started_at, seconds, lso}] (harness.lso_probe)
    sink            for a database sink: db, sink_missing / sink_repeated {count, examples};
                    for a Spark job: output, and its sink findings or aggregate_mismatch
    workload        one report per app process (incarnation): app, incarnation, exit,
                    outcomes {ok, fail, info, unfinished}, errors {error name: count},
                    longest_ack_gap_s (how long it went without any acknowledgement:
                    unavailability, not loss), resent; or setup_error {error, message, config}
    faults          [{fault, target, brokers, injected_at, healed_at, ...}] as applied,
                    with wall-clock times
    started_at, ended_at  wall-clock seconds: the side's start (before its topics are
                    made and a pipeline's input is written) and the end of its check

A research scenario's pair is **reported**: no claim, the findings of both sides are the
result.

A pair's ``verdict.json`` holds ``scenario``, ``title``, ``verdict`` (passed / failed /
inconclusive) and both variants' documents under ``control`` and ``guarantee``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness.checker import CheckResult

SCHEMA = "kafka-eos-harness/verdict/1"
REQUIRED = "required"
FORBIDDEN = "forbidden"
ONE_OF = "one of"
ALLOWED = "allowed"
CLIENT_FINDINGS = (
    "config_error",
    "txn_init_failed",
    "txn_id_unauthorized",
    "app_fenced",
    "client_stuck",
    "read_committed_stall",
    "sink_missing",
    "sink_repeated",
    "sink_aborted",
    "aggregate_mismatch",
)
TXN_ID_UNAUTHORIZED = "TRANSACTIONAL_ID_AUTHORIZATION_FAILED"


def client_findings(context: dict[str, Any]) -> dict[str, int]:
    """Counts of ``CLIENT_FINDINGS`` from the apps' reports and the LSO probe."""
    workload = context.get("workload", [])
    setup_errors = [r["setup_error"] for r in workload if "setup_error" in r]
    return {
        "config_error": sum(1 for e in setup_errors if e["config"]),
        "txn_init_failed": sum(
            1
            for e in setup_errors
            if e.get("stage") == "init_transactions" and not e["config"] and e["error"] != TXN_ID_UNAUTHORIZED
        ),
        "txn_id_unauthorized": sum(1 for e in setup_errors if e["error"] == TXN_ID_UNAUTHORIZED),
        "app_fenced": sum(1 for r in workload if "fenced" in r),
        "client_stuck": sum(1 for r in workload if "stuck" in r),
        "read_committed_stall": len(context.get("read_committed_stalls", [])),
        "sink_missing": context.get("sink", {}).get("sink_missing", {}).get("count", 0),
        "sink_repeated": context.get("sink", {}).get("sink_repeated", {}).get("count", 0),
        "sink_aborted": context.get("sink", {}).get("sink_aborted", {}).get("count", 0),
        "aggregate_mismatch": context.get("sink", {}).get("aggregate_mismatch", {}).get("count", 0),
    }


@dataclass
class VariantVerdict:
    scenario: str
    variant: str
    passed: bool
    reasons: list[str]
    result: CheckResult
    expect: dict[str, str]
    client: dict[str, int]  # CLIENT_FINDINGS -> count
    context: dict[str, Any] = field(default_factory=dict)  # config, faults, topic, run dir, workload

    def count(self, anomaly: str) -> int:
        return self.client[anomaly] if anomaly in CLIENT_FINDINGS else self.result.count(anomaly)

    def shown(self) -> list[str]:
        """Anomalies with an expectation or a finding; the rest are zero and unjudged."""
        return [a for a in (*self.result.anomalies, *CLIENT_FINDINGS) if a in self.expect or self.count(a)]

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "scenario": self.scenario,
            "variant": self.variant,
            "passed": self.passed,
            "reasons": self.reasons,
            "expect": self.expect,
            "counts": {
                **{name: finding.count for name, finding in self.result.anomalies.items()},
                **self.client,
            },
            "result": self.result.to_json(),
            "notes": self.result.notes,
            **self.context,
        }


def judge(
    scenario: str, variant: str, result: CheckResult, expect: dict[str, str], context: dict[str, Any]
) -> VariantVerdict:
    verdict = VariantVerdict(scenario, variant, False, [], result, expect, client_findings(context), context)
    for anomaly, rule in expect.items():
        n = verdict.count(anomaly)
        if rule == REQUIRED and n == 0:
            verdict.reasons.append(f"expected {anomaly} anomalies, found none")
        elif rule == FORBIDDEN and n > 0:
            verdict.reasons.append(f"found {n} {anomaly} anomalies, none allowed")
    # A fault that did not happen as written proves nothing either way.
    verdict.reasons.extend(f"fault schedule error: {e}" for e in context.get("fault_errors", []))
    any_of = [a for a, rule in expect.items() if rule == ONE_OF]
    if any_of and not any(verdict.count(a) for a in any_of):
        verdict.reasons.append(f"expected one of {', '.join(any_of)}, found none")
    verdict.passed = not verdict.reasons
    return verdict


@dataclass
class PairVerdict:
    scenario: str
    title: str
    control: VariantVerdict
    guarantee: VariantVerdict
    research: bool = False

    @property
    def outcome(self) -> str:
        if self.research:
            return "reported"
        if any(v.context.get("fault_errors") for v in (self.control, self.guarantee)):
            return "inconclusive"  # the fault did not happen as written
        if not self.guarantee.passed:
            return "failed"
        return "passed" if self.control.passed else "inconclusive"

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "title": self.title,
            "verdict": self.outcome,
            "control": self.control.to_json(),
            "guarantee": self.guarantee.to_json(),
        }

    def summary(self) -> str:
        lines = [f"{self.scenario} {self.title}: {self.outcome.upper()}"]
        for v in (self.control, self.guarantee):
            counts = "  ".join(
                f"{a}={v.count(a)}" + (f" [{v.expect[a]} {'ok' if met(v, a) else 'NOT MET'}]" if a in v.expect else "")
                for a in v.shown()
            )
            stats = v.result.stats
            lines.append(
                f"  {v.variant:<9} {counts}   (sent {stats['sent']}, acked {stats['acknowledged']}, "
                f"indeterminate {stats['indeterminate']} of which read {stats['indeterminate_read']}, "
                f"read {stats['read_committed_records']} committed / {stats['read_uncommitted_records']} uncommitted)"
            )
            for anomaly, finding in v.result.anomalies.items():
                if finding.examples:
                    lines.append(f"            e.g. {anomaly}: {json.dumps(finding.examples[0])}")
            for name, found in v.context.get("sink", {}).items():
                if isinstance(found, dict) and found["examples"]:
                    lines.append(f"            e.g. {name}: {json.dumps(found['examples'][0])}")
            if v.context.get("read_partitions"):
                lines.append(f"            the consumer read only partitions {v.context['read_partitions']}")
            for problem, n in v.result.ledger_problems.items():
                lines.append(f"            ledger {problem}: {n} line(s) ignored")
            lines.extend(f"            {line}" for line in _workload_lines(v.context.get("workload", [])))
            lines.extend(f"            fault schedule error: {e}" for e in v.context.get("fault_errors", []))
            timeout = v.context.get("producer_config", {}).get("transaction.timeout.ms")
            against = f" (transaction.timeout.ms = {timeout / 1000:.1f}s)" if timeout else ""
            for st in v.context.get("read_committed_stalls", []):
                where = f"{st['partition']} at {st['lso']}"
                lines.append(f"            read_committed readers stalled {st['seconds']:.1f}s on {where}{against}")
        return "\n".join(lines)


def _workload_lines(workload: list[dict[str, Any]]) -> list[str]:
    """What the apps themselves went through: refused configs, errors, unavailability, fencing."""
    lines = []
    for r in workload:
        who = f"{r['app']}#{r['incarnation']}"
        if "setup_error" in r:
            e = r["setup_error"]
            kind = (
                "refused its configuration"
                if e["config"]
                else "was refused its transactional.id"
                if e["error"] == TXN_ID_UNAUTHORIZED
                else "could not start"
            )
            lines.append(f"{who}: client {kind}: {e['error']}: {e['message']}")
            continue
        if "outcomes" not in r:  # no report: it did not finish on its own
            code = r.get("exit")
            lines.append(f"{who}: " + (f"ended by signal {-code}" if code and code < 0 else f"exited {code}"))
            continue
        if r.get("longest_ack_gap_s", 0) >= 5:
            lines.append(f"{who}: unavailable up to {r['longest_ack_gap_s']:.1f}s without an ack")
        if r.get("errors"):
            lines.append(f"{who}: client errors: " + ", ".join(f"{n} x{c}" for n, c in sorted(r["errors"].items())))
        if "stuck" in r:
            e = r["stuck"]
            lines.append(f"{who}: gave up: {e['call']} blocked {e['waited_s']}s despite its {e['timeout_s']}s timeout")
        if "fenced" in r:
            lines.append(f"{who}: fenced: {r['fenced']['error']}: {r['fenced']['message']}")
        if r.get("resent"):
            lines.append(f"{who}: resent {r['resent']} record(s) its earlier incarnation had not finished")
    return lines


def met(v: VariantVerdict, anomaly: str) -> bool:
    """Whether the side met its expectation about ``anomaly`` (one it has an expectation for)."""
    n, rule = v.count(anomaly), v.expect[anomaly]
    if rule == ONE_OF:
        return any(v.count(a) for a, r in v.expect.items() if r == ONE_OF)
    return (rule == REQUIRED and n > 0) or (rule == FORBIDDEN and n == 0) or rule == ALLOWED


def stability_table(pairs: list[PairVerdict]) -> str:
    """Repeated runs of pairs, per scenario: how often the control showed its anomaly, how
    often the guarantee was clean, and the spread of the control's counts."""
    by_scenario: dict[str, list[PairVerdict]] = {}
    for pair in pairs:
        by_scenario.setdefault(pair.scenario, []).append(pair)
    lines = [f"{'scenario':<9}{'runs':>5}  {'control showed':<15}{'guarantee clean':<16}control counts min/median/max"]
    for sid, runs in by_scenario.items():
        n = len(runs)
        shown = sum(p.control.passed for p in runs)
        clean = sum(p.guarantee.passed for p in runs)
        judged = [a for a, rule in runs[0].control.expect.items() if rule in (REQUIRED, ONE_OF)]
        spreads = []
        for a in judged:
            counts = sorted(p.control.count(a) for p in runs)
            spreads.append(f"{a} {counts[0]}/{counts[n // 2]}/{counts[-1]}")
        lines.append(f"{sid:<9}{n:>5}  {f'{shown}/{n}':<15}{f'{clean}/{n}':<16}{', '.join(spreads)}")
    return "\n".join(lines)
