"""The bug rules: each flags an affected release and not its fix, says its pair and fixed
release, is skipped when the versions given cannot decide; the pair each row runs; the table
in docs/verify-config.md is the module's."""

from __future__ import annotations

from pathlib import Path

import confluent_kafka
import pytest

import scenarios
from harness.configcheck import bugs
from harness.configcheck.bugs import BUGS, Range
from harness.configcheck.report import Report, verify
from harness.configcheck.rulebook import Severity
from harness.kafkaconfig.catalogue import Component, Kind
from harness.workloads.clients import ClientSpec
from tests.generated_docs import generated_table

TRANSACTIONAL = "transactional.id=app-0\n"
RULE = {b.pair: b.rule for b in BUGS}


def run(
    tmp_path: Path,
    kafka: tuple[str, ...] = (),
    client: str = "",
    producer: str = TRANSACTIONAL,
    broker: str | None = None,
) -> Report:
    paths = {Kind.PRODUCER: tmp_path / "producer.properties"}
    paths[Kind.PRODUCER].write_text(producer)
    if broker is not None:
        paths[Kind.BROKER] = tmp_path / "server.properties"
        paths[Kind.BROKER].write_text(broker)
    spec = ClientSpec.parse(client) if client else None
    return verify(paths, brokers=3, transactional=False, client=spec, kafka_versions=kafka)


def fired(report: Report, pair: str) -> bool:
    return any(f.rule == RULE[pair] for f in report.sections["static"])


# (pair, affected, fixed): the options of a run the bug's rule flags, and of one it does not.
CASES = [
    ("R1", {"kafka": ("3.5.2",), "client": "java==4.4.0"}, {"kafka": ("3.6.1",), "client": "java==4.4.0"}),
    ("R1", {"kafka": ("3.6.0",)}, {"kafka": ("4.4.0",)}),
    (
        "R2",
        {"kafka": ("4.4.0",), "client": "librdkafka==2.16.1", "broker": f"{bugs.VERIFICATION}=false"},
        {"kafka": ("4.4.0",), "client": "librdkafka==2.16.1", "broker": f"{bugs.VERIFICATION}=true"},
    ),
    (
        "R2",
        {"kafka": ("3.9.2",), "client": "java==4.4.0", "broker": f"{bugs.VERIFICATION}=false"},
        {"kafka": ("4.4.0",), "client": "java==4.4.0", "broker": f"{bugs.VERIFICATION}=false"},  # protocol 2
    ),
    ("R3", {"client": "librdkafka==2.1.0", "producer": "acks=all"}, {"client": "librdkafka==2.1.1"}),
    ("R4", {"kafka": ("3.7.0",), "client": "java==3.7.1"}, {"kafka": ("3.7.1",), "client": "java==3.7.1"}),
    ("R4", {"kafka": ("3.7.0",), "client": "java"}, {"kafka": ("3.7.0",), "client": "librdkafka"}),
    ("R5", {"kafka": ("3.9.1",)}, {"kafka": ("3.9.2",)}),
    ("R5", {"kafka": ("4.0.1",)}, {"kafka": ("4.0.2",)}),
    ("R5", {"kafka": ("4.1.0",)}, {"kafka": ("4.1.1",)}),
    ("R5", {"kafka": ("3.6.0",)}, {"kafka": ("3.5.2",)}),  # verification, and the bug, came in 3.6.0
    ("B9", {"kafka": ("3.9.2",), "client": "java==4.4.0"}, {"kafka": ("4.4.0",), "client": "java==4.4.0"}),
    ("B9", {"kafka": ("4.4.0",), "client": "java==3.9.1"}, {"kafka": ("4.0.0",), "client": "java==4.0.0"}),
    ("B9", {"kafka": ("4.4.0",), "client": "librdkafka==2.16.1"}, {"kafka": ("4.4.0",), "client": "java==4.4.0"}),
]


@pytest.mark.parametrize(("pair", "affected", "fixed"), CASES)
def test_an_affected_release_is_flagged_and_its_fix_is_not(
    tmp_path: Path, pair: str, affected: dict[str, object], fixed: dict[str, object]
) -> None:
    assert fired(run(tmp_path, **affected), pair), affected  # type: ignore[arg-type]
    assert not fired(run(tmp_path, **fixed), pair), fixed  # type: ignore[arg-type]


def test_every_bug_has_cases() -> None:
    assert {pair for pair, _, _ in CASES} == {b.pair for b in BUGS}


@pytest.mark.parametrize("bug", BUGS, ids=[b.rule for b in BUGS])
def test_a_finding_names_its_pair_and_fixed_release(tmp_path: Path, bug: bugs.Bug) -> None:
    affected = next(a for pair, a, _ in CASES if pair == bug.pair)
    (f,) = [f for f in run(tmp_path, **affected).sections["static"] if f.rule == bug.rule]  # type: ignore[arg-type]
    assert f.severity is bug.severity and f.scenarios == (bug.pair,)
    assert f"kafka-harness run {bug.pair}" in f.fix and bug.fixed in f.fix
    assert bug.id in f.what and bug.link in f.what
    # Lost, repeated or wrongly visible records are errors; a fatal error or a stall is a warning.
    assert bug.severity is (Severity.WARNING if bug.pair in ("R4", "R5") else Severity.ERROR)


