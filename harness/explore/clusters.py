"""One cluster for many runs: started once, checked after every run, and started anew only
when a run left it unhealthy (``KafkaCluster.health``: a broker down or unregistered, the probe
topic not in sync, a toxic or a disabled proxy left behind)."""

from __future__ import annotations

from harness.cluster.kafka import KafkaCluster
from harness.errors import HarnessError
from harness.progress import say
from harness.settings import Settings
from harness.waits import poll_until

# How long a healed cluster may take to look as it started (a restarted broker catching up on
# the probe topic) before it counts as unhealthy.
HEALTH_GRACE_S = 30.0


class Session:
    """Starts its cluster on first use and stops it at the end; or uses one it is given (a test
    session's), which it never stops and cannot start anew."""

    def __init__(
        self, settings: Settings, broker_settings: dict[str, str], cluster: KafkaCluster | None = None
    ) -> None:
        self.settings, self.broker_settings = settings, broker_settings
        self.restarts = 0
        self._cluster = cluster
        self._given = cluster is not None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._cluster is not None and not self._given:
            self._cluster.stop()

    @property
    def cluster(self) -> KafkaCluster:
        if self._cluster is None:
            self._cluster = KafkaCluster(self.settings).with_broker_properties(self.broker_settings).start()
        return self._cluster

    def check(self, grace_s: float = HEALTH_GRACE_S) -> list[str]:
        """After a run: the cluster's problems if it had to be started anew (empty: it was fine)."""
        if self._cluster is None:
            return []
        polled = poll_until(self._problems, lambda problems: not problems, grace_s, interval_s=0.5)
        if polled.done:
            return []
        problems = polled.last
        if self._given:
            raise HarnessError(f"the cluster given is unhealthy after a run: {'; '.join(problems)}")
        say(f"cluster unhealthy ({'; '.join(problems)}): starting a new one")
        self._cluster.stop()
        self._cluster = None
        self.restarts += 1
        return problems

    def _problems(self) -> list[str]:
        assert self._cluster is not None
        try:
            return self._cluster.health()
        except Exception as exc:  # Docker or the Toxiproxy API not answering is a problem too
            return [f"{type(exc).__name__}: {exc}"]
