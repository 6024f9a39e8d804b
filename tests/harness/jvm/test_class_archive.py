"""harness.jvm.class_archive with a real JVM: published only whole and loadable, used only when there."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.jvm import class_archive
from harness.settings import Settings


def java_version(options: list[str]) -> None:
    subprocess.run(["java", *options, "-version"], check=True, capture_output=True)


def test_an_archive_is_published_once_a_jvm_maps_it(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    old = class_archive.path(settings, "probe", ["an older class path"])
    old.parent.mkdir(parents=True)
    old.write_bytes(b"stale")
    archive = class_archive.path(settings, "probe", ["this class path"])
    class_archive.build(archive, java_version)
    assert archive.is_file() and not old.exists()
    assert [p.name for p in archive.parent.iterdir()] == [archive.name]  # no staged copy left
    shared = subprocess.run(["java", "-Xshare:on", *class_archive.use(archive), "-version"], capture_output=True)
    assert shared.returncode == 0 and shared.stdout == b"", shared.stderr


def test_a_failed_dump_publishes_nothing(tmp_path: Path) -> None:
    archive = class_archive.path(Settings(cache_dir=tmp_path), "probe", [])

    def dies(options: list[str]) -> None:
        raise HarnessError("the warm-up failed")

    with pytest.raises(HarnessError, match="warm-up failed"):
        class_archive.build(archive, dies)
    assert list(archive.parent.iterdir()) == []
    assert class_archive.use(archive) == []


def test_a_dump_that_writes_no_file_is_an_error(tmp_path: Path) -> None:
    archive = class_archive.path(Settings(cache_dir=tmp_path), "probe", [])
    with pytest.raises(HarnessError, match="no class archive"):
        class_archive.build(archive, lambda options: None)
    assert not archive.exists()


def test_the_name_follows_what_the_archive_depends_on(tmp_path: Path) -> None:
    settings = Settings(cache_dir=tmp_path)
    one = class_archive.path(settings, "probe", ["a.jar:10"])
    assert one == class_archive.path(settings, "probe", ["a.jar:10"])
    assert one != class_archive.path(settings, "probe", ["a.jar:11"])
    assert one.name.startswith("probe-") and one.suffix == ".jsa"