def test_the_pair_of_each_bug_tells_its_story() -> None:
    for bug in BUGS:
        pair = scenarios.get(bug.pair)
        assert bug.id.replace("librdkafka#", "#") in pair.story, bug.rule
        assert not pair.research, bug.rule


def test_where_a_finding_points(tmp_path: Path) -> None:
    report = run(tmp_path, kafka=("3.5.2", "4.4.0"), client="java==4.4.0")
    (r1,) = [f for f in report.sections["static"] if f.rule == RULE["R1"]]
    assert r1.where == "--kafka-version 3.5.2" and r1.applies_to == (Component.BROKER,)
    broker = f"# c\n{bugs.VERIFICATION}=false\n"
    (r2,) = [f for f in run(tmp_path, client="librdkafka", broker=broker).sections["static"] if f.rule == RULE["R2"]]
    assert r2.where.endswith("server.properties:2") and r2.applies_to == (Component.LIBRDKAFKA,)


def test_versions_not_given_are_skipped_with_what_would_tell(tmp_path: Path) -> None:
    report = run(tmp_path, client="java")
    assert report.skipped_rules[RULE["R1"]] == "--kafka-version"
    assert report.skipped_rules[RULE["B9"]] == "--kafka-version or --client java==VERSION"
    assert run(tmp_path, kafka=("3.9.2",), client="java").skipped_rules.get(RULE["B9"]) is None  # brokers decide
    # A broker setting needs the broker file.
    assert run(tmp_path, client="librdkafka").skipped_rules[RULE["R2"]] == "--broker"


def test_transactional_bugs_need_a_transactional_pipeline(tmp_path: Path) -> None:
    plain = run(tmp_path, kafka=("3.5.2",), producer="acks=all\n")
    assert not fired(plain, "R1") and RULE["R1"] not in plain.skipped_rules
    paths = {Kind.BROKER: tmp_path / "server.properties"}
    paths[Kind.BROKER].write_text("")
    report = verify(paths, brokers=3, transactional=False, kafka_versions=["3.5.2"])
    assert report.skipped_rules[RULE["R1"]].startswith("--transactional")
    assert fired(verify(paths, brokers=3, transactional=True, kafka_versions=["3.5.2"]), "R1")


def test_librdkafka_without_a_release_is_the_installed_one(tmp_path: Path) -> None:
    (client,) = run(tmp_path, client="librdkafka").clients
    assert (client.version, client.source) == (confluent_kafka.libversion()[0], "installed confluent-kafka")
    assert client.spec == ClientSpec("librdkafka")  # a bug row runs the harness's own, the installed one
    # Without --client, the clients the files are read as: both here.
    assert [c.name for c in run(tmp_path).clients] == ["librdkafka", "java"]


def test_ranges() -> None:
    assert "3.6.0" in Range(before="3.6.1") and "3.6.1" not in Range(before="3.6.1")
    assert "3.10.0" in Range("3.6.0", "3.10.0") and "3.9.2" not in Range("4.0.0", "4.0.1")
    assert [str(r) for r in (Range("2.1.0", "2.1.0"), Range("3.6.0", "3.9.1"), Range(before="4.0.0"))] == [
        "2.1.0",
        "3.6.0-3.9.1",
        "before 4.0.0",
    ]


def test_a_bug_row_runs_the_guarantee_on_your_versions() -> None:
    r1 = bugs.BUGS[0]
    java = bugs.UserClient("java", "3.9.1", "--client")
    pair = bugs.on_user_versions(r1, "3.5.2", java, None)
    assert (pair.control.kafka_version, pair.guarantee.kafka_version) == ("3.5.2", "3.5.2")
    assert pair.guarantee.client == scenarios.get("R1").guarantee.client  # R1 is about brokers only
    (r3,) = [b for b in BUGS if b.pair == "R3"]
    old = bugs.UserClient("librdkafka", "2.1.0", "--client")
    pair = bugs.on_user_versions(r3, "4.3.1", old, None)
    # R3's sides pin no Kafka version: both get the user's, so neither runs on their broker file's cluster.
    assert (pair.control.kafka_version, pair.guarantee.kafka_version) == ("4.3.1", "4.3.1")
    assert (pair.control.client, pair.guarantee.client) == ("librdkafka==2.1.0", "librdkafka==2.1.0")


def test_a_setting_bug_row_runs_your_setting(tmp_path: Path) -> None:
    from harness.kafkaconfig import catalogue

    path = tmp_path / "server.properties"
    path.write_text(f"{bugs.VERIFICATION}=false\n")
    broker = catalogue.load(path, Kind.BROKER)
    (r2,) = [b for b in BUGS if b.pair == "R2"]
    pair = bugs.on_user_versions(
        r2, "3.9.2", bugs.UserClient("librdkafka", "2.16.0", "installed confluent-kafka"), broker
    )
    assert pair.guarantee.broker_settings == {bugs.VERIFICATION: "false"} and pair.guarantee.kafka_version == "3.9.2"
    assert pair.guarantee.client == "librdkafka"
    # The control, verification off, pins no version: it runs on the user's too (one cluster for both sides).
    assert pair.control.broker_settings == pair.guarantee.broker_settings and pair.control.kafka_version == "3.9.2"


def test_the_doc_has_the_table_of_the_module() -> None:
    assert generated_table("docs/verify-config.md", "bugs") == bugs.markdown()
