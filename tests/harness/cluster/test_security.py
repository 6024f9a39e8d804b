"""A secured cluster's broker properties, client logins, ACL grants and the findings they lead to."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from confluent_kafka.admin import AclOperation, ResourcePatternType, ResourceType

from harness.checker.catalogue import record_counts
from harness.cluster import security
from harness.cluster.kafka import CLIENT_LISTENERS, LISTENERS, KafkaCluster, env_name
from harness.errors import HarnessError
from harness.settings import SASL_HARNESS_USER, SASL_USERS, Settings
from harness.verdict.record import SideRecord

RUN_SCRIPT = Path(__file__).parents[3] / "harness" / "cluster" / "dockerfiles" / "kafka" / "run"
PASSWORDS = {"harness": "h-pw", "app": "a-pw"}


def test_secured_brokers_enforce_acls_and_trust_only_internal_and_harness_principals() -> None:
    props = security.broker_properties(CLIENT_LISTENERS, PASSWORDS)
    assert props["authorizer.class.name"] == "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    assert props["allow.everyone.if.no.acl.found"] == "false"
    assert props["super.users"].split(";") == ["User:ANONYMOUS", "User:harness"]


def test_every_client_listener_accepts_plain_logins_of_every_user() -> None:
    props = security.broker_properties(CLIENT_LISTENERS, PASSWORDS)
    for listener in CLIENT_LISTENERS:
        assert props[f"listener.name.{listener}.sasl.enabled.mechanisms"] == "PLAIN"
        assert props[f"listener.name.{listener}.plain.sasl.jaas.config"] == (
            'org.apache.kafka.common.security.plain.PlainLoginModule required user_harness="h-pw" user_app="a-pw";'
        )


def test_only_client_listeners_change_protocol() -> None:
    assert security.listener_protocols(LISTENERS, CLIENT_LISTENERS, "SASL_PLAINTEXT") == (
        "CLIENT:SASL_PLAINTEXT,CLIENT2:SASL_PLAINTEXT,CLIENT3:SASL_PLAINTEXT,REPLICATION:PLAINTEXT,CONTROLLER:PLAINTEXT"
    )
    assert set(security.listener_protocols(LISTENERS, CLIENT_LISTENERS, "PLAINTEXT").split(",")) == {
        f"{lst.upper()}:PLAINTEXT" for lst in LISTENERS
    }


def test_the_jaas_line_survives_the_image_run_script(tmp_path: Path) -> None:
    # Quotes, blanks, "=" and ";" in a value: rendered back into server.properties as is.
    script = (
        RUN_SCRIPT.read_text()
        .split(': "${CLUSTER_ID')[0]
        .replace("/opt/kafka/config/server.properties", str(tmp_path / "p"))
    )
    props = security.broker_properties(["client"], PASSWORDS)
    env = {env_name(k): v for k, v in props.items()} | {"PATH": "/usr/bin:/bin"}
    subprocess.run(["bash", "-c", script], env=env, check=True)
    rendered = dict(line.split("=", 1) for line in (tmp_path / "p").read_text().splitlines())
    assert rendered == props


def test_an_open_cluster_gives_clients_no_login() -> None:
    assert KafkaCluster(Settings().with_overrides(client_security="PLAINTEXT")).client_config() == {}


def test_a_secured_cluster_logs_clients_in_as_the_harness_unless_told_otherwise() -> None:
    cluster = KafkaCluster(Settings().with_overrides(client_security="SASL_PLAINTEXT"))
    harness, app = cluster.client_config(), cluster.client_config("app")
    assert harness["security.protocol"] == "SASL_PLAINTEXT" and harness["sasl.mechanism"] == "PLAIN"
    assert harness["sasl.username"] == SASL_HARNESS_USER and app["sasl.username"] == "app"
    passwords = {cluster.client_config(u)["sasl.password"] for u in SASL_USERS}
    assert len(passwords) == len(SASL_USERS)  # one each, made for this cluster
    assert passwords.isdisjoint(
        KafkaCluster(Settings().with_overrides(client_security="SASL_PLAINTEXT")).client_config(u)["sasl.password"]
        for u in SASL_USERS
    )
    with pytest.raises(HarnessError, match="no SASL user 'mallory'"):
        cluster.client_config("mallory")


def test_unknown_client_security_is_refused_before_anything_starts() -> None:
    with pytest.raises(ValueError, match="SASL_SSL"):
        KafkaCluster(Settings().with_overrides(client_security="SASL_SSL"))


def test_acls_need_a_secured_cluster() -> None:
    grant = security.Grant("app", "topic", ("WRITE",))
    with pytest.raises(HarnessError, match="secured cluster"):
        KafkaCluster(Settings().with_overrides(client_security="PLAINTEXT")).allow([grant], {"topic": ["t"]})


def test_a_grant_is_one_literal_allow_binding_per_run_resource_and_operation() -> None:
    grant = security.Grant("hijacker", "transactional_id", ("WRITE", "DESCRIBE"))
    bindings = grant.bindings({"topic": ["t"], "transactional_id": ["b10-app-t"]})
    assert [(b.restype, b.name, b.resource_pattern_type, b.principal, b.host, b.operation) for b in bindings] == [
        (ResourceType.TRANSACTIONAL_ID, "b10-app-t", ResourcePatternType.LITERAL, "User:hijacker", "*", op)
        for op in (AclOperation.WRITE, AclOperation.DESCRIBE)
    ]


def test_a_refused_transactional_id_and_a_fenced_app_are_findings_of_their_own() -> None:
    refused = {"error": "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", "message": "", "config": False}
    timed_out = {"error": "_TIMED_OUT", "message": "", "config": False}
    workload = [
        {"app": "hijacker", "setup_error": {**refused, "stage": "init_transactions"}},
        {"app": "other", "setup_error": {**timed_out, "stage": "init_transactions"}},
        {"app": "producer-1", "outcomes": {}, "fenced": {"error": "_FENCED", "message": ""}},
    ]
    found = record_counts(SideRecord(workload=workload))
    assert (found["txn_id_unauthorized"], found["txn_init_failed"], found["app_fenced"]) == (1, 1, 1)
