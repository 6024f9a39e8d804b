"""protocol: hold, drop or cut one Kafka API's request, or delay or falsify its answer, on the
target's links.

The work is done inside Toxiproxy by the harness's own toxics (Go, ``toxiproxy/kafkatoxic``),
which read Kafka's framing: ``kafka_request`` on the stream towards the broker matches
requests by API key (and, optionally, transactional.id, group id or client id) and acts on
those its trigger picks; ``kafka_response`` on the stream back sees the answers to the requests
it tagged (every action but ``drop`` tags them) and acts on them. Actions:

- ``hold``: the request, and everything after it on that connection (TCP keeps order), waits
  ``duration_ms`` before it reaches the broker, even if the client closed the connection
  meanwhile (a late copy: the connection then stays open for the broker's answer, which the
  hit records, up to 5 s);
- ``drop``: the request and everything after it on that connection vanish (the client times out);
- ``cut_after``: the request reaches the broker; the connection is closed where its answer
  comes back, so the broker carried it out and the client never hears (it cannot know whether
  it took effect);
- ``delay_response``: the broker answers at once; the client sees the answer ``duration_ms`` late;
- ``error``: the broker processes the request; the client sees ``error`` (a Kafka error
  name, e.g. ``NOT_COORDINATOR``) in the answer's top-level error code.

The trigger: from the ``after``-th matching request on, at most ``times`` of them (0: every
one), each with ``probability`` drawn from ``seed``. Healing stops new matches; what is held
still goes on when its time is up (the heal waits for it), then the toxics go. Every request
acted on is a *hit* in the fault's record: time, API, version, correlation id, client id,
connection, transactional.id, commit or abort, when it was delivered or answered, broker.

The API table (names, keys, flexible versions, leading fields) is ``toxiproxy/kafkaproto/apis.json``,
shared with the Go side.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from confluent_kafka import KafkaError

from harness.cluster.images import TOXIPROXY_SOURCES
from harness.cluster.proxy import FROM_BROKER, TO_BROKER, ToxiproxyError
from harness.errors import HarnessError
from harness.faults.kinds.base import (
    PROTOCOL,
    DrawContext,
    FaultContext,
    FaultKind,
    FaultSpec,
    Heal,
    Listeners,
    on_links,
)
from harness.faults.plan import GroupId, TransactionalId
from harness.faults.roles import Brokers, Leader, Target, TxnCoordinator
from harness.progress import say
from harness.waits import Polled, poll_until

if TYPE_CHECKING:
    from harness.faults.inject import Faults

ACTIONS = ("hold", "drop", "cut_after", "delay_response", "error")
# Every action but drop tags the request, so its answer is seen on the way back (by a
# kafka_response toxic): the answer it acts on, or for a hold what the broker made of the late copy.
ANSWER_SEEN = ("hold", "cut_after", "delay_response", "error")
# Beyond the longest hold, how long a heal waits for what is held to go on.
_HEAL_SLACK_S = 10.0


@cache
def apis() -> dict[str, dict[str, Any]]:
    """The shared API table, by Kafka's API name."""
    table = json.loads((TOXIPROXY_SOURCES / "kafkaproto" / "apis.json").read_text())
    return {api["name"]: api for api in table["apis"]}


