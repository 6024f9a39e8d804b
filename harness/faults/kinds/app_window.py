"""The machinery of the faults that catch an app inside a window of its own (``crash_at_commit``,
``crash_in_produce``): protocol toxics on the app's links catch one of its requests on the wire,
and while it is caught the app is acted on; then it carries on.

Waiting on a clock or a count of outputs almost never finds the few milliseconds an app spends
between handing its outputs over and committing its inputs; catching the request on the wire
makes the window instead. The toxics are the ``protocol`` kind's own (``protocol.start``; healing
them waits for what they hold to go on), armed from the ``after``-th matching request on every
one of them (times 0), so a client that gives up on one and sends it again on a new connection
does not get it through while the app is acted on. Their hits are read with one Toxiproxy call
every 25 ms.

Actions on the app (``ACTIONS``), each ending with the app running again:

- ``kill``: SIGKILL; the next incarnation starts ``restart_after_s`` later;
- ``stop``: SIGTERM, a clean shutdown (the app's own close runs with its request still caught;
  SIGKILL after 30 s); the next incarnation starts ``restart_after_s`` after it exited;
- ``pause``: SIGSTOP for ``hold_s``, then SIGCONT (a long GC pause or a frozen VM): its session
  may expire meanwhile and its group move on without it;
- ``cut``: the app's links closed and refused for ``hold_s``, the app left running.

After a pause or a cut the toxics go before the app resumes, so its retries get through; an app
that exited meanwhile starts again, as its supervisor would start it.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from typing import Any

from harness.faults.kinds import protocol as protocol_kind
from harness.faults.kinds.base import (
    Direction,
    DrawContext,
    FaultContext,
    FaultKind,
    FaultSpec,
    Listeners,
    SelfEnding,
    on_links,
)
from harness.faults.roles import App, Brokers, Target
from harness.waits import Deadline, poll_until

ACTIONS = ("kill", "stop", "pause", "cut")
_POLL_S = 0.025  # how often the toxics' hits are read while a window is armed
# A window is given up when the app has sent no matching request at all for this long: an app
# idle at the end of its input (a user's app runs until it is stopped) sends nothing more.
_QUIET_S = 30.0
_STOP_GRACE_S = 30.0  # a stopped app's clean shutdown gets this long before SIGKILL


def window_spec(
    kind: FaultKind,
    direction: Direction,
    target: Target,
    after: int,
    times: int,
    action: str,
    hold_s: float,
    restart_after_s: float,
    listener: Listeners,
) -> FaultSpec:
    """A window fault's spec, its parameters checked: ``action`` kept only when not the default
    kill, ``hold_s`` only where it counts (a pause, a cut), so a kill's read back as they always were."""
    if not isinstance(target, App):
        raise ValueError(f"{kind.name} aims at an app (App(name))")
    if after < 1 or times < 1 or restart_after_s < 0 or hold_s <= 0:
        raise ValueError(f"{kind.name} needs after >= 1, times >= 1, hold_s > 0, restart_after_s >= 0")
    if action not in ACTIONS:
        raise ValueError(f"{kind.name}: unknown action {action!r}; one of {', '.join(ACTIONS)}")
    params: dict[str, Any] = {"after": after, "times": times}
    if action != "kill":
        params["action"] = action
    if action in ("pause", "cut"):
        params["hold_s"] = hold_s
    params["restart_after_s"] = restart_after_s
    return on_links(kind, target, listener, direction, **params)


def draw_action(rng: random.Random, ctx: DrawContext) -> tuple[str, float]:
    """An action, a kill in two of five, and a hold of half to one and a half session timeouts
    (a pause or a cut shorter than the session leaves the app in its group; a longer one does not)."""
    return rng.choice(("kill", "kill", "stop", "pause", "cut")), round(
        ctx.session_timeout_ms / 1000 * rng.uniform(0.5, 1.5), 1
    )


