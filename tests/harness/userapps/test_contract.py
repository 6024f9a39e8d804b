"""How an output names its input, in the order the contract gives: the user's extractor, the
keh-source header, the value's head; and the one-line errors of an app that breaks it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.history.records import SOURCE_HEADER, encode_source, encode_value
from harness.userapps.contract import ContractError, Naming, load_extractor, transactional_id


def _sources(naming: Naming, *records: tuple[bytes | None, list[tuple[str, bytes]] | None]) -> list[int | None]:
    return naming.sources([None] * len(records), [v for v, _ in records], [h for _, h in records])


def test_the_header_names_the_input_before_the_value_does() -> None:
    found = _sources(
        Naming(),
        (b"anything", [(SOURCE_HEADER, encode_source(7))]),  # a header, and a value naming nothing
        (b"12|ENRICHED", None),  # the input's value kept
        (encode_value(5, 20), [("other", b"x")]),  # other headers do not matter
        (b"9|x", [(SOURCE_HEADER, b"8")]),  # both: the header wins
    )
    assert found == [7, 12, 5, 8]


@pytest.mark.parametrize(
    ("value", "headers"),
    [
        (b"hello", None),
        (None, []),
        (b"-1|x", None),  # no id is negative
        (b"7|x", [(SOURCE_HEADER, b"seven")]),  # a header that names nothing: not the value instead
    ],
)
def test_a_record_naming_nothing_has_no_source(value: bytes | None, headers: list[tuple[str, bytes]] | None) -> None:
    assert _sources(Naming(), (value, headers)) == [None]


def test_headers_read_back_as_rows_of_key_and_value_count_too() -> None:
    rows = [[{"key": SOURCE_HEADER, "value": b"42"}]]
    assert Naming().sources([None], [b"x"], rows) == [42]  # type: ignore[arg-type]


def test_an_extractor_decides_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_outputs.py").write_text(
        "def input_id(key, value, headers):\n"
        "    return int(value.split(b'=')[1]) if value and value.startswith(b'order=') else None\n"
        "def wrong(key, value, headers):\n"
        "    return 'seven'\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    naming = Naming("my_outputs:input_id")
    assert _sources(naming, (b"order=31", [(SOURCE_HEADER, b"1")]), (b"7|x", None)) == [31, None]
    with pytest.raises(ContractError, match="returned 'seven'"):
        _sources(Naming("my_outputs:wrong"), (b"x", None))


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("no_colon", "module:function"),
        ("no_such_module_here:f", "cannot import no_such_module_here"),
        ("json:no_such_function", "json has no function no_such_function"),
    ],
)
def test_a_bad_extractor_is_one_line(spec: str, said: str) -> None:
    with pytest.raises(ContractError, match=said) as caught:
        load_extractor(spec)
    assert "\n" not in str(caught.value)


def test_an_instance_keeps_its_transactional_id_across_restarts() -> None:
    assert transactional_id("out-txn", 2) == "out-txn-2"
