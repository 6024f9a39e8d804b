"""The contract between the harness and a user's own consume-transform-produce app, in one
place (docs/your-app.md says the same for people): what the app is given, what its input looks
like, and how each of its outputs must name the input it came from.

**Given** (environment variables, ``ENVIRONMENT``): the bootstrap servers of the app's own
links (a Toxiproxy listener no harness client uses, so "the app's links" can be cut alone),
its input and output topics, the consumer group every instance joins, a transactional.id
prefix (instance ``n`` uses ``<prefix>-<n>``, the same id in every restart of that instance, so
a restart fences the one before it), the instance number and how many there are.

**Input**: records of the harness's producer (harness.history.records): value
``<id>|<padding>``, key ``k0`` … ``k<n>`` (keys are shared by many inputs, as real keys are, so
a copied key cannot name one input), and the header ``keh-source`` holding the id. They are
written in transactions, some of them aborted: an app that reads uncommitted data sees those.

**Output**: every record of the output topic names one input, by the first of these that
applies:

1. a user's extractor (``--extract module:function``): ``function(key, value, headers)``
   returns the input id, or None when the record names none;
2. the header ``keh-source`` with the input's id in decimal (an app that copies its input's
   headers onto its output does this without a line of code; Kafka Streams copies them);
3. the value's head: the input's id before the first ``|``, as in the input's own value
   (an app that keeps its input's value, or writes ``<id>|anything``).

An output that names no input, or an id the harness never wrote, breaks the contract: the check
stops with one line saying which record and why, not with a verdict about records it cannot
attribute.

The app must commit its input offsets to its group (in its transactions, or by any other
means): that is how the harness knows it has caught up, and when nothing was ever committed
nor written, that it never read.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError
from harness.history.records import SOURCE_HEADER, UNDECODABLE_ID, decode_id

DOCS = "docs/your-app.md"

BOOTSTRAP_SERVERS = "KEH_BOOTSTRAP_SERVERS"
INPUT_TOPIC = "KEH_INPUT_TOPIC"
OUTPUT_TOPIC = "KEH_OUTPUT_TOPIC"
GROUP_ID = "KEH_GROUP_ID"
TRANSACTIONAL_ID_PREFIX = "KEH_TRANSACTIONAL_ID_PREFIX"
INSTANCE = "KEH_INSTANCE"
INSTANCES = "KEH_INSTANCES"
ENVIRONMENT = {
    BOOTSTRAP_SERVERS: "bootstrap.servers, through the app's own links (a Toxiproxy listener of its own)",
    INPUT_TOPIC: "the topic to consume",
    OUTPUT_TOPIC: "the topic to produce one output per input to",
    GROUP_ID: "the consumer group every instance joins; commit the input offsets to it",
    TRANSACTIONAL_ID_PREFIX: "transactional.id of instance n: <prefix>-<n>, the same after every restart",
    INSTANCE: "this instance's number, from 1",
    INSTANCES: "how many instances run",
}

# ``function(key, value, headers)``: the input id an output names, or None.
Extractor = Callable[[bytes | None, bytes | None, dict[str, bytes]], int | None]


class ContractError(HarnessError):
    """The app does not do what the contract asks (it crashed at start, never read, or wrote an
    output that names no input): one line saying what and where to look."""


def environment(
    bootstrap: str, input_topic: str, output_topic: str, group: str, prefix: str, instance: int, instances: int
) -> dict[str, str]:
    return {
        BOOTSTRAP_SERVERS: bootstrap,
        INPUT_TOPIC: input_topic,
        OUTPUT_TOPIC: output_topic,
        GROUP_ID: group,
        TRANSACTIONAL_ID_PREFIX: prefix,
        INSTANCE: str(instance),
        INSTANCES: str(instances),
    }


def group_id(output_topic: str) -> str:
    """The app's consumer group: named after its output topic, which is new in every run."""
    return f"{output_topic}-group"


def transactional_id_prefix(output_topic: str) -> str:
    """The prefix of the app's transactional.ids, named after its output topic as the group is: a
    fault schedule, which knows the output topic, can aim at their coordinators."""
    return f"{output_topic}-txn"


