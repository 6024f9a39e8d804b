"""Java ``.properties`` files, read the way ``java.util.Properties.load`` reads them.

Kafka's broker and the Java clients load their files with ``Properties.load``, so a file
means here what it means to them:

- a *natural line* ends at ``\\n``, ``\\r`` or ``\\r\\n``; a natural line ending in an odd
  number of backslashes continues on the next one, whose leading whitespace is dropped;
- a line whose first non-blank character is ``#`` or ``!`` is a comment (never continued);
- the key runs to the first unescaped ``=``, ``:`` or whitespace; blanks, then at most one
  ``=`` or ``:``, then blanks separate it from the value;
- escapes in keys and values: ``\\t \\n \\r \\f``, ``\\uXXXX``, and ``\\`` before any other
  character stands for that character.

Where ``Properties.load`` would throw (a malformed ``\\uXXXX``) or a Kafka component
could not use the result (an empty key, a byte-order mark, bytes that are not text),
``load`` raises a ``HarnessError`` naming the file and line. A key set twice is kept
twice: the caller decides what that means (``Properties`` keeps the last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from harness.errors import HarnessError

_BLANK = " \t\f"  # the whitespace Properties.load skips
_SEPARATORS = "=:"
_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_NATURAL_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class Property:
    key: str
    value: str
    line: int  # 1-based number of the natural line the entry starts on


@dataclass(frozen=True)
class PropertiesFile:
    path: Path
    properties: tuple[Property, ...]  # in file order; a key set twice appears twice


def load(path: Path) -> PropertiesFile:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise HarnessError(f"{path}: no such file; check the path") from None
    except OSError as exc:
        raise HarnessError(f"{path}: cannot be read ({exc.strerror}); check the path and its permissions") from None
    return PropertiesFile(path, tuple(parse(_decode(data, path), str(path))))


def _decode(data: bytes, path: Path) -> str:
    # Properties.load(InputStream) reads ISO-8859-1, where every byte "decodes"; a NUL or
    # invalid UTF-8 in a Kafka config almost always means the wrong file, and a byte-order
    # mark would silently become part of the first property name.
    if data.startswith(b"\xef\xbb\xbf"):
        raise HarnessError(
            f"{path}:1: starts with a UTF-8 byte-order mark, which Kafka reads as part of the first "
            "property name; save the file without BOM"
        )
    bad = data.find(b"\0")
    if bad < 0:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad = exc.start
    line = data.count(b"\n", 0, bad) + 1
    raise HarnessError(f"{path}:{line}: not a text file (NUL byte or invalid UTF-8); is this the right file?")


def parse(text: str, source: str) -> list[Property]:
    """The entries of ``text``; ``source`` names it in errors (``source:line: ...``)."""
    natural = _NATURAL_LINE_END.split(text)
    entries: list[Property] = []
    i = 0
    while i < len(natural):
        start = i
        line = natural[i].lstrip(_BLANK)
        i += 1
        if not line or line[0] in "#!":
            continue
        while _continues(line):
            line = line[:-1]
            if i == len(natural):
                break  # Properties.load ends the entry at the end of the input
            line += natural[i].lstrip(_BLANK)
            i += 1
        entries.append(_entry(line, source, start + 1))
    return entries


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _entry(line: str, source: str, number: int) -> Property:
    end = 0
    while end < len(line) and line[end] not in _BLANK + _SEPARATORS:
        end += 2 if line[end] == "\\" else 1
    end = min(end, len(line))
    rest = line[end:].lstrip(_BLANK)
    if rest[:1] in tuple(_SEPARATORS):
        rest = rest[1:].lstrip(_BLANK)
    key = _unescape(line[:end], source, number)
    if not key:
        raise HarnessError(f"{source}:{number}: a value without a property name ({line.strip()!r}); write name=value")
    return Property(key, _unescape(rest, source, number), number)


def _unescape(raw: str, source: str, number: int) -> str:
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c != "\\" or i + 1 == len(raw):
            out.append(c)
            i += 1
            continue
        c = raw[i + 1]
        if c == "u":
            digits = raw[i + 2 : i + 6]
            if len(digits) < 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
                raise HarnessError(
                    f"{source}:{number}: malformed \\uXXXX escape '{raw[i : i + 6]}'; "
                    "write four hex digits after \\u, or \\\\ for a backslash"
                )
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            out.append(_ESCAPES.get(c, c))
            i += 2
    return "".join(out)
