"""Faults as data: what a spec lets through, that it holds its kind itself, and what reaches
Toxiproxy, without a cluster."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest

from harness import faults as f
from harness.cluster.kafka import KafkaCluster
from harness.cluster.proxy import TO_BROKER
from harness.faults import Faults, FaultSpec, Node, kinds


class _Toxiproxy:
    """Records the toxics a ``Faults`` object adds and removes."""

    def __init__(self) -> None:
        self.added: list[dict[str, Any]] = []
        self.removed: list[str] = []

    def add_toxic(
        self, proxy: str, name: str, kind: str, stream: str, attributes: dict[str, Any], toxicity: float = 1.0
    ) -> None:
        self.added.append({"proxy": proxy, "name": name, "type": kind, "stream": stream, "toxicity": toxicity})

    def remove_toxic(self, proxy: str, name: str) -> None:
        self.removed.append(name)


def _faults() -> tuple[Faults, _Toxiproxy]:
    api = _Toxiproxy()
    cluster = SimpleNamespace(proxies=api, proxy_name=KafkaCluster.proxy_name)
    return Faults(cluster), api  # type: ignore[arg-type]


def test_a_toxic_acts_on_every_connection_unless_told_otherwise() -> None:
    faults, api = _faults()
    faults.inject(f.latency(Node(2), ms=100, direction="to_broker"))
    assert [t["toxicity"] for t in api.added] == [1.0]


def test_toxicity_reaches_toxiproxy_and_the_record_and_is_healed_like_any_toxic() -> None:
    faults, api = _faults()
    injected = faults.inject(f.latency(Node(2), ms=3000, direction="to_broker", toxicity=0.5))
    [added] = api.added
    assert (added["proxy"], added["stream"]) == (KafkaCluster.proxy_name(2, "client"), TO_BROKER)
    assert added["toxicity"] == 0.5
    assert injected.record()["toxicity"] == 0.5
    assert "toxicity=0.5" in injected.spec.describe()
    injected.heal()
    assert api.removed == [added["name"]]


@pytest.mark.parametrize("toxicity", [0.0, -0.1, 1.5])
def test_a_toxicity_outside_0_to_1_is_refused(toxicity: float) -> None:
    with pytest.raises(ValueError, match="toxicity"):
        f.latency(Node(1), ms=100, toxicity=toxicity)


@pytest.mark.parametrize("make", [f.kill, f.cut, f.pause], ids=lambda make: make.__name__)
def test_only_a_toxic_has_a_toxicity(make: Callable[[Node], FaultSpec]) -> None:
    with pytest.raises(ValueError, match="toxicity"):
        replace(make(Node(1)), toxicity=0.5)


def test_a_spec_holds_its_kind_and_two_specs_of_one_kind_are_equal() -> None:
    assert f.kill(Node(1)).kind is kinds.get("kill")
    assert f.kill(Node(1)) == f.kill(Node(1)) != f.stop(Node(1))
    assert f.latency(Node(1), ms=100).describe() == "latency(latency=100, jitter=0) broker 1 on client (both)"
