"""Cache folders appear whole or not at all, and say what they were made from."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import cache_folders


def test_a_published_folder_is_complete_for_its_marker_only(tmp_path: Path) -> None:
    place = tmp_path / "cache" / "thing-1.0"
    with cache_folders.staging(place) as work:
        staged = work / "staged"
        staged.mkdir()
        (staged / "file").write_text("made")
        assert not cache_folders.complete(place, "inputs A")
        cache_folders.publish(staged, place, "inputs A")
    assert (place / "file").read_text() == "made"
    assert cache_folders.complete(place, "inputs A")
    assert not cache_folders.complete(place, "inputs B")  # other inputs: stale, made again
    assert [p.name for p in place.parent.iterdir()] == ["thing-1.0"]  # no staging folder left


def test_a_stale_folder_is_replaced_and_a_complete_one_kept(tmp_path: Path) -> None:
    place = tmp_path / "thing"
    for marker, content in (("old", "1"), ("new", "2"), ("new", "3")):
        with cache_folders.staging(place) as work:
            (work / "s").mkdir()
            (work / "s" / "file").write_text(content)
            cache_folders.publish(work / "s", place, marker)
    # "new" replaced "old"; the second "new" found a complete folder (a concurrent run's) and kept it.
    assert (place / "file").read_text() == "2"


def test_a_failed_build_leaves_nothing_behind(tmp_path: Path) -> None:
    place = tmp_path / "thing"
    with pytest.raises(RuntimeError), cache_folders.staging(place) as work:
        (work / "half").write_text("half a download")
        raise RuntimeError("killed")
    assert not place.exists()
    assert list(tmp_path.iterdir()) == []
