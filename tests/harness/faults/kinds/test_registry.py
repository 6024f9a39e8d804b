"""The fault kinds' registry: every kind module is found, named as its module, its constructor
exported by ``harness.faults`` (the one place scenarios import from), and the table in
docs/faults.md is the registry's."""

from __future__ import annotations

import pkgutil

from harness import faults
from harness.faults import kinds
from tests.generated_docs import generated_table


def test_every_kind_module_is_found_under_its_own_name() -> None:
    modules = {m.name for m in pkgutil.iter_modules(kinds.__path__)} - kinds.HELPER_MODULES
    assert set(kinds.registry()) == modules
    for name, kind in kinds.registry().items():
        assert kind.make.__module__ == f"harness.faults.kinds.{name}", name


def test_every_kind_s_constructor_is_exported_by_harness_faults() -> None:
    missing = [k.name for k in kinds.registry().values() if getattr(faults, k.make.__name__, None) is not k.make]
    assert not missing, f"add to harness/faults/__init__.py: {missing}"
    assert {k.make.__name__ for k in kinds.registry().values()} <= set(faults.__all__)


def test_the_docs_table_is_the_registry() -> None:
    assert generated_table("docs/faults.md", "fault kinds") == kinds.markdown_table()


def test_an_unknown_kind_is_named_with_the_known_ones() -> None:
    try:
        kinds.get("earthquake")
    except ValueError as exc:
        assert "latency" in str(exc) and "protocol" in str(exc)
    else:
        raise AssertionError("an unknown kind was accepted")