def protocol(
    target: Target,
    api: str,
    action: str,
    duration_ms: int = 0,
    error: str = "",
    after: int = 1,
    times: int = 1,
    probability: float = 1.0,
    seed: int = 0,
    transactional_id: str | TransactionalId = "",
    group_id: str | GroupId = "",
    client_id: str = "",
    where: dict[str, Any] | None = None,
    listener: Listeners = "client",
) -> FaultSpec:
    """Act on requests of Kafka API ``api`` (e.g. "EndTxn") on the target's links: ``action`` is
    hold, drop, cut_after, delay_response (both for ``duration_ms``) or error (answer with
    Kafka error ``error``, e.g. "NOT_COORDINATOR"). Only requests naming ``transactional_id``,
    ``group_id`` or ``client_id``, and whose leading fields have the values ``where`` gives
    (e.g. ``{"partition": 1}``: the API table's field names), when given; from the ``after``-th
    match, ``times`` of them (0: every one), each with ``probability`` drawn from ``seed``."""
    table = apis()
    if api not in table:
        raise ValueError(f"unknown Kafka API {api!r}; one of {', '.join(sorted(table))}")
    if action not in ACTIONS:
        raise ValueError(f"unknown protocol action {action!r}; one of {', '.join(ACTIONS)}")
    if action in ("hold", "delay_response") and duration_ms <= 0:
        raise ValueError(f"{action} needs duration_ms > 0")
    fields = {f[0] for f in table[api].get("request", []) if f[1] != "array"}
    for name, value in (("transactional_id", transactional_id), ("group_id", group_id), *(where or {}).items()):
        if value != "" and name not in fields:
            raise ValueError(f"{api} requests have no field {name} the toxics read; one of {sorted(fields) or 'none'}")
    if after < 1 or times < 0 or not 0 < probability <= 1:
        raise ValueError("after must be >= 1, times >= 0 (0: every one), probability in (0, 1]")
    params: dict[str, Any] = {"api": api, "action": action}
    if duration_ms:
        params["duration_ms"] = duration_ms
    if action == "error":
        params["error"] = error
        params["error_code"] = error_code(api, error)
    params.update({"after": after, "times": times})
    if probability < 1:
        params.update({"probability": probability, "seed": seed})
    params.update({k: v for k, v in (("transactional_id", transactional_id), ("group_id", group_id)) if v})
    if client_id:
        params["client_id"] = client_id
    if where:
        params["where"] = dict(where)
    direction = "both" if action in ANSWER_SEEN else "to_broker"
    return on_links(KIND, target, listener, direction, **params)


def _top_level_error(api: dict[str, Any]) -> bool:
    """Whether some version of the API's answer has an error code outside any array (the
    table lists a response's leading fields in order, into the first element of arrays)."""
    for name, kind, _ in api.get("response", []):
        if name == "error_code":
            return True
        if kind == "array":
            return False
    return False


def error_code(api: str, name: str) -> int:
    """The code of Kafka error ``name`` (confluent-kafka's table of broker errors)."""
    if not _top_level_error(apis()[api]):
        answering = sorted(n for n, a in apis().items() if _top_level_error(a))
        raise ValueError(f"{api} answers have no top-level error code; error works on {', '.join(answering)}")
    code = getattr(KafkaError, name, None)
    if not isinstance(code, int) or code <= 0:
        raise ValueError(f"unknown Kafka error {name!r} (a broker error name, e.g. NOT_COORDINATOR)")
    return code


def _attributes(spec: FaultSpec) -> dict[str, Any]:
    """The kafka_request toxic's attributes (toxiproxy/kafkatoxic/request.go)."""
    return {k: v for k, v in spec.params.items() if k != "error"}


def start(ctx: FaultContext, spec: FaultSpec, brokers: list[int]) -> Heal:
    attributes = _attributes(spec)
    proxies = ctx.proxy_names(spec, brokers)
    answers: list[tuple[str, str]] = []
    requests: list[tuple[str, str]] = []
    try:
        if spec.params["action"] in ANSWER_SEEN:  # in place before any request is tagged
            for proxy in proxies:
                answers.append((proxy, ctx.toxic_name(KIND.name, FROM_BROKER)))
                ctx.proxies.add_toxic(proxy, answers[-1][1], "kafka_response", FROM_BROKER, {})
        for proxy in proxies:
            requests.append((proxy, ctx.toxic_name(KIND.name, TO_BROKER)))
            ctx.proxies.add_toxic(proxy, requests[-1][1], "kafka_request", TO_BROKER, attributes)
    except ToxiproxyError as exc:
        for proxy, name in requests + answers:
            ctx.proxies.remove_toxic(proxy, name)
        if "toxic" in str(exc).lower() and "type" in str(exc).lower():
            raise HarnessError(
                "protocol faults need the harness's own Toxiproxy (toxiproxy/ in this repository): "
                "unset KEH_TOXIPROXY_IMAGE and run `kafka-harness images build`"
            ) from exc
        raise
    broker_of = {proxy: b for b in brokers for proxy in ctx.proxy_names(spec, [b])}
    return Active(ctx, attributes, requests, answers, broker_of, spec.params.get("duration_ms", 0) / 1000)