class Window(SelfEnding):
    """The windows of one fault, made one after another on a thread of their own; called, it
    stops (a restart due is done first) and returns the record: ``windows`` (one per catch:
    the API, when it was caught, what was done), ``hits`` (every request its toxics caught, as
    the protocol kind records them), ``windows_hit``, and ``missed`` when it caught fewer than
    its ``times``."""

    def __init__(self, ctx: FaultContext, spec: FaultSpec, catches: list[dict[str, Any]], what: str) -> None:
        super().__init__()
        assert isinstance(spec.target, App)
        self.ctx, self.spec, self.catches, self.what = ctx, spec, catches, what
        self.app = ctx.apps[spec.target.name]
        self.brokers = sorted(ctx.cluster.brokers)
        self.windows: list[dict[str, Any]] = []
        self.hits: list[dict[str, Any]] = []
        self.error = ""
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._armed: list[tuple[protocol_kind.Active, list[tuple[str, str]]]] = []
        self._thread = threading.Thread(target=self._run, name=f"{spec.kind.name}-{self.app.name}", daemon=True)

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
        """Arm, wait for a caught request, act, resume; False when the app finished first or the
        fault was stopped."""
        self._arm()
        # Not one deadline but a quiet one: it starts again whenever the app sends a matching request.
        matched, quiet = 0, Deadline(_QUIET_S)
        while not self._stop.is_set():
            hit, seen = self._first_hit()
            if hit is not None:
                break
            if seen != matched:
                matched, quiet = seen, Deadline(_QUIET_S)
            if not self.app.running():
                return False  # it finished, or died, before sending one: nothing to catch
            if quiet.expired():
                self.error = f"it sent no {self.what} for {_QUIET_S:.0f} s (idle at the end of its input?)"
                return False
            time.sleep(_POLL_S)
        else:
            return False
        action = self.spec.params.get("action", "kill")
        window = {"api": hit["api"], "caught_at": hit["at"], "action": action, "proxy": hit["proxy"]}
        self.windows.append(window)
        {"kill": self._kill, "stop": self._terminate, "pause": self._pause, "cut": self._cut}[action](window)
        window["resumed_at"] = time.time()
        return not self._stop.is_set()

    def _kill(self, window: dict[str, Any]) -> None:
        self.app.signal(signal.SIGKILL)
        window["killed_at"] = time.time()
        self._disarm()  # what is held goes on first: the next incarnation's traffic meets no toxic
        self._stop.wait(self.spec.params["restart_after_s"])
        self.app.restart()  # also when stopped: an app the fault killed comes back, as a kill's heal does

    def _terminate(self, window: dict[str, Any]) -> None:
        self.app.signal(signal.SIGTERM)
        poll_until(self.app.running, lambda running: not running, _STOP_GRACE_S, interval_s=0.1)
        if self.app.running():
            self.app.signal(signal.SIGKILL)
            window["killed_after_s"] = _STOP_GRACE_S  # the stop became a kill: the record says so
        window["exited_at"] = time.time()
        self._disarm()
        self._stop.wait(self.spec.params["restart_after_s"])
        self.app.restart()

    def _pause(self, window: dict[str, Any]) -> None:
        self.app.signal(signal.SIGSTOP)
        self._stop.wait(self.spec.params["hold_s"])
        self._disarm()
        self.app.signal(signal.SIGCONT)
        self._resumed()

    def _cut(self, window: dict[str, Any]) -> None:
        proxies = self.ctx.proxy_names(self.spec, self.brokers)
        self.ctx.disabled(proxies)
        for proxy in proxies:
            self.ctx.proxies.set_enabled(proxy, False)
        self._stop.wait(self.spec.params["hold_s"])
        self._disarm()
        for proxy in proxies:
            self.ctx.proxies.set_enabled(proxy, True)
        self._resumed()

    def _resumed(self) -> None:
        time.sleep(0.2)  # a SIGCONT or a reconnect the app cannot live through shows at once
        if not self.app.running():
            self.app.restart()

    def _arm(self) -> None:
        with self._lock:
            for params in self.catches:
                after = self.spec.params["after"]
                spec = protocol_kind.protocol(Brokers(), **params, after=after, times=0, listener=self.spec.listeners)
                active = protocol_kind.start(self.ctx, spec, self.brokers)
                self._armed.append((active, active.requests))

    def _disarm(self) -> None:
        with self._lock:
            armed, self._armed = self._armed, []
        for active, _ in armed:
            # Stops new matches, lets what is held go on, removes the toxics; its hits now say
            # what became of each caught request (a late copy's answer from the broker).
            self.hits += active()["hits"]

    def _first_hit(self) -> tuple[dict[str, Any] | None, int]:
        """The first request the window's toxics caught, and how many matching requests they
        have seen so far (one call for every proxy)."""
        with self._lock:
            armed = {toxic for _, requests in self._armed for toxic in requests}
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
                f"it finished or stopped before its next {self.what} (more input, or an earlier after, gives the "
                "fault its window)"
            )
            found["missed"] = f"{self.app.name} was caught at {len(self.windows)} of {wanted} {self.what}s: {why}"
        return found
