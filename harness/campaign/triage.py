"""Each failure signature labelled against the catalogue of known upstream issues
(``known_issues.toml`` beside this module; its form in docs/campaign.md):

- *known (id)*: an entry's findings or errors match, on a release it records as affected;
- *expected by design (id)*: an entry of documented behaviour matches;
- *known, outside its recorded releases (id)*: an entry matches on a release it does not record as
  affected: a regression, or a range recorded wrong; worth a look;
- *unknown*: nothing matches. Only these are candidate findings.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from harness import versions
from harness.campaign.signature import Signature
from harness.errors import HarnessError

CATALOGUE = Path(__file__).with_name("known_issues.toml")
KNOWN, BY_DESIGN, OUTSIDE, UNKNOWN = "known", "expected by design", "known, outside its recorded releases", "unknown"
STATUSES = ("open", "fixed", "fixed on trunk", "by design")
COMPONENTS = ("kafka", "librdkafka", "java")


@dataclass(frozen=True)
class KnownIssue:
    id: str
    link: str
    title: str
    component: str
    affected: tuple[str, ...]
    status: str
    fixed: str = ""
    client: str = ""
    findings: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    apis: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()
    pair: str = ""

    def matches(self, signature: Signature, apis: frozenset[str], roles: frozenset[str]) -> bool:
        client = signature.client.split(" ")[0]
        if (self.component != "kafka" and client != self.component) or (self.client and client != self.client):
            return False
        if (self.apis and not apis & set(self.apis)) or (self.roles and not roles & set(self.roles)):
            return False
        shown = set(self.findings) & set(signature.findings)
        stopped = any(e in s for e in self.errors for s in signature.errors)
        return bool(shown or stopped)

    def affects(self, signature: Signature) -> bool:
        release = signature.kafka if self.component == "kafka" else signature.client.partition(" ")[2]
        if not versions.is_release(release):
            return False
        return any(versions.key(lo) <= versions.key(release) <= versions.key(hi) for lo, hi in _ranges(self.affected))


@dataclass(frozen=True)
class Label:
    kind: str
    issue: KnownIssue | None = None
    others: tuple[str, ...] = field(default=())  # further entries that match as well

    def __str__(self) -> str:
        return f"{self.kind} ({self.issue.id})" if self.issue else self.kind


def catalogue(path: Path | None = None) -> list[KnownIssue]:
    """The known issues in ``path`` (default: the catalogue beside this module), read anew each time."""
    path = path or CATALOGUE
    try:
        doc = tomllib.loads(path.read_text())
        entries = [
            KnownIssue(**{k: tuple(v) if isinstance(v, list) else v for k, v in e.items()}) for e in doc["issue"]
        ]
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
        raise HarnessError(f"known-issue catalogue {path}: {exc}; its form is in docs/campaign.md") from exc
    for e in entries:
        if e.status not in STATUSES or e.component not in COMPONENTS:
            raise HarnessError(
                f"known-issue catalogue {path}: {e.id}: status one of {STATUSES}, component one of {COMPONENTS}"
            )
        _ranges(e.affected)
    return entries


def label(signature: Signature, apis: frozenset[str], roles: frozenset[str], known: list[KnownIssue]) -> Label:
    """``signature``'s label (``apis``: the requests its runs' faults caught; ``roles``: the kinds
    of role its runs' faults hit)."""
    matching = [e for e in known if e.matches(signature, apis, roles)]
    in_range = [e for e in matching if e.affects(signature)]
    ranked = (
        [(KNOWN, e) for e in in_range if e.status != "by design"]
        + [(BY_DESIGN, e) for e in in_range if e.status == "by design"]
        + [(OUTSIDE, e) for e in matching if e not in in_range]
    )
    if not ranked:
        return Label(UNKNOWN)
    kind, first = ranked[0]
    return Label(kind, first, tuple(e.id for _, e in ranked[1:]))


def _ranges(affected: tuple[str, ...]) -> list[tuple[str, str]]:
    found = []
    for span in affected:
        lo, sep, hi = span.partition("..")
        if not sep or not versions.is_release(lo) or not versions.is_release(hi):
            raise HarnessError(f"known-issue catalogue: affected range {span!r} is not LO..HI of releases X.Y.Z")
        found.append((lo, hi))
    return found
