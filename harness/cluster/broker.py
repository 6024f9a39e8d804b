"""One broker of a cluster: its node id, its container, what state the container is in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from testcontainers.core.container import DockerContainer


@dataclass
class Broker:
    node_id: int
    alias: str
    container: DockerContainer

    def docker(self) -> Any:
        return self.container.get_wrapped_container()

    def status(self) -> str:
        c = self.docker()
        c.reload()
        return str(c.status)

    def log_tail(self, lines: int = 40) -> str:
        return self.docker().logs(tail=lines).decode(errors="replace")