class Active:
    """A protocol fault in place: called, it heals (``Heal``); meanwhile it can say how many
    requests it has hit so far (``hit_count``, for ``Hits``)."""

    def __init__(
        self,
        ctx: FaultContext,
        attributes: dict[str, Any],
        requests: list[tuple[str, str]],
        answers: list[tuple[str, str]],
        broker_of: dict[str, int],
        held_s: float,
    ) -> None:
        self.ctx, self.attributes, self.requests, self.answers = ctx, attributes, requests, answers
        self.broker_of, self.wait_s = broker_of, held_s + _HEAL_SLACK_S

    def hit_count(self) -> int:
        return sum(self.ctx.proxies.toxic(proxy, name)["attributes"]["fired"] for proxy, name in self.requests)

    def stop_matching(self) -> None:
        """No new request is matched from now on; what is held still goes on when its time is up."""
        for proxy, name in self.requests:
            self.ctx.proxies.update_toxic(proxy, name, {**self.attributes, "disarmed": True})

    def __call__(self) -> dict[str, Any]:
        """Stop new matches, wait for what is held to go on, read the hits, remove the toxics."""
        self.stop_matching()
        settled = _settled(self.ctx, self.requests, self.wait_s)
        shown = settled.last
        for proxy, name in self.requests + self.answers:
            self.ctx.proxies.remove_toxic(proxy, name)
        hits = [
            {**hit, **_error_name(hit), "broker": self.broker_of[proxy], "proxy": proxy}
            for proxy, state in shown.items()
            for hit in state.get("hits") or []
        ]
        found: dict[str, Any] = {
            "hits": sorted(hits, key=lambda h: h["at"]),
            "matched": sum(state.get("matched", 0) for state in shown.values()),
        }
        if not settled.done:
            # The toxics went with requests still in them: their hits may lack what became of
            # them (delivered_at, the broker's answer), so the record says so rather than look whole.
            held = {proxy: state["pending"] for proxy, state in shown.items() if state.get("pending", 0)}
            found["unsettled"] = (
                f"{sum(held.values())} request(s) still held after {settled.waited_s:.0f} s, removed with the toxics "
                f"(pending per proxy: {held})"
            )
            say(f"protocol fault on {self.attributes.get('api')}: {found['unsettled']}")
        return found


@dataclass(frozen=True)
class Hits:
    """A condition: a protocol fault of this side on Kafka API ``api``, still in place, has hit
    at least ``at_least`` requests (e.g. a request it holds is on the wire: what a second
    fault may wait for)."""

    api: str
    at_least: int = 1

    def holds(self, faults: Faults) -> bool:
        return any(
            i.spec.kind is KIND
            and i.spec.params["api"] == self.api
            and i.healed_at is None
            and isinstance(i.undo, Active)
            and i.undo.hit_count() >= self.at_least
            for i in faults.log
        )

    def __str__(self) -> str:
        return f"a protocol fault on {self.api} hit >= {self.at_least} request(s)"


def _error_name(hit: dict[str, Any]) -> dict[str, str]:
    """The broker's answer by Kafka's name for it (``NONE`` for 0), where one was seen."""
    code = hit.get("broker_error_code")
    if code is None:
        return {}
    names = {getattr(KafkaError, n): n for n in dir(KafkaError) if n.isupper() and not n.startswith("_")}
    return {"broker_error": "NONE" if code == 0 else names.get(code, f"error {code}")}


def _settled(ctx: FaultContext, requests: list[tuple[str, str]], wait_s: float) -> Polled[dict[str, dict[str, Any]]]:
    """Each request toxic's attributes once nothing it holds is pending (not done: ``wait_s`` passed)."""
    return poll_until(
        lambda: {proxy: ctx.proxies.toxic(proxy, name)["attributes"] for proxy, name in requests},
        lambda shown: all(state.get("pending", 0) == 0 for state in shown.values()),
        wait_s,
        interval_s=0.1,
    )


