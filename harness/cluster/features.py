"""The cluster's finalized feature levels, asked over Kafka's wire protocol (ApiVersions):
which transaction protocol the brokers run.

confluent-kafka has no describe_features and the broker image has no kafka-tools, but
every broker reports the finalized features in ApiVersions' tagged field 2 (KIP-584).
"""

from __future__ import annotations

import socket
import struct
from typing import Any


def _uvarint(buf: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, at
        shift += 7


def finalized_features(host: str, port: int, timeout_s: float = 10) -> dict[str, int]:
    """The cluster's finalized feature levels from an ApiVersions v3 response."""
    header = struct.pack(">hhih", 18, 3, 1, 13) + b"kafka-harness" + b"\x00"  # api key 18, v3, no tags
    body = b"\x0ekafka-harness" + b"\x020" + b"\x00"  # client software name and version, no tags
    request = header + body
    with socket.create_connection((host, port), timeout_s) as conn:
        conn.sendall(struct.pack(">i", len(request)) + request)
        size = struct.unpack(">i", _read(conn, 4))[0]
        buf = _read(conn, size)
    at = 4 + 2  # correlation id, error code
    n, at = _uvarint(buf, at)
    for _ in range(n - 1):  # api keys: key, min, max, then their tags
        at += 6
        at = _skip_tags(buf, at)
    at += 4  # throttle time
    tags, at = _uvarint(buf, at)
    features: dict[str, int] = {}
    for _ in range(tags):
        tag, at = _uvarint(buf, at)
        size, at = _uvarint(buf, at)
        if tag == 2:  # FinalizedFeatures: [name, max level, min level, tags]
            inner = at
            count, inner = _uvarint(buf, inner)
            for _ in range(count - 1):
                length, inner = _uvarint(buf, inner)
                name = buf[inner : inner + length - 1].decode()
                inner += length - 1
                features[name] = struct.unpack(">h", buf[inner : inner + 2])[0]
                inner = _skip_tags(buf, inner + 4)
        at += size
    return features


def _skip_tags(buf: bytes, at: int) -> int:
    n, at = _uvarint(buf, at)
    for _ in range(n):
        _, at = _uvarint(buf, at)
        size, at = _uvarint(buf, at)
        at += size
    return at


def _read(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise OSError("connection closed mid-response")
        data += chunk
    return data


def transaction_protocol(bootstrap: str) -> dict[str, Any]:
    """Which transaction protocol the brokers run: v2 (KIP-890 part 2) from
    transaction.version 2, else v1."""
    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    try:
        level = finalized_features(host, int(port)).get("transaction.version", 0)
    except (OSError, IndexError, struct.error) as exc:
        return {"protocol": None, "transaction.version": None, "source": f"not queried: {exc}"}
    return {"protocol": 2 if level >= 2 else 1, "transaction.version": level, "source": "queried (ApiVersions)"}
