"""Class-data-sharing archives for the JVMs the harness starts again and again.

A JVM that loads many classes (a Spark driver loads over ten thousand) starts faster when it
maps them, already parsed and verified, from an archive that an earlier run of the same
JVM and class path dumped at its exit (``-XX:ArchiveClassesAtExit``, Java 13+). Here a local
Spark session came up in 2.2 s instead of 3.9 s and ran its first job in 0.8 s instead of 1.7 s.

An archive is named by a hash of everything it depends on and is made by ``make setup``;
a JVM uses one only when it is there, so a missing archive costs speed, never a run. A
truncated archive crashes the JVM that maps it (SIGBUS), so ``build`` publishes one only
after the JVM that wrote it exited and another JVM loaded it with sharing forced on.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from harness.errors import HarnessError
from harness.settings import Settings


def path(settings: Settings, name: str, depends_on: Iterable[str]) -> Path:
    """Where the archive ``name`` for these dependencies lives (it may not exist)."""
    digest = hashlib.sha256()
    for part in (_java(), *depends_on):
        digest.update(part.encode() + b"\0")
    return settings.cache_dir / "class-archives" / f"{name}-{digest.hexdigest()[:16]}.jsa"


def use(archive: Path) -> list[str]:
    """JVM options that map ``archive`` if it exists; none otherwise. The JVM's notice about an
    archive it cannot use (a different Java, say) would land on the app's stdout: silenced,
    the JVM then simply starts without it."""
    return [f"-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off"] if archive.is_file() else []


def build(archive: Path, run: Callable[[list[str]], None]) -> None:
    """Make ``archive`` unless it exists. ``run(options)`` starts the JVM with the given
    options, gives it representative work and lets it exit normally; it is called twice:
    once to dump the archive and once to check that a JVM can map it."""
    if archive.is_file():
        return
    archive.parent.mkdir(parents=True, exist_ok=True)
    staged = archive.with_name(f".{archive.name}.{os.getpid()}")
    try:
        run([f"-XX:ArchiveClassesAtExit={staged}", "-Xlog:cds*=off"])
        if not staged.is_file():
            raise HarnessError(f"the JVM wrote no class archive to {staged}")
        run([f"-XX:SharedArchiveFile={staged}", "-Xshare:on"])
        os.replace(staged, archive)
    finally:
        staged.unlink(missing_ok=True)
    for stale in archive.parent.glob(f"{archive.name.rsplit('-', 1)[0]}-*.jsa"):
        if stale != archive:
            stale.unlink(missing_ok=True)  # made for a Java or class path that is gone


def _java() -> str:
    """The Java that will run the archive: it must be the one that dumped it."""
    java = shutil.which("java")
    if java is None:
        raise HarnessError("java not found: install a Java 17 runtime (make setup does)")
    real = Path(java).resolve()
    return f"{real}:{real.stat().st_mtime_ns}"
