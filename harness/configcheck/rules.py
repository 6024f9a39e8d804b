"""Every static rule over a user's broker, producer and consumer configs, in the report's order,
and ``check_static``, which runs them (what a rule is: ``harness.configcheck.rulebook``)."""

from __future__ import annotations

from collections.abc import Iterable

from harness.configcheck import broker_rules, consumer_rules, file_rules, producer_rules
from harness.configcheck.rulebook import Configs, Hit, Rule, RuleFinding

RULES: list[Rule] = [*broker_rules.RULES, *producer_rules.RULES, *consumer_rules.RULES, *file_rules.RULES]


def check_static(configs: Configs) -> tuple[list[RuleFinding], list[Rule]]:
    """Every finding of every rule whose files were given, and the rules skipped for lack of one."""
    findings: list[RuleFinding] = []
    skipped: list[Rule] = []
    for r in RULES:
        if not all(kind in configs.files for kind in r.needs):
            skipped.append(r)
            continue
        for hit in _merged(r.check(configs)):
            findings.append(
                RuleFinding(
                    r.id, r.severity, r.scenarios, str(hit.file.path), hit.line, hit.what, hit.fix, hit.applies_to
                )
            )
    return findings, skipped


def _merged(hits: Iterable[Hit]) -> list[Hit]:
    """One hit per (file, line, what, fix), applying to every client that produced it:
    checks run per client, and both clients usually agree."""
    merged: dict[tuple[str, int | None, str, str], Hit] = {}
    for h in hits:
        key = (str(h.file.path), h.line, h.what, h.fix)
        seen = merged.get(key)
        applies = (*seen.applies_to, *h.applies_to) if seen else h.applies_to
        merged[key] = Hit(h.file, h.line, h.what, h.fix, tuple(dict.fromkeys(applies)))
    return list(merged.values())
