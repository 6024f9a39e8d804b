"""The Docker engine: reaching it with a clear error, and removing what the harness left."""

from __future__ import annotations

import os

import docker
from docker.errors import DockerException, NotFound

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


def remove_leftovers(include_live: bool = False, run_id: str | None = None) -> list[str]:
    """Remove labelled containers and networks; returns what was removed.

    By default a run whose owning process is still alive is left alone, so `clean` never
    pulls a cluster out from under a test session running next to it.
    """
    dc = client()
    selector = [f"{LABEL_RUN}={run_id}"] if run_id else [LABEL]
    removed: list[str] = []
    for container in dc.containers.list(all=True, filters={"label": selector}):
        if not include_live and run_id is None and _pid_alive(container.labels.get(LABEL_PID, "")):
            continue
        try:
            container.remove(force=True, v=True)
            removed.append(f"container {container.name}")
        except NotFound:
            pass
    for network in dc.networks.list(filters={"label": selector}):
        if not include_live and run_id is None and _pid_alive(network.attrs["Labels"].get(LABEL_PID, "")):
            continue
        try:
            network.remove()
            removed.append(f"network {network.name}")
        except NotFound:
            pass
    return removed
