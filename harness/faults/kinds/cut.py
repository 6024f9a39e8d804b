"""cut: the target's proxies are disabled: open connections closed, new ones refused."""

from __future__ import annotations

import random

from harness.faults.kinds.base import LINK, DrawContext, FaultContext, FaultKind, FaultSpec, Heal, Listeners, on_links
from harness.faults.roles import Target


def cut(target: Target, listener: Listeners = ("client", "replication", "controller")) -> FaultSpec:
    """Refuse new connections and close open ones on the target's proxies."""
    return on_links(KIND, target, listener, "both")


def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Heal:
    proxies = ctx.proxy_names(spec, brokers)
    ctx.disabled(proxies)
    for proxy in proxies:
        ctx.proxies.set_enabled(proxy, False)

    def reconnect() -> None:
        for proxy in proxies:
            ctx.proxies.set_enabled(proxy, True)

    return reconnect


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    """The apps' links, or the links between brokers (a broker partitioned off), or all of them."""
    listeners = rng.choice(
        (
            (ctx.client_listener,),
            ("replication",),
            ("controller",),
            ("replication", "controller"),
            (ctx.client_listener, "replication", "controller"),
        )
    )
    return cut(ctx.broker(rng), listeners)


KIND = FaultKind("cut", LINK, "links closed and refused", cut, start, on_links=True, draw=draw)
