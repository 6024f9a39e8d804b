"""Thin wrapper over toxiproxy-python, so nothing else imports it.

toxiproxy-python keeps the API address in class attributes (one server per process) and
returns nothing from ``add_toxic``; this module owns that global and refuses a second,
different server in the same process instead of silently redirecting the first.
"""

from __future__ import annotations

from typing import Any

from toxiproxy.api import APIConsumer
from toxiproxy.proxy import Proxy
from toxiproxy.server import Toxiproxy

# Toxiproxy's stream names, seen from the proxy: "upstream" carries bytes from the client
# to the server (the broker), "downstream" from the broker back to the client.
TO_BROKER = "upstream"
FROM_BROKER = "downstream"


class ToxiproxyAPI:
    def __init__(self, host: str, port: int) -> None:
        current = (APIConsumer.host, APIConsumer.port)
        if getattr(APIConsumer, "_keh_bound", False) and current != (host, port):
            raise RuntimeError(
                f"a Toxiproxy server at {current[0]}:{current[1]} is already in use by this process; "
                "toxiproxy-python supports one server per process"
            )
        APIConsumer.host, APIConsumer.port = host, port
        APIConsumer._keh_bound = True  # type: ignore[attr-defined]
        self._server = Toxiproxy()
        self._proxies: dict[str, Proxy] = {}

    def release(self) -> None:
        APIConsumer._keh_bound = False  # type: ignore[attr-defined]

    def running(self) -> bool:
        # A real request: toxiproxy-python's running() only opens a TCP connection, which
        # Docker's port proxy accepts before the server listens (resets came right after).
        self._server.proxies()
        return True

    def create(self, name: str, listen: str, upstream: str) -> None:
        self._proxies[name] = self._server.create(upstream=upstream, name=name, listen=listen)

    def add_toxic(self, proxy: str, name: str, kind: str, stream: str, attributes: dict[str, Any]) -> None:
        self._proxies[proxy].add_toxic(name=name, type=kind, stream=stream, attributes=attributes)

    def remove_toxic(self, proxy: str, name: str) -> None:
        self._proxies[proxy].destroy_toxic(name)

    def set_enabled(self, proxy: str, enabled: bool) -> None:
        """Disabling closes every open connection and refuses new ones: a cut link."""
        if enabled:
            self._proxies[proxy].enable()
        else:
            self._proxies[proxy].disable()

    def toxics(self, proxy: str) -> list[str]:
        return sorted(self._proxies[proxy].toxics())

    def reset(self) -> None:
        """Every proxy enabled again, every toxic removed."""
        self._server.reset()
