"""Verdicts as text: a pair's summary, and the stability table of repeated runs."""

from __future__ import annotations

import json
from typing import Any

from harness.checker.client import TXN_ID_UNAUTHORIZED
from harness.verdict.document import ALLOWED, FORBIDDEN, ONE_OF, REQUIRED, PairVerdict, VariantVerdict
from harness.verdict.record import SideRecord


def pair_summary(pair: PairVerdict) -> str:
    """The pair as a person reads it at the end of a run: outcome, counts against expectations, examples."""
    lines = [f"{pair.scenario} {pair.title}: {pair.outcome.upper()}"]
    for v in (pair.control, pair.guarantee):
        lines += side_lines(v)
    return "\n".join(lines)


def side_lines(v: VariantVerdict) -> list[str]:
    """One side: counts against expectations, examples, what its apps went through, its checks."""
    lines = []
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
    lines.append(f"            versions: {versions_text(v.record)}")
    for anomaly, finding in v.result.anomalies.items():
        if finding.examples:
            lines.append(f"            e.g. {anomaly}: {json.dumps(finding.examples[0])}")
    for name, found in v.record.sink.items():
        if isinstance(found, dict) and found["examples"]:
            lines.append(f"            e.g. {name}: {json.dumps(found['examples'][0])}")
    if v.record.read_partitions:
        lines.append(f"            the consumer read only partitions {v.record.read_partitions}")
    for problem, n in v.result.ledger_problems.items():
        lines.append(f"            ledger {problem}: {n} line(s) ignored")
    lines.extend(f"            {line}" for line in _workload_lines(v.record.workload))
    lines.extend(f"            fault schedule error: {e}" for e in v.record.fault_errors)
    lines.extend(f"            unknown: {e}" for e in v.record.unknown)
    for c in v.checks:
        said = f" ({c['detail']})" if c.get("detail") else ""
        lines.append(
            f"            check {'ok' if c['ok'] else 'FAILED'}: {c['name']}" + (said if c["ok"] else f": {c['seen']}")
        )
    # A number from a scenario, a string from a user's .properties file (verify-config).
    timeout = v.record.producer_config.get("transaction.timeout.ms")
    against = f" (transaction.timeout.ms = {float(timeout) / 1000:.1f}s)" if timeout else ""
    for st in v.record.read_committed_stalls:
        where = f"{st['partition']} at {st['lso']}"
        lines.append(f"            read_committed readers stalled {st['seconds']:.1f}s on {where}{against}")
    return lines


# What each client's apps report as the release they ran on (``client_ran``).
_RAN = {"librdkafka": "librdkafka", "java": "kafka-clients"}


def versions_text(record: SideRecord) -> str:
    """The releases a side ran on: its brokers' Kafka, and its apps' client as chosen and as the
    apps said they ran, e.g. ``Kafka 3.6.1; librdkafka: confluent-kafka 2.1.0 (pinned by this
    side), librdkafka 2.1.0 ran``."""
    text = f"Kafka {record.kafka_version or 'unknown'}"
    if not record.client:
        return text
    chosen = (
        f"pinned by this side: {record.client_pin}"
        if record.client_pin
        else "asked for"
        if record.client_requested
        else "default"
    )
    text += f"; {record.client}"
    if record.client_version:  # verdicts from before versions were recorded have none
        text += f": {record.client_package} {record.client_version} ({chosen})"
    ran = record.client_ran
    return text + (f", {_RAN.get(record.client, record.client)} {' and '.join(ran)} ran" if ran else "")


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
            why = f" (stopped by the harness: {r['stopped']})" if r.get("stopped") else ""
            lines.append(f"{who}: " + (f"ended by signal {-code}" if code and code < 0 else f"exited {code}") + why)
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