# What explore draws from: the APIs of producing, consuming, transactions and groups, on the
# apps' links; and the requests brokers send each other about transactions (a partition
# leader's verification AddPartitionsToTxn, the coordinator's WriteTxnMarkers).
_CLIENT_APIS = (
    "Produce",
    "Fetch",
    "Metadata",
    "FindCoordinator",
    "InitProducerId",
    "AddPartitionsToTxn",
    "AddOffsetsToTxn",
    "TxnOffsetCommit",
    "EndTxn",
    "OffsetCommit",
    "OffsetFetch",
    "JoinGroup",
    "SyncGroup",
    "Heartbeat",
)
_BROKER_APIS = ("AddPartitionsToTxn", "WriteTxnMarkers")
# Errors a coordinator really answers, which clients must take in their stride.
_DRAWN_ERRORS = (
    "NOT_COORDINATOR",
    "COORDINATOR_LOAD_IN_PROGRESS",
    "COORDINATOR_NOT_AVAILABLE",
    "CONCURRENT_TRANSACTIONS",
)
# Holds first: a request that reaches the broker after its client gave up on it is how the
# transaction bugs of KIP-890's family show (KAFKA-14402, KAFKA-17754, KAFKA-20785).
_ACTION_WEIGHTS = {"hold": 3, "delay_response": 2, "drop": 1, "cut_after": 1, "error": 1}
_LATE_SHARE = 3 / 4  # the share of holds drawn past the request timeout, the rest around a timeout
# The broker each API goes to, by (API, between brokers): a fault elsewhere would match nothing.
# Group APIs go to the group's coordinator, whose id a run picks only once it runs: any broker.
_GOES_TO: dict[tuple[str, bool], tuple[type, ...]] = {
    **{(api, False): (Leader, Brokers) for api in ("Produce", "Fetch")},
    **{
        (api, False): (TxnCoordinator, Brokers)
        for api in ("InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn")
    },
    ("AddPartitionsToTxn", True): (TxnCoordinator, Brokers),  # a leader's verification
    ("WriteTxnMarkers", True): (Leader, Brokers),  # the coordinator's markers
}


def draw(rng: random.Random, ctx: DrawContext) -> FaultSpec:
    """One API's requests on the apps' links (or, a fifth of the time, between brokers), on the
    broker that API goes to, acted on from an early match, once, a few times or every time,
    maybe by chance; mostly held past the client's request timeout (a late copy), or held or
    delayed for a time around one of its timeouts."""
    between_brokers = rng.random() < 0.2
    sent = [a for a in _CLIENT_APIS if a in ctx.apis] or list(_CLIENT_APIS)
    api = rng.choice(_BROKER_APIS if between_brokers else sent)
    action = rng.choices(ACTIONS, weights=[_ACTION_WEIGHTS[a] for a in ACTIONS])[0]
    if action == "error" and not _top_level_error(apis()[api]):
        action = "cut_after"
    late = action == "hold" and rng.random() < _LATE_SHARE
    probability = rng.choice((1.0, 1.0, 0.5))
    return protocol(
        ctx.broker(rng, *_GOES_TO.get((api, between_brokers), ())),
        api,
        action,
        duration_ms=_held_ms(rng, ctx, late) if action in ("hold", "delay_response") else 0,
        error=rng.choice(_DRAWN_ERRORS) if action == "error" else "",
        after=rng.choice((1, 2, 5, 20)),
        times=rng.choice((1, 1, 3, 0)),
        probability=probability,
        seed=rng.randrange(1 << 31) if probability < 1 else 0,
        listener="replication" if between_brokers else ctx.client_listener,
    )


def _held_ms(rng: random.Random, ctx: DrawContext, late: bool) -> int:
    return ctx.past_request_timeout_ms(rng) if late else ctx.around_timeout_ms(rng)


KIND = FaultKind(
    "protocol",
    PROTOCOL,
    "one Kafka API's requests held, dropped or cut, or its answers delayed or falsified",
    protocol,
    start,
    on_links=True,
    draw=draw,
)
