"""The static rules over every config file: unknown, unchecked, misplaced and repeated properties."""

from __future__ import annotations

from collections.abc import Iterator

from harness.configcheck.rulebook import (
    Configs,
    Hit,
    J,
    L,
    Rule,
    Severity,
    registering_into,
)
from harness.kafkaconfig.catalogue import ConfigFile, Entry, Kind, close_name, kinds_knowing

RULES: list[Rule] = []
rule = registering_into(RULES)


def _unknown(c: Configs) -> Iterator[tuple[ConfigFile, Entry, str | None, list[Kind]]]:
    for cfg in c.files.values():
        for e in cfg.entries:
            if not e.setting:
                yield cfg, e, close_name(e.name, cfg.kind), kinds_knowing(e.name)


@rule("unknown-property", Severity.WARNING)
def unknown_property(c: Configs) -> Iterator[Hit]:
    """A misspelt or misplaced name does nothing: the setting meant keeps its default."""
    for cfg, e, close, elsewhere in _unknown(c):
        if elsewhere:
            other = " or ".join(elsewhere)
            yield Hit(
                cfg,
                e.line,
                f"{e.name} is a {other} property, not a {cfg.kind} one: a {cfg.kind} does not use it.",
                f"move it to the {other} file",
                cfg.readers,
            )
        elif close:
            yield Hit(
                cfg,
                e.line,
                f"unknown {cfg.kind} property {e.name!r}: did you mean {close!r}? As written, {close} keeps "
                "its default.",
                f"rename it to {close}",
                cfg.readers,
            )


@rule("unchecked-property", Severity.INFO)
def unchecked_property(c: Configs) -> Iterator[Hit]:
    """A name the catalogue does not know is passed through unchecked."""
    for cfg, e, close, elsewhere in _unknown(c):
        if not close and not elsewhere:
            yield Hit(
                cfg,
                e.line,
                f"{e.name} is not in this checker's catalogue, so it was not checked.",
                "nothing, if the name is right (librdkafka refuses to start on names it does not know)",
                cfg.readers,
            )


# What a client does with a name it does not read (librdkafka: "No such configuration
# property"; Java: logged as "supplied but are not used yet").
_IGNORED = {J: "the Java client ignores it", L: "librdkafka refuses to start"}


@rule("property-not-for-client", Severity.WARNING)
def property_not_for_client(c: Configs) -> Iterator[Hit]:
    """A name only one client reads does nothing, or stops the other client, in a file both may read."""
    for cfg in c.files.values():
        for e in cfg.entries:
            if not e.setting:
                continue
            for reader in cfg.readers:
                if reader in e.readers:
                    continue
                names = e.setting.names.get(reader, ())
                yield Hit(
                    cfg,
                    e.line,
                    f"{e.name} is read only by {', '.join(e.readers)}: {_IGNORED[reader]}.",
                    f"use {' or '.join(names)} for {reader}" if names else f"leave it out of {reader}'s configuration",
                    (reader,),
                )


@rule("duplicate-property", Severity.WARNING)
def duplicate_property(c: Configs) -> Iterator[Hit]:
    """A setting given twice takes the last value, which may not be the one reviewed."""
    for cfg in c.files.values():
        for reader in cfg.readers:
            groups: dict[str, list[Entry]] = {}
            for e in cfg.entries:
                if not e.setting or reader in e.readers:
                    groups.setdefault(e.setting.key if e.setting else e.name, []).append(e)
            for key, entries in groups.items():
                if len(entries) > 1:
                    last = entries[-1]
                    lines = ", ".join(str(e.line) for e in entries)
                    yield Hit(
                        cfg,
                        last.line,
                        f"{key} is set {len(entries)} times (lines {lines}); the last, "
                        f"{last.name}={last.raw.strip()}, wins.",
                        "keep one",
                        (reader,),
                    )
