"""harness.jvm.class_archive with a real JVM: published only whole and loadable, used only when there."""

from __future__ import annotations

import subprocess
import zipfile
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.jvm import class_archive

pytestmark = pytest.mark.jvm  # runs java


def java_version(options: list[str]) -> None:
    subprocess.run(["java", *options, "-version"], check=True, capture_output=True)


def test_an_archive_is_published_once_a_jvm_maps_it(tmp_path: Path) -> None:
    old = class_archive.path(tmp_path / "archives", "probe", [], also=["an older version"])
    other = class_archive.path(tmp_path / "archives", "probe-streams", [], also=["another app's version"])
    old.parent.mkdir(parents=True)
    old.write_bytes(b"stale")
    other.write_bytes(b"kept")
    archive = class_archive.path(tmp_path / "archives", "probe", [], also=["this version"])
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
    jar = tmp_path / "a.jar"
    jar.write_bytes(b"0123456789")
    one = class_archive.path(tmp_path / "archives", "probe", [jar])
    assert one == class_archive.path(tmp_path / "archives", "probe", [jar])
    assert one != class_archive.path(tmp_path / "archives", "probe", [jar], also=["another version"])
    moved = tmp_path / "elsewhere" / "a.jar"  # the JVM checks the class path it was dumped with
    moved.parent.mkdir()
    moved.write_bytes(jar.read_bytes())
    assert one != class_archive.path(tmp_path / "archives", "probe", [moved])
    jar.write_bytes(b"01234567890")  # a jar replaced by another build
    assert one != class_archive.path(tmp_path / "archives", "probe", [jar])
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
