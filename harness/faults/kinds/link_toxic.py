"""Link toxics: one Toxiproxy toxic per proxy of the target and per direction, removed to heal.
Each toxic kind module names its Toxiproxy type and builds its kind with ``toxic_kind``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.cluster.proxy import FROM_BROKER, TO_BROKER
from harness.faults.kinds.base import LINK, Draw, FaultContext, FaultKind, FaultSpec, Heal

STREAMS: dict[str, tuple[str, ...]] = {
    "to_broker": (TO_BROKER,),
    "from_broker": (FROM_BROKER,),
    "both": (TO_BROKER, FROM_BROKER),
}


def toxic_kind(
    name: str,
    toxic_type: str,
    summary: str,
    make: Callable[..., FaultSpec],
    draw: Draw | None = None,
    params_as: Mapping[str, str] | None = None,
) -> FaultKind:
    """A kind that adds Toxiproxy's ``toxic_type`` with the spec's params as its attributes
    (``params_as``: the constructor's arguments named otherwise there, see ``FaultKind``)."""

    def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Heal:
        added = add_toxics(ctx, spec, brokers, toxic_type, dict(spec.params))

        def heal() -> None:
            for proxy, toxic in added:
                ctx.proxies.remove_toxic(proxy, toxic)

        return heal

    return FaultKind(
        name, LINK, summary, make, start, on_links=True, per_connection=True, draw=draw, params_as=params_as or {}
    )


def add_toxics(
    ctx: FaultContext, spec: FaultSpec, brokers: list[int], toxic_type: str, attributes: dict[str, Any]
) -> list[tuple[str, str]]:
    """Add ``toxic_type`` on every proxy of ``brokers`` and stream of the spec's direction;
    returns (proxy, toxic name) of each."""
    added = []
    for proxy in ctx.proxy_names(spec, brokers):
        for stream in STREAMS[spec.direction]:
            toxic = ctx.toxic_name(spec.kind.name, stream)
            ctx.proxies.add_toxic(proxy, toxic, toxic_type, stream, attributes, spec.toxicity)
            added.append((proxy, toxic))
    return added
