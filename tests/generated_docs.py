"""The tables in the docs that a command generates: each sits between an opening marker
(``<!-- NAME table: `the command` -->``) and ``<!-- end of NAME table -->``, and a test compares
it with the command's output, so a doc cannot drift from the code it describes."""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def generated_table(document: str, name: str) -> str:
    """The table named ``name`` in ``document`` (a path from the repository's root)."""
    text = (REPOSITORY / document).read_text()
    start = text.index(f"<!-- {name} table")
    return text[text.index("\n", start) + 1 : text.index(f"<!-- end of {name} table -->")].strip()
