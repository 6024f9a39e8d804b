"""``list``: every scenario, one a line, A1 first."""

from __future__ import annotations

from tests.harness.cli.test_main import harness


def test_list_names_a1() -> None:
    proc = harness("list")
    assert proc.returncode == 0 and proc.stdout.startswith("A1 ")
