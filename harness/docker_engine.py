"""The Docker engine: reaching it with a clear error, and removing what the harness left."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import docker
from docker.errors import DockerException, NotFound
from docker.models.containers import Container

from harness.errors import HarnessError
from harness.settings import LABEL, LABEL_PID, LABEL_RUN

# testcontainers believes it runs inside a container when /.dockerenv exists (it does on
# these machines) and then hands out the bridge gateway instead of localhost; Ryuk's image
# cannot be pulled offline, so the harness cleans up by label itself. Set before
# testcontainers reads its configuration.
os.environ.setdefault("TESTCONTAINERS_CONNECTION_MODE", "docker_host")
os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")


def client() -> docker.DockerClient:
    """A client for a daemon that answers, or a HarnessError saying how to get one."""
    try:
        c = docker.from_env(timeout=120)
        c.ping()
        return c
    except DockerException as exc:
        raise HarnessError(
            f"Docker engine not reachable ({_short(exc)}): run `make setup` "
            "(starts or installs dockerd where it may) or start Docker yourself"
        ) from exc


def _short(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:160]


def _pid_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(include_live: bool = False, run_id: str | None = None, owner: int | None = None) -> list[str]:
    """Remove labelled containers and networks: every one, one cluster's (``run_id``) or one
    process's (``owner``); returns what was removed.

    Containers go at once (force, in parallel: a cluster's throwaway brokers need no clean
    shutdown), then their networks. Without ``run_id`` or ``owner``, a run whose owning
    process is still alive is left alone unless ``include_live``, so `clean` never pulls a
    cluster out from under a test session running next to it.
    """
    dc = client()
    selector = [f"{LABEL_RUN}={run_id}"] if run_id else [f"{LABEL_PID}={owner}"] if owner else [LABEL]
    spare_live = not (include_live or run_id or owner)

    def wanted(labels: dict[str, str]) -> bool:
        return not (spare_live and _pid_alive(labels.get(LABEL_PID, "")))

    def remove(item: Any) -> str | None:
        try:
            if isinstance(item, Container):
                item.remove(force=True, v=True)
                return f"container {item.name}"
            item.remove()
            return f"network {item.name}"
        except NotFound:
            return None

    containers = [c for c in dc.containers.list(all=True, filters={"label": selector}) if wanted(c.labels)]
    networks = [n for n in dc.networks.list(filters={"label": selector}) if wanted(n.attrs["Labels"] or {})]
    removed = []
    for batch in (containers, networks):  # a network goes only once its containers are gone
        if batch:
            with ThreadPoolExecutor(len(batch)) as pool:
                removed += [r for r in pool.map(remove, batch) if r]
    return removed
