"""The fault kinds' registry: every kind module is found, named as its module, and the table in
docs/faults.md is the registry's."""

from __future__ import annotations

import pkgutil
from pathlib import Path

from harness.faults import kinds

DOCS = Path(__file__).resolve().parents[4] / "docs" / "faults.md"


def test_every_kind_module_is_found_under_its_own_name() -> None:
    modules = {m.name for m in pkgutil.iter_modules(kinds.__path__)} - {"base", "link_toxic", "process"}
    assert set(kinds.registry()) == modules
    for name, kind in kinds.registry().items():
        assert kind.make.__module__ == f"harness.faults.kinds.{name}", name


def test_the_docs_table_is_the_registry() -> None:
    text = DOCS.read_text()
    start = text.index("<!-- fault kinds table")
    table = text[text.index("\n", start) + 1 : text.index("<!-- end of fault kinds table -->")].strip()
    assert table == kinds.markdown_table()


def test_an_unknown_kind_is_named_with_the_known_ones() -> None:
    try:
        kinds.get("earthquake")
    except ValueError as exc:
        assert "latency" in str(exc) and "protocol" in str(exc)
    else:
        raise AssertionError("an unknown kind was accepted")
