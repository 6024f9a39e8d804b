"""Toxiproxy's HTTP API, spoken directly (stdlib only), one object per server.

Each cluster has its own Toxiproxy, so one process may drive several at once (a scenario
side with a cluster of its own runs beside the shared one); an API object holds nothing
but its server's address.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

# Toxiproxy's stream names, seen from the proxy: "upstream" carries bytes from the client
# to the server (the broker), "downstream" from the broker back to the client.
TO_BROKER = "upstream"
FROM_BROKER = "downstream"


class ToxiproxyError(RuntimeError):
    pass


class ToxiproxyAPI:
    def __init__(self, host: str, port: int, timeout_s: float = 10) -> None:
        self.base = f"http://{host}:{port}"
        self.timeout_s = timeout_s

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.base + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                text = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode(errors="replace")
            raise ToxiproxyError(f"Toxiproxy {method} {path}: {exc.code} {detail}") from exc
        return json.loads(text) if text.strip() else None

    def running(self) -> bool:
        # A real request: Docker's port proxy accepts TCP connections before the server
        # listens, so a connect alone proves nothing.
        try:
            self._call("GET", "/version")
        except (OSError, ToxiproxyError):
            return False
        return True

    def create(self, name: str, listen: str, upstream: str) -> None:
        self._call("POST", "/proxies", {"name": name, "listen": listen, "upstream": upstream, "enabled": True})

    def add_toxic(
        self, proxy: str, name: str, kind: str, stream: str, attributes: dict[str, Any], toxicity: float = 1.0
    ) -> None:
        """``toxicity``: the chance that the toxic acts on a connection, drawn for each connection
        when the toxic is added (for those open) or when the connection opens."""
        toxic = {"name": name, "type": kind, "stream": stream, "toxicity": toxicity, "attributes": attributes}
        self._call("POST", f"/proxies/{proxy}/toxics", toxic)

    def toxic(self, proxy: str, name: str) -> dict[str, Any]:
        """A toxic as the server shows it (its ``attributes`` include what a protocol toxic hit)."""
        found: dict[str, Any] = self._call("GET", f"/proxies/{proxy}/toxics/{name}")
        return found

    def update_toxic(self, proxy: str, name: str, attributes: dict[str, Any], toxicity: float = 1.0) -> None:
        """New attributes for a toxic. Toxiproxy re-draws each connection's chance from
        ``toxicity`` on every update, so it is always sent (1: every connection)."""
        self._call("POST", f"/proxies/{proxy}/toxics/{name}", {"attributes": attributes, "toxicity": toxicity})

    def remove_toxic(self, proxy: str, name: str) -> None:
        self._call("DELETE", f"/proxies/{proxy}/toxics/{name}")

    def set_enabled(self, proxy: str, enabled: bool) -> None:
        """Disabling closes every open connection and refuses new ones: a cut link."""
        self._call("POST", f"/proxies/{proxy}", {"enabled": enabled})

    def proxies(self) -> dict[str, dict[str, Any]]:
        """Every proxy by name, as the server shows it (``enabled``, ``toxics``)."""
        found: dict[str, dict[str, Any]] = self._call("GET", "/proxies")
        return found

    def toxics(self, proxy: str) -> list[str]:
        return sorted(t["name"] for t in self._call("GET", f"/proxies/{proxy}/toxics"))

    def reset(self) -> None:
        """Every proxy enabled again, every toxic removed."""
        self._call("POST", "/reset")
