"""crash_at_commit: the app crashes while its offsets commit is on the wire.

The window that repeats a consume-transform-produce app's output is the one between handing
its outputs to Kafka and committing its input offsets; most apps spend milliseconds there, so a
kill on a clock or on a count of outputs almost never finds it. This kind makes the window
instead of waiting for it: a ``drop`` protocol toxic on every broker's links of the app's
listener swallows the app's next request that commits its group's offsets (``OffsetCommit``
for a plain or at-least-once app; ``AddOffsetsToTxn`` or ``TxnOffsetCommit`` for a
transactional one, whose outputs are then in an open transaction), recognised on the wire by
the group id the app commits to. As soon as one is swallowed the app is SIGKILLed, so it dies
with its outputs written and the commit that would cover them never carried out; a second
later its next incarnation starts. ``times`` such windows, one after another.

The fault ends by itself (``SelfEnding``): when its windows are done, or when the app finished
on its own before the next commit came (then the record says how many windows it hit, and a
pair's check or check-app's verdict says the fault missed). The app needs no change and writes
no ledger: the group id comes from the app's handle when the fault fires.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any

from harness.cluster.proxy import TO_BROKER
from harness.faults.kinds.base import COMMIT, Context, DrawContext, FaultKind, SelfEnding
from harness.faults.kinds.protocol import protocol
from harness.faults.roles import App, Brokers, Target
from harness.faults.specs import FaultSpec, Listeners, on_links

# The requests that commit a group's input offsets, each naming the group.
COMMIT_APIS = ("OffsetCommit", "AddOffsetsToTxn", "TxnOffsetCommit")
_POLL_S = 0.025  # how often the toxics' hits are read while a window is armed
# A window is given up when the app has sent no commit request at all for this long: an app
# idle at the end of its input (a user's app runs until it is stopped) commits nothing more.
_NO_COMMIT_S = 30.0


def crash_at_commit(
    target: Target, after: int = 2, times: int = 1, restart_after_s: float = 1.0, listener: Listeners = "client"
) -> FaultSpec:
    """SIGKILL the app while its ``after``-th commit request from now (of its group's offsets) is
    swallowed on the wire, then start it again ``restart_after_s`` later; ``times`` windows, each
    counted from the previous restart. ``listener``: where the app reaches the brokers."""
    if not isinstance(target, App):
        raise ValueError("crash_at_commit aims at an app (App(name))")
    if after < 1 or times < 1 or restart_after_s < 0:
        raise ValueError("crash_at_commit needs after >= 1, times >= 1, restart_after_s >= 0")
    return on_links(
        "crash_at_commit", target, listener, "to_broker", after=after, times=times, restart_after_s=restart_after_s
    )


def start(ctx: Context, spec: FaultSpec, brokers: list[int]) -> Window:
    assert isinstance(spec.target, App)
    app = ctx.apps[spec.target.name]
    if not app.group:
        raise ValueError(f"crash_at_commit: {spec.target} commits to no consumer group the harness knows")
    return Window(ctx, spec, app.group).start()


class Window(SelfEnding):
    """The windows of one ``crash_at_commit`` fault, made one after another on a thread of
    their own; called, it stops (a restart due is done first) and returns the record."""

    def __init__(self, ctx: Context, spec: FaultSpec, group: str) -> None:
        super().__init__()
        self.ctx, self.spec, self.group = ctx, spec, group
        assert isinstance(spec.target, App)
        self.app = ctx.apps[spec.target.name]
        self.proxies = ctx.proxy_names(spec, sorted(ctx.cluster.brokers))
        self.windows: list[dict[str, Any]] = []
        self.hits: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._armed: list[tuple[str, str]] = []
        self.error = ""
        self._thread = threading.Thread(target=self._run, name=f"crash-at-commit-{self.app.name}", daemon=True)

    def start(self) -> Window:
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for _ in range(self.spec.params["times"]):
                if not self._one_window():
                    break
        except Exception as exc:  # Toxiproxy or the app failed us: said in the record, not lost with the thread
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            self._disarm()
            self.ended.set()

    def _one_window(self) -> bool:
        """Arm, wait for a swallowed commit, kill, restart; False when the app finished first
        or the fault was stopped."""
        self._arm()
        matched, since = 0, time.monotonic()
        while not self._stop.is_set():
            hit, seen = self._first_hit()
            if hit is not None:
                break
            if seen != matched:
                matched, since = seen, time.monotonic()
            if not self.app.running():
                return False  # it finished, or died, before committing again: nothing to catch
            if time.monotonic() - since > _NO_COMMIT_S:
                self.error = f"it sent no commit request for {_NO_COMMIT_S:.0f} s (idle at the end of its input?)"
                return False
            time.sleep(_POLL_S)
        else:
            return False
        self.app.signal(signal.SIGKILL)
        window = {"api": hit["api"], "dropped_at": hit["at"], "killed_at": time.time(), "proxy": hit["proxy"]}
        self._disarm()
        self.hits.append(hit)
        self.windows.append(window)
        self._stop.wait(self.spec.params["restart_after_s"])
        self.app.restart()  # also when stopped: an app the fault killed comes back, as a kill's heal does
        window["restarted_at"] = time.time()
        return not self._stop.is_set()

    def _arm(self) -> None:
        with self._lock:
            for api in COMMIT_APIS:
                # Every commit from the after-th on is swallowed until the kill: a client that gave
                # up on one and sent it again on a new connection must not get it through.
                attributes = protocol(
                    Brokers(), api, "drop", after=self.spec.params["after"], times=0, group_id=self.group
                ).params
                for proxy in self.proxies:
                    name = self.ctx.toxic_name("crash_at_commit", TO_BROKER)
                    self.ctx.proxies.add_toxic(proxy, name, "kafka_request", TO_BROKER, attributes)
                    self._armed.append((proxy, name))

    def _disarm(self) -> None:
        with self._lock:
            for proxy, name in self._armed:
                self.ctx.proxies.remove_toxic(proxy, name)
            self._armed.clear()

    def _first_hit(self) -> tuple[dict[str, Any] | None, int]:
        """The first request a toxic of this window swallowed, and how many commit requests its
        toxics have seen so far (one call for every proxy)."""
        with self._lock:
            armed = set(self._armed)
            if not armed:
                return None, 0
            shown = self.ctx.proxies.proxies()
        mine = [
            (proxy, toxic.get("attributes", {}))
            for proxy, state in shown.items()
            for toxic in state.get("toxics") or []
            if (proxy, toxic.get("name")) in armed
        ]
        seen = sum(attributes.get("matched", 0) for _, attributes in mine)
        for proxy, attributes in mine:
            if attributes.get("hits"):
                return {**attributes["hits"][0], "proxy": proxy}, seen
        return None, seen

    def __call__(self) -> dict[str, Any]:
        self._stop.set()
        self._thread.join()
        found: dict[str, Any] = {"hits": self.hits, "windows": self.windows, "windows_hit": len(self.windows)}
        wanted = self.spec.params["times"]
        if len(self.windows) < wanted:
            # Nothing was proven where no window was caught: the schedule reports it (inconclusive).
            why = self.error or (
                "it finished or stopped before its next commit (more input, or an earlier after, gives the fault "
                "its window)"
            )
            found["missed"] = f"{self.app.name} was caught at {len(self.windows)} of {wanted} commits: {why}"
        return found


def draw(rng: Any, ctx: DrawContext) -> FaultSpec:
    """One of the apps (which commit to a group), killed at one of its next few commits, once or twice."""
    return crash_at_commit(
        rng.choice(ctx.apps), after=rng.choice((1, 2, 3)), times=rng.choice((1, 1, 2)), listener=ctx.client_listener
    )


KIND = FaultKind(
    "crash_at_commit",
    COMMIT,
    "SIGKILL an app while its offsets commit is swallowed on the wire, then start it again",
    crash_at_commit,
    start,
    on_links=True,
    draw=draw,
)
