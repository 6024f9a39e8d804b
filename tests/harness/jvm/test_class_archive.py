"""harness.jvm.class_archive with a real JVM: published only whole and loadable, used only when there."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.jvm import class_archive


def java_version(options: list[str]) -> None:
    subprocess.run(["java", *options, "-version"], check=True, capture_output=True)


def test_an_archive_is_published_once_a_jvm_maps_it(tmp_path: Path) -> None:
    old = class_archive.path(tmp_path / "archives", "probe", ["an older class path"])
    other = class_archive.path(tmp_path / "archives", "probe-streams", ["another app's class path"])
    old.parent.mkdir(parents=True)
    old.write_bytes(b"stale")
    other.write_bytes(b"kept")
    archive = class_archive.path(tmp_path / "archives", "probe", ["this class path"])
    class_archive.build(archive, lambda staged: java_version(class_archive.dump_at_exit(staged)), java_version)
    assert archive.is_file() and not old.exists() and other.exists()
    assert sorted(p.name for p in archive.parent.iterdir()) == sorted([archive.name, other.name])  # no staged copy
    shared = subprocess.run(["java", "-Xshare:on", *class_archive.use(archive), "-version"], capture_output=True)
    assert shared.returncode == 0 and shared.stdout == b"", shared.stderr


def test_a_failed_dump_publishes_nothing(tmp_path: Path) -> None:
    archive = class_archive.path(tmp_path / "archives", "probe", [])

    def dies(options: list[str]) -> None:
        raise HarnessError("the warm-up failed")  # the check: the staged archive does not map

    with pytest.raises(HarnessError, match="warm-up failed"):
        class_archive.build(archive, lambda staged: java_version(class_archive.dump_at_exit(staged)), dies)
    assert list(archive.parent.iterdir()) == []
    assert class_archive.use(archive) == []


def test_a_dump_that_writes_no_file_is_an_error(tmp_path: Path) -> None:
    archive = class_archive.path(tmp_path / "archives", "probe", [])
    with pytest.raises(HarnessError, match="no class archive"):
        class_archive.build(archive, lambda staged: None, java_version)
    assert not archive.exists()


def test_the_name_follows_what_the_archive_depends_on(tmp_path: Path) -> None:
    one = class_archive.path(tmp_path / "archives", "probe", ["a.jar:10"])
    assert one == class_archive.path(tmp_path / "archives", "probe", ["a.jar:10"])
    assert one != class_archive.path(tmp_path / "archives", "probe", ["a.jar:11"])
    assert one.name.startswith("probe-") and one.suffix == ".jsa"


def test_a_static_archive_is_dumped_without_running_the_app(tmp_path: Path) -> None:
    jar = tmp_path / "probe.jar"
    with zipfile.ZipFile(jar, "w") as contents:
        contents.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
    archive = class_archive.path(tmp_path / "archives", "probe", [])

    def check(options: list[str]) -> None:
        java_version([*options, "-cp", str(jar)])

    class_archive.build(
        archive, lambda staged: class_archive.dump_every_class(staged, [jar], ["-XX:+UseSerialGC"]), check
    )
    assert archive.is_file() and not list(tmp_path.glob("**/*.classes"))  # its class list removed