def transactional_id(prefix: str, instance: int) -> str:
    """The transactional.id instance ``instance`` is asked to use (a fault target: TxnCoordinator)."""
    return f"{prefix}-{instance}"


@dataclass(frozen=True)
class Naming:
    """How an output names its input: ``extract`` (``module:function``, empty: none), else the
    ``keh-source`` header, else the value's head."""

    extract: str = ""

    def extractor(self) -> Extractor | None:
        return load_extractor(self.extract) if self.extract else None

    def sources(self, keys: list[bytes | None], values: list[bytes | None], headers: list[object]) -> list[int | None]:
        """The input id each record names, or None."""
        extractor = self.extractor()
        found = []
        for key, value, raw in zip(keys, values, headers, strict=True):
            named = _headers(raw)
            if extractor is not None:
                found.append(_checked(extractor(key, value, named), self.extract))
                continue
            header = named.get(SOURCE_HEADER)
            record_id = decode_id(header if header is not None else value)
            found.append(None if record_id == UNDECODABLE_ID else record_id)
        return found

    def describe(self) -> str:
        return f"--extract {self.extract}" if self.extract else f"the {SOURCE_HEADER} header or the value's head"


def _headers(raw: object) -> dict[str, bytes]:
    """A read-back row's headers (a list of {key, value}, or of pairs) as a dict; the last wins."""
    named: dict[str, bytes] = {}
    for item in raw or []:  # type: ignore[attr-defined]
        key, value = (item["key"], item["value"]) if isinstance(item, dict) else item
        named[key] = value or b""
    return named


def _checked(found: object, extract: str) -> int | None:
    if found is None or (isinstance(found, int) and not isinstance(found, bool) and found >= 0):
        return found  # type: ignore[return-value]
    raise ContractError(f"--extract {extract} returned {found!r}: it must return an input id (an int >= 0) or None")


def load_extractor(spec: str) -> Extractor:
    """``module:function`` from the current directory or the Python path, checked now."""
    module_name, _, function = spec.partition(":")
    if not module_name or not function:
        raise ContractError(f"--extract {spec!r}: give it as module:function (e.g. my_outputs:input_id)")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: say which and why, in one line
        raise ContractError(f"--extract {spec}: cannot import {module_name}: {type(exc).__name__}: {exc}") from exc
    found = getattr(module, function, None)
    if not callable(found):
        raise ContractError(f"--extract {spec}: {module_name} has no function {function}")
    return found  # type: ignore[no-any-return]


# --- the one-line reasons a check stops without a verdict --------------------------------------


def crashed_at_start(app: str, exit_code: int, seconds: float, out: Path, last_line: str) -> ContractError:
    said = f": {last_line.strip()[:200]}" if last_line.strip() else ""
    return ContractError(
        f"{app} exited with status {exit_code} {seconds:.1f}s after it started, before committing any input "
        f"offset (it crashed on start){said}; its output: {out}"
    )


def never_read(app: str, group: str, input_topic: str, waited_s: float) -> ContractError:
    return ContractError(
        f"{app} ran {waited_s:.0f}s but never read: no output, and group {group} committed no offset of "
        f"{input_topic}; read ${INPUT_TOPIC} in group ${GROUP_ID} and commit its offsets (see {DOCS})"
    )


def never_committed(app: str, group: str, outputs: int) -> ContractError:
    return ContractError(
        f"{app} wrote {outputs} output records but group {group} never committed an input offset, so the "
        f"harness cannot tell when it is done; commit the input offsets to ${GROUP_ID} (see {DOCS})"
    )


def names_no_input(where: str, value: bytes | None, naming: Naming) -> ContractError:
    shown = repr((value or b"")[:60])
    return ContractError(
        f"output {where} names no input (value {shown}): an output must name its input by "
        f"{naming.describe()} (see {DOCS})"
    )


def names_unknown_input(where: str, record_id: int) -> ContractError:
    return ContractError(
        f"output {where} names input {record_id}, which the harness never wrote: an output must name the input "
        f"it came from (see {DOCS})"
    )
