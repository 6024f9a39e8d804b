"""The verdict document: a side's result judged against its expectation (``VariantVerdict``), a
pair of them (``PairVerdict``) and their outcomes, as ``verdict.json`` holds them. The judging
itself is ``harness.verdict.judge``; the checks beyond the counts, ``harness.verdict.checks``.

Per anomaly a variant expects one of: REQUIRED (count > 0), FORBIDDEN (count == 0),
ONE_OF (at least one of the anomalies marked so has count > 0) or ALLOWED (reported, not
judged). Besides the checker's anomalies there are findings about the clients themselves
(``harness.checker.client``) and about sinks outside Kafka (``harness.checker.sinks``),
judged the same way.

A pair's outcome (``harness.verdict.outcome.Outcome``), the first that holds:

- **failed**: the guarantee showed a violation: a forbidden anomaly, or a failed check that
  neither asks the fault to have done its part nor could not tell; it stands even when a
  fault did not happen as written;
- **unknown**: either side holds what could not be told (its checker or a sink's check raised, a
  check that cannot tell): a violation may be there unseen;
- **inconclusive**: a step of the fault schedule failed on either side, so neither side ran
  the fault as written; or the guarantee failed only checks that its fault did its part; or
  the guarantee is clean but the control did not show its anomaly, so the clean result proved
  nothing about the fault;
- **passed**: the control showed every required anomaly and the guarantee is clean.

``verdict.json`` of one variant (schema ``SCHEMA``): the judged keys (``JUDGED_KEYS``) and the
side's record (``harness.verdict.record.SideRecord``, from ``title`` on)::

    schema          "kafka-eos-harness/verdict/1"
    scenario        scenario id, e.g. "A1"
    variant         "control" or "guarantee"
    passed          the variant met its expectation
    reasons         why not, one line per unmet expectation
    expect          finding -> "required" | "forbidden" | "one of" | "allowed"
    checks          [{name, why, ok, seen, of_the_fault, detail?} or {name, why, ok: false, seen,
                    unknown: true}]: the side's other conditions (harness.verdict.checks); ``detail``:
                    what a check that holds saw, when it says more; ``unknown``: it could not tell
    counts          finding -> count, for every finding of harness.checker.catalogue
    result          the checker's comparable output:
      anomalies       anomaly -> {count, examples: [{id, producer, session, txn, at, ...}]}
      stats           sent, acknowledged, failed, indeterminate, indeterminate_read,
                      transactions_*, sessions, sessions_fenced, *_records, markers, distinct_read
      ledger_problems ledger file -> lines ignored (torn or malformed)
    notes           human detail: which ledger lines were ignored
    title, story    the scenario's, as they were when the side ran (the report reads them here;
                    absent in a folder of an older harness: the report falls back to the
                    registered scenario's, or to its id)
    fault_errors    steps of the fault schedule that failed or were skipped (the variant
                    then does not pass: its fault did not happen as written)
    unknown         what could not be told (the checker or a sink's check raised: the exception's
                    type and text): the side does not pass, and its outcome is unknown unless it
                    also shows a violation
    kafka_version   the brokers' Kafka release (the side's pin, ``--kafka-version`` or the default)
    client          the apps' client: "librdkafka" (confluent-kafka, the Python apps) or "java"
                    (Kafka's Java client; a Streams app's kafka-streams)
    client_package  what client_version is the release of: "confluent-kafka", "kafka-clients"
                    or "kafka-streams"
    client_version  the release the apps were given, e.g. "2.1.0"; by default the harness's own
                    confluent-kafka, or the cluster's Kafka version (kafka-streams: the newest on
                    Maven Central up to it)
    client_requested the release asked for ("": none, the default)
    client_pin      the side's own pin (``Variant.client``, e.g. "librdkafka==2.1.0"), which
                    ``--client`` does not override; "" when it pins none
    client_ran      the releases the apps said they ran on: librdkafka's own
                    (``confluent_kafka.libversion()``; confluent-kafka 2.16.1 bundles librdkafka
                    2.16.0) or kafka-clients' (its ``AppInfoParser``); one, normally
    broker_settings (a side with its own cluster), client_security
    (PLAINTEXT or SASL_PLAINTEXT, harness.cluster.security), acls [{user, resource, operations}]
    granted for the run, topics, topic_config, consumer_view, read_partitions (the
    consumer's partitions of the main topic; empty: all), producer_config, run_dir
    read_committed_stalls  [{partition, started_at, seconds, lso}] (harness.history.lso_probe)
    sink            for a database sink: db, sink_missing / sink_repeated {count, examples};
                    for a Spark job: output, and its sink findings or aggregate_mismatch;
                    for a Streams app: output, aggregates, prepared_commits and
                    completed_commits (its transactions in __transaction_state), and
                    sink_missing / sink_repeated / aggregate_mismatch
    workload        one report per app process (incarnation): app, incarnation, exit,
                    client_version (and confluent_kafka, a Python app's package release),
                    outcomes {ok, fail, info, unfinished}, errors {error name: count},
                    longest_ack_gap_s (how long it went without any acknowledgement:
                    unavailability, not loss), resent; or setup_error {error, message, config}
    faults          [{fault, target, brokers, listeners, direction, params, toxicity,
                    injected_at, healed_at}] as applied, with wall-clock times (toxicity:
                    a link toxic's chance of acting on each connection, 1 for all)
    started_at, ended_at  wall-clock seconds: the side's start (before its topics are
                    made and a pipeline's input is written) and the end of its check
    reference       check-app with a reference run: {repeated, folder}
    (any other key)  kept as read and written back (a folder of another harness version)

A side judged alone (a user's app: ``kafka-harness check-app``) is **failed** when it shows a
violation (even if a step of its schedule failed: a found anomaly stands), **unknown** when it
holds what could not be told, **inconclusive** when its fault schedule failed or it failed only
checks that ask its faults to have done their part (``of_the_fault``: e.g. no fault hit the app
with work in hand), else **passed**: ``side_outcome``.

A research scenario's pair is **reported**: no claim, the findings of both sides are the
result; but it is unknown when a side could not be told, and inconclusive when its fault did
not happen as written or one of its checks failed (the run did not do what the research needs).

A pair's ``verdict.json`` holds ``scenario``, ``title``, ``verdict`` (passed / failed / unknown /
inconclusive / reported), ``research`` (true for a research scenario) and both variants'
documents under ``control`` and ``guarantee``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.checker import catalogue
from harness.checker.result import CheckResult
from harness.verdict.outcome import Outcome
from harness.verdict.record import SideRecord

SCHEMA = "kafka-eos-harness/verdict/1"
REQUIRED = "required"
FORBIDDEN = "forbidden"
ONE_OF = "one of"
ALLOWED = "allowed"
RULES = (REQUIRED, FORBIDDEN, ONE_OF, ALLOWED)
# How a reason says a step of the fault schedule failed (not a finding: the fault did not happen as written).
FAULT_ERROR = "fault schedule error: "
# How a reason says what could not be told (a checker that raised): never a violation.
UNKNOWN = "unknown: "
CHECK_FAILED = "check failed: "
# A side's document holds these, and its record besides (VariantVerdict.to_json).
JUDGED_KEYS = ("schema", "scenario", "variant", "passed", "reasons", "expect", "counts", "result", "notes", "checks")


@dataclass
class VariantVerdict:
    scenario: str
    variant: str
    passed: bool
    reasons: list[str]
    result: CheckResult
    expect: dict[str, str]
    client: dict[str, int]  # every client and sink finding of the catalogue -> count
    record: SideRecord = field(default_factory=SideRecord)  # config, faults, topics, run dir, workload
    checks: list[dict[str, Any]] = field(default_factory=list)  # harness.verdict.checks, as run

    def count(self, anomaly: str) -> int:
        return self.client[anomaly] if anomaly in self.client else self.result.count(anomaly)

    def shown(self) -> list[str]:
        """Anomalies with an expectation or a finding; the rest are zero and unjudged."""
        return [a for a in catalogue.NAMES if a in self.expect or self.count(a)]

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> VariantVerdict:
        """A side's ``verdict.json`` read back, as ``judge`` made it."""
        client = {name: doc["counts"].get(name, 0) for name in catalogue.NAMES if name not in catalogue.ANOMALIES}
        record = SideRecord.from_json({k: v for k, v in doc.items() if k not in JUDGED_KEYS})
        result = CheckResult.from_json(doc["result"], doc.get("notes", []))
        return cls(
            doc["scenario"],
            doc["variant"],
            doc["passed"],
            doc["reasons"],
            result,
            doc["expect"],
            client,
            record,
            doc.get("checks", []),
        )

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
            "checks": self.checks,
            **self.record.to_json(),
        }


