"""Folders of the cache that appear whole or not at all.

Whatever the harness fetches or builds once and keeps (a broker's jars, a Java client's jars,
the Java apps' jar, confluent-kafka of another version) is made in a staging folder beside
its place, marked complete last, and renamed into its place in one step: a killed fetch
leaves no half folder, two runs fetching the same thing at once do not meet, and a warm
call only reads the marker.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DONE = "complete"  # the marker file; it holds what the folder was made from


def complete(folder: Path, marker: str) -> bool:
    """Whether ``folder`` is in place and was made from ``marker`` (a pom, a version, a hash)."""
    done = folder / DONE
    return done.exists() and done.read_text() == marker


@contextmanager
def staging(folder: Path) -> Iterator[Path]:
    """A scratch folder beside ``folder`` (same file system, so the rename is atomic), removed
    afterwards with whatever was not published from it."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=f".{folder.name}-") as tmp:
        yield Path(tmp)


def publish(staged: Path, folder: Path, marker: str) -> None:
    """Put ``staged`` (marked last) in ``folder``'s place in one rename. A concurrent run that got
    there first wins: its copy is as good."""
    (staged / DONE).write_text(marker)
    if complete(folder, marker):
        return
    shutil.rmtree(folder, ignore_errors=True)  # a stale one (other inputs): its marker said so
    try:
        staged.rename(folder)
    except OSError:
        if not complete(folder, marker):
            raise
