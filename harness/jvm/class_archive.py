"""Class-data-sharing archives for the JVMs the harness starts again and again.

A JVM that loads many classes (a Spark driver loads over ten thousand) starts faster when it
maps them, already parsed and verified, from an archive that an earlier run of the same
JVM and class path dumped at its exit (``-XX:ArchiveClassesAtExit``, Java 13+). Here a local
Spark session came up in 2.2 s instead of 3.9 s and ran its first job in 0.8 s instead of 1.7 s.

Two kinds: the Spark driver's is dumped at the exit of a small real job (``dump_at_exit``);
the Java apps' are dumped from every class in their jars (``dump_every_class``), which needs
no broker. Here a Java producer app that ran 100 records in 0.73-1.2 s took 0.42-0.72 s.

An archive is named by a hash of everything it depends on and is made by ``make setup``;
a JVM uses one only when it is there, so a missing archive costs speed, never a run. A
truncated archive crashes the JVM that maps it (SIGBUS), so ``build`` publishes one only
after the JVM that wrote it exited and another JVM loaded it with sharing forced on.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from harness import commands
from harness.errors import HarnessError


def path(folder: Path, name: str, jars: Iterable[Path], also: Iterable[str] = ()) -> Path:
    """Where in ``folder`` the archive ``name`` lives (it may not exist): one for this Java,
    these jars (by path and size: the JVM refuses an archive whose class path moved) and
    whatever else it depends on (``also``)."""
    digest = hashlib.sha256()
    java = _java()
    listing = (f"{jar}:{jar.stat().st_size}" for jar in jars)
    for part in (f"{java}:{java.stat().st_mtime_ns}", *also, *listing):
        digest.update(part.encode() + b"\0")
    return folder / f"{name}-{digest.hexdigest()[:16]}.jsa"


def use(archive: Path) -> list[str]:
    """JVM options that map ``archive`` if it exists; none otherwise. The JVM's notice about an
    archive it cannot use (a different Java, say) would land on the app's stdout: silenced,
    the JVM then simply starts without it."""
    return [f"-XX:SharedArchiveFile={archive}", "-Xlog:cds*=off"] if archive.is_file() else []


def build(archive: Path, dump: Callable[[Path], None], check: Callable[[list[str]], None]) -> None:
    """Make ``archive`` unless it exists: ``dump(staged)`` writes it to a file beside it;
    ``check(options)`` then starts the JVM as its users will, plus options that map that
    file with sharing forced on, and must fail if the JVM cannot."""
    if archive.is_file():
        return
    archive.parent.mkdir(parents=True, exist_ok=True)
    staged = archive.with_name(f".{archive.name}.{os.getpid()}")
    try:
        dump(staged)
        if not staged.is_file():
            raise HarnessError(f"the JVM wrote no class archive to {staged}")
        check([f"-XX:SharedArchiveFile={staged}", "-Xshare:on"])
        os.replace(staged, archive)
    finally:
        staged.unlink(missing_ok=True)
    name = archive.name.rsplit("-", 1)[0]
    for stale in archive.parent.glob(f"{name}-*.jsa"):
        if stale != archive and re.fullmatch(rf"{re.escape(name)}-[0-9a-f]{{16}}\.jsa", stale.name):
            stale.unlink(missing_ok=True)  # made for a Java or class path that is gone


def dump_at_exit(staged: Path) -> list[str]:
    """JVM options that dump the classes the JVM loaded into ``staged`` when it exits normally
    (a dynamic archive: what a representative run really used)."""
    return [f"-XX:ArchiveClassesAtExit={staged}", "-Xlog:cds*=off"]


def dump_every_class(staged: Path, classpath: Sequence[Path], jvm_options: Sequence[str]) -> None:
    """Write a static archive (``-Xshare:dump``) of the JDK's default class list and every class
    in ``classpath``'s jars: no run of the app is needed, and a class that cannot be loaded
    (an optional dependency missing) is simply left out."""
    java = _java()
    names = (java.parents[1] / "lib" / "classlist").read_text().splitlines()
    for jar in classpath:
        with zipfile.ZipFile(jar) as contents:
            names += [
                n.removesuffix(".class")
                for n in contents.namelist()
                if n.endswith(".class") and not n.startswith("META-INF/") and not n.endswith("module-info.class")
            ]
    listing = staged.with_name(staged.name + ".classes")
    listing.write_text("\n".join(names) + "\n")
    try:
        cmd = [str(java), *jvm_options, "-Xshare:dump", f"-XX:SharedClassListFile={listing}"]
        cmd += [f"-XX:SharedArchiveFile={staged}", "-cp", os.pathsep.join(map(str, classpath))]
        commands.run(cmd, f"dump the class archive {staged.name}", "install a Java 17 runtime")
    finally:
        listing.unlink(missing_ok=True)


def _java() -> Path:
    """The Java binary on PATH, links resolved: the one that dumps an archive and maps it."""
    java = shutil.which("java")
    if java is None:
        raise HarnessError("java not found: install a Java 17 runtime (make setup does)")
    return Path(java).resolve()