def violated(side: VariantVerdict) -> bool:
    """Whether the side shows a violation: an expectation unmet, or a check failed that asks
    neither for the fault to have done its part nor could not tell."""
    checks = [c for c in side.checks if not c["ok"] and not c.get("of_the_fault") and not c.get("unknown")]
    expectations = [r for r in side.reasons if not r.startswith((FAULT_ERROR, UNKNOWN, CHECK_FAILED))]
    return bool(checks or expectations)


def untold(side: VariantVerdict) -> bool:
    """Whether the side holds what could not be told: its checker or a sink's check raised, or
    a check cannot tell."""
    return bool(side.record.unknown) or any(c.get("unknown") for c in side.checks)


def side_outcome(side: VariantVerdict) -> Outcome:
    """A side judged alone (a user's app), as ``Outcome`` combines: failed when it shows a
    violation, whatever else happened (a fault that did not happen as written hides no anomaly
    that was found); else unknown when it holds what could not be told; else inconclusive when a
    fault did not happen as written or it failed checks that its faults did their part; else
    passed."""
    if violated(side):
        return Outcome.FAILED
    if untold(side):
        return Outcome.UNKNOWN
    return Outcome.PASSED if side.passed else Outcome.INCONCLUSIVE


@dataclass
class PairVerdict:
    scenario: str
    title: str
    control: VariantVerdict
    guarantee: VariantVerdict
    research: bool = False

    @property
    def sides(self) -> tuple[VariantVerdict, VariantVerdict]:
        return self.control, self.guarantee

    @property
    def outcome(self) -> Outcome:
        """The module's rules, in their order."""
        # A research pair's sides fail only by their checks: what the research needs to have happened.
        if not self.research and violated(self.guarantee):
            return Outcome.FAILED
        if any(untold(v) for v in self.sides):
            return Outcome.UNKNOWN
        if any(v.record.fault_errors for v in self.sides):
            return Outcome.INCONCLUSIVE  # the fault did not happen as written
        if self.research:
            return Outcome.REPORTED if self.control.passed and self.guarantee.passed else Outcome.INCONCLUSIVE
        return Outcome.PASSED if self.control.passed and self.guarantee.passed else Outcome.INCONCLUSIVE

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> PairVerdict:
        """A pair's ``verdict.json`` read back."""
        sides = (VariantVerdict.from_json(doc["control"]), VariantVerdict.from_json(doc["guarantee"]))
        research = doc.get("research", doc["verdict"] == Outcome.REPORTED)
        return cls(doc["scenario"], doc["title"], *sides, research=research)

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "title": self.title,
            "verdict": self.outcome.value,
            "research": self.research,
            "control": self.control.to_json(),
            "guarantee": self.guarantee.to_json(),
        }
