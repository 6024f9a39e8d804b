"""The README stays a front door (short, everything else linked) and no link in the docs points
at a file that is not there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.generated_docs import REPOSITORY

PAGES = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_at_most_200_lines() -> None:
    assert len((REPOSITORY / "README.md").read_text().splitlines()) <= 200


def test_every_page_in_docs_is_linked_from_the_readme() -> None:
    readme = (REPOSITORY / "README.md").read_text()
    assert [p.name for p in PAGES[1:] if f"docs/{p.name}" not in readme] == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = page.read_text()
    targets = [t.split("#")[0] for t in LINK.findall(text) if not t.startswith(("http://", "https://", "#", "mailto:"))]
    missing = [t for t in targets if not (page.parent / t).exists()]
    assert missing == []


PATH_IN_TEXT = re.compile(r"`((?:harness|tests|scenarios|bench|spark_jobs|java|toxiproxy|scripts|examples)/[\w./-]+)`")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_file_a_page_names_is_there(page: Path) -> None:
    named = [p for p in PATH_IN_TEXT.findall(page.read_text()) if "..." not in p]
    assert [p for p in named if not (REPOSITORY / p).exists()] == []


def test_every_setting_is_in_the_settings_page() -> None:
    """Configuration lives in harness/settings.py; docs/settings.md lists every variable it reads."""
    read = set(re.findall(r'_env\("(KEH_[A-Z_]+)"', (REPOSITORY / "harness" / "settings.py").read_text()))
    listed = (REPOSITORY / "docs" / "settings.md").read_text()
    assert read and {v for v in read if f"`{v}`" not in listed} == set()
