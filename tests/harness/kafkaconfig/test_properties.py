"""``.properties`` parsing: the syntax of ``java.util.Properties.load`` and its errors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.kafkaconfig.properties import Property, load, parse


def pairs(text: str) -> list[tuple[str, str]]:
    return [(p.key, p.value) for p in parse(text, "f")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a=b", [("a", "b")]),
        ("a: b", [("a", "b")]),
        ("a b", [("a", "b")]),
        ("  a \t=\f b  ", [("a", "b  ")]),  # leading blanks of key and value go, trailing ones stay
        ("a = = b", [("a", "= b")]),  # only one separator is consumed
        ("a:=b", [("a", "=b")]),
        ("a", [("a", "")]),
        ("a=", [("a", "")]),
        ("a\\=b\\:c\\ d=e", [("a=b:c d", "e")]),  # escaped separators belong to the key
        ("a=\\t\\n\\r\\f|\\u0041\\u00e9|\\q\\\\", [("a", "\t\n\r\f|Aé|q\\")]),
        ("url=http://host:9092", [("url", "http://host:9092")]),
    ],
)
def test_key_value_forms(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


def test_comments_and_blank_lines() -> None:
    text = "# one\n  ! two\n\n\t\na=1\n#b=2\nc=3 # not a comment\n"
    assert pairs(text) == [("a", "1"), ("c", "3 # not a comment")]


def test_continuation_lines() -> None:
    text = "list=a,\\\n    b,\\\n\t c\nnext=1\n"
    assert pairs(text) == [("list", "a,b,c"), ("next", "1")]


def test_even_backslashes_do_not_continue() -> None:
    assert pairs("a=x\\\\\nb=y") == [("a", "x\\"), ("b", "y")]


def test_a_comment_never_continues_but_a_continued_hash_is_data() -> None:
    assert pairs("# c \\\na=1") == [("a", "1")]
    assert pairs("a=1\\\n# 2") == [("a", "1# 2")]


def test_continuation_at_end_of_input_ends_the_entry() -> None:
    assert pairs("a=1\\") == [("a", "1")]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_numbers_count_natural_lines(newline: str) -> None:
    text = newline.join(["# header", "a=1", "b=x\\", "  y", "", "c=3"])
    assert parse(text, "f") == [Property("a", "1", 2), Property("b", "xy", 3), Property("c", "3", 6)]


def test_a_key_set_twice_is_kept_twice() -> None:
    assert pairs("a=1\na=2") == [("a", "1"), ("a", "2")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a=1\nb=\\u12G4", "f:2: malformed \\uXXXX escape '\\u12G4'"),
        ("a=1\n\nb=\\u12", "f:3: malformed \\uXXXX escape '\\u12'"),
        ("a=1\n  = value", "f:2: a value without a property name ('= value')"),
    ],
)
def test_malformed_entries_name_file_and_line(text: str, message: str) -> None:
    with pytest.raises(HarnessError) as err:
        parse(text, "f")
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a=1\nb=\xff\n", ":2: not a text file"),
        (b"a=1\nb=2\n\x00\x01", ":3: not a text file"),
        (b"\xef\xbb\xbfa=1\n", ":1: starts with a UTF-8 byte-order mark"),
    ],
)
def test_files_that_are_not_properties_text(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "x.properties"
    path.write_bytes(data)
    with pytest.raises(HarnessError, match=message):
        load(path)


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="no such file; check the path"):
        load(tmp_path / "absent.properties")


def test_load_keeps_the_path_and_order(tmp_path: Path) -> None:
    path = tmp_path / "p.properties"
    path.write_text("b=2\na=1\n")
    loaded = load(path)
    assert loaded.path == path and [p.key for p in loaded.properties] == ["b", "a"]


# Written out by the test and run with `java File.java`: prints every entry that
# java.util.Properties.load reads, as code points, one file after another.
_JAVA_DUMP = """
import java.io.FileInputStream;
import java.util.Properties;
import java.util.TreeMap;

public class Dump {
    static String points(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(Integer.toHexString(c)).append(' '));
        return b.toString().trim();
    }
    public static void main(String[] files) throws Exception {
        for (String file : files) {
            Properties p = new Properties();
            try (FileInputStream in = new FileInputStream(file)) { p.load(in); }
            System.out.println("FILE " + file);
            for (var e : new TreeMap<>(p).entrySet())
                System.out.println(points((String) e.getKey()) + "=" + points((String) e.getValue()));
        }
    }
}
"""

_JAVA_CASES = [
    "a=b\nc : d\ne f\n  g\t=\fh  \n",
    "a = = b\na:=b\nkey\nempty=\n",
    "a\\=b\\:c\\ d=e\nesc=\\t\\n\\r\\f|\\u0041\\u00e9|\\q\\\\\n",
    "# one\n  ! two\n\n\t\na=1\n#b=2\nc=3 # not a comment\n",
    "list=a,\\\n    b,\\\n\t c\nnext=1\n",
    "a=x\\\\\nb=y\n",
    "# c \\\na=1\nb=1\\\n# 2\n",
    "a=1\r\nb=x\\\r\n  y\rc=3\n",
    "dup=1\ndup=2\n",
    "end=1\\",
]


@pytest.mark.jvm
def test_parse_agrees_with_java_util_properties(tmp_path: Path) -> None:
    (tmp_path / "Dump.java").write_text(_JAVA_DUMP)
    files = []
    for i, text in enumerate(_JAVA_CASES):
        files.append(tmp_path / f"case{i}.properties")
        files[-1].write_text(text, encoding="utf-8")
    out = subprocess.run(
        ["java", "-XX:TieredStopAtLevel=1", str(tmp_path / "Dump.java"), *map(str, files)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout

    def decode(points: str) -> str:
        return "".join(chr(int(c, 16)) for c in points.split())

    java: dict[str, dict[str, str]] = {}
    for line in out.splitlines():
        if line.startswith("FILE "):
            current = java.setdefault(line[5:], {})
        else:
            key, _, value = line.partition("=")
            current[decode(key)] = decode(value)
    for path, text in zip(files, _JAVA_CASES, strict=True):
        assert dict(pairs(text)) == java[str(path)], text
