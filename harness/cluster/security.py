"""A secured cluster: SASL/PLAIN logins on the client listeners, ACLs enforced by the brokers.

``Settings.client_security`` chooses: ``PLAINTEXT`` (an open cluster, the default) or
``SASL_PLAINTEXT``. A secured cluster's client listeners accept only SASL/PLAIN logins of
``SASL_USERS`` (passwords made per cluster), and KRaft's ``StandardAuthorizer`` refuses
whatever no ACL allows (``allow.everyone.if.no.acl.found=false``). The replication and
controller listeners stay PLAINTEXT inside the cluster's private network; their principal,
``User:ANONYMOUS``, is a super user so brokers and controllers may talk to each other, as
is the harness's own user. The listeners are never published: only client ports are.

Every client of the harness gets its login from one place, ``KafkaCluster.client_config``
(this module's ``client_config``); on an open cluster that is empty. ACLs are ``Grant``s:
which user may do what to the run's topics or to its producer's transactional.id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

from harness.settings import SASL_HARNESS_USER

PLAINTEXT = "PLAINTEXT"
SASL_PLAINTEXT = "SASL_PLAINTEXT"
CLIENT_SECURITY = (PLAINTEXT, SASL_PLAINTEXT)
MECHANISM = "PLAIN"
AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer"
# The principal of every PLAINTEXT connection: inter-broker and controller traffic.
INTERNAL_PRINCIPAL = "User:ANONYMOUS"


def check(client_security: str) -> None:
    if client_security not in CLIENT_SECURITY:
        raise ValueError(f"unknown client security {client_security!r}; one of {', '.join(CLIENT_SECURITY)}")


def broker_properties(client_listeners: Iterable[str], passwords: Mapping[str, str]) -> dict[str, str]:
    """What a secured cluster adds to every broker's properties (the listener protocol map
    is the cluster's; see ``listener_protocols``)."""
    # The broker side of PLAIN needs only the user_<name>="<password>" entries: it never
    # logs in over these listeners itself.
    users = " ".join(f'user_{user}="{password}"' for user, password in passwords.items())
    props = {
        "authorizer.class.name": AUTHORIZER,
        "allow.everyone.if.no.acl.found": "false",
        "super.users": f"{INTERNAL_PRINCIPAL};User:{SASL_HARNESS_USER}",
    }
    for listener in client_listeners:
        props[f"listener.name.{listener}.sasl.enabled.mechanisms"] = MECHANISM
        props[f"listener.name.{listener}.plain.sasl.jaas.config"] = (
            f"org.apache.kafka.common.security.plain.PlainLoginModule required {users};"
        )
    return props


def listener_protocols(listeners: Iterable[str], client_listeners: Iterable[str], client_security: str) -> str:
    """``listener.security.protocol.map``: the client listeners speak ``client_security``."""
    clients = set(client_listeners)
    return ",".join(f"{lst.upper()}:{client_security if lst in clients else PLAINTEXT}" for lst in listeners)


def client_config(user: str, password: str) -> dict[str, str]:
    """librdkafka settings that log in as ``user`` on a secured cluster's client listeners."""
    return {
        "security.protocol": SASL_PLAINTEXT,
        "sasl.mechanism": MECHANISM,
        "sasl.username": user,
        "sasl.password": password,
    }


Resource = Literal["topic", "transactional_id"]
_RESOURCE_TYPES = {"topic": ResourceType.TOPIC, "transactional_id": ResourceType.TRANSACTIONAL_ID}


@dataclass(frozen=True)
class Grant:
    """Allow ``user`` ``operations`` (AclOperation names, e.g. "WRITE") on a resource of the
    run: "topic" is every topic the variant writes or reads, "transactional_id" its
    producer's transactional.id (both are named per run, so the grant is too)."""

    user: str
    resource: Resource
    operations: tuple[str, ...]

    def bindings(self, names: Mapping[Resource, list[str]]) -> list[AclBinding]:
        return [
            AclBinding(
                _RESOURCE_TYPES[self.resource],
                name,
                ResourcePatternType.LITERAL,
                f"User:{self.user}",
                "*",
                AclOperation[operation],
                AclPermissionType.ALLOW,
            )
            for name in names[self.resource]
            for operation in self.operations
        ]
