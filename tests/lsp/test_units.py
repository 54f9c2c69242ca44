"""Unit tests of the server's own parts: protocol lines and encodings, the
statement-by-statement parser against the whole-file parser, debounced analysis,
requests answered from the analysis of the current text only."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest
from kclpy_lsp.blocks import keys_set, mask, open_brackets, string_at
from kclpy_lsp.documents import Documents, Lines, path_of, read_text, uri_of
from kclpy_lsp.incremental import ChunkParser, split
from kclpy_lsp.snippets import placeholder
from kclpy_lsp.workspace import Analysis, Workspace
from lsprotocol import types

from kclpy.diag import Diagnostic
from kclpy.sema.base import suggested_names, suggestion_text
from kclpy.sema.types import (
    BOOL_T,
    INT_T,
    NONE,
    STR_T,
    DictType,
    ListType,
    Type,
    UnionType,
    str_lit,
)
from kclpy.syntax import parse_source

ROOT = Path(__file__).resolve().parents[2]


def test_lines_break_only_where_the_protocol_says() -> None:
    text = "a\u2028b\x0cc\x85d\re\r\nf\ng"
    lines = Lines(text)
    assert [lines.line_text(n) for n in range(4)] == ["a\u2028b\x0cc\x85d", "e", "f", "g"]
    assert lines.position(text.index("e")) == types.Position(1, 0)
    assert lines.offset(types.Position(2, 0)) == text.index("f")


@pytest.mark.parametrize(
    ("encoding", "column"),
    [
        (types.PositionEncodingKind.Utf16, 5),
        (types.PositionEncodingKind.Utf8, 10),
        (types.PositionEncodingKind.Utf32, 3),
    ],
)
def test_positions_in_each_encoding(encoding: str, column: int) -> None:
    text = "😀é😀x = 1\n"
    lines = Lines(text, encoding)
    assert lines.position(3) == types.Position(0, column)
    assert lines.offset(types.Position(0, column)) == 3
    assert lines.offset(types.Position(0, 999)) == text.index("\n")  # clamped
    assert lines.offset(types.Position(99, 0)) == len(text)


def test_uris_are_encoded_both_ways(tmp_path: Path) -> None:
    path = str(tmp_path / "a b 模型.k")
    uri = uri_of(path)
    assert " " not in uri and "%20" in uri
    assert path_of(uri) == path


def test_read_text_refuses_what_is_not_text(tmp_path: Path) -> None:
    (tmp_path / "bin.k").write_bytes(b"\x00\x01")
    (tmp_path / "latin.k").write_bytes(b"caf\xe9")
    assert read_text(str(tmp_path / "bin.k")) is None
    assert read_text(str(tmp_path / "latin.k")) is None
    assert read_text(str(tmp_path)) is None
    assert read_text(str(tmp_path / "missing.k")) is None


def _shape(text: str, chunked: bool) -> tuple[list[tuple[str, int, int]], bool, str]:
    module, found = ChunkParser().parse("x.k", text) if chunked else parse_source(text, "x.k")
    statements = [(type(s).__name__, s.span.start, s.span.end) for s in module.body]
    return statements, any(d.is_error for d in found), module.doc


CASES = [
    '"""doc"""\nimport a\n\n@deco\nschema A(B):\n    x: int\n\n    check:\n        x > 0\n',
    "if a:\n    b = 1\nelif c:\n    b = 2\nelse:\n    b = 3\nd = [\n1,\n2]\n",
    's = """\nx = 1\n"""\nt = "a{"\nu = \\\n    1\nv = {a = 1}\n# c\nw = 1\n',
    "x = (\ny = 1\n",  # an unclosed bracket keeps the rest in one chunk, like the parser
    "lambda_ = lambda x {\n    x\n}\nr = rule_()\n",
]


@pytest.mark.parametrize("text", CASES)
def test_chunks_parse_like_the_whole_file(text: str) -> None:
    assert _shape(text, chunked=True) == _shape(text, chunked=False)


def test_chunks_over_the_corpora() -> None:
    """Every ``.k`` file of the conformance corpus and konfig, where present."""
    corpus = ROOT / ".corpus"
    files = [p for name in ("kcl-conformance", "konfig") for p in (corpus / name).rglob("*.k")]
    if not files:
        pytest.skip("no .corpus (see benchmarks/README.md)")
    for path in files[:1500]:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert _shape(text, True) == _shape(text, False), path


def test_an_unchanged_chunk_is_reused() -> None:
    parser = ChunkParser()
    text = "a = 1\nb = 2\n"
    first, _ = parser.parse("x.k", text)
    second, _ = parser.parse("x.k", text + "c = 3\n")
    assert second.body[0] is first.body[0] and second.body[1] is first.body[1]
    third, _ = parser.parse("x.k", "z = 0\n" + text)  # moved: parsed anew
    assert third.body[1] is not first.body[0]
    assert split("a = 1\nb = 2\n") == [(0, 6), (6, 12)]


def test_a_burst_of_changes_is_analysed_once(tmp_path: Path) -> None:
    """Debounce: ten quick changes, one analysis of the last text."""
    path = tmp_path / "main.k"
    documents = Documents()
    published: list[tuple[str, list[Diagnostic], int | None]] = []
    done = threading.Event()

    def publish(where: str, found: list[Diagnostic], version: int | None) -> None:
        published.append((where, found, version))
        if version == 10:
            done.set()

    workspace = Workspace(documents, publish)
    workspace.roots = [str(tmp_path)]
    try:
        documents.did_open(path.as_uri(), "a = 1\n", 1)
        for version in range(2, 11):
            change = types.TextDocumentContentChangeWholeDocument(text=f"a = {version}\nb = c\n")
            documents.did_change(path.as_uri(), version, [change])
            workspace.changed(str(path))
        assert done.wait(60)
    finally:
        workspace.stop()
    versions = [version for where, _, version in published if where == os.path.abspath(path)]
    assert versions == [10]
    [(_, found, _)] = [item for item in published if item[2] == 10]
    assert [d.code.id for d in found] == ["E2L23"]


UNUSED = "import math\nimport regex\n\nx = regex.match('a', 'a')\n"


def _unused_imports(analysis: Analysis) -> list[str]:
    return [f.diagnostic.code.id for f in analysis.findings if f.diagnostic.code.id == "W0411"]


def test_a_file_opened_while_its_analysis_read_another_text_is_analysed_again(
    tmp_path: Path,
) -> None:
    """The scan's analysis reads ``main.k`` while its writer has created it but not
    filled it yet; the editor opens it, with the text now on disk, before that
    analysis ends (opening a file as on disk leaves the analysis under way alone).
    The analysis of the empty text must not answer for the opened one."""
    path = tmp_path / "main.k"
    path.write_text("", encoding="utf-8")
    documents = Documents()
    opened: list[str] = []

    def publish(where: str, found: list[Diagnostic], version: int | None) -> None:
        if not opened:  # called by the analysis of the empty file, under way
            opened.append(where)
            path.write_text(UNUSED, encoding="utf-8")  # the writer goes on
            documents.did_open(path.as_uri(), UNUSED, 1)  # as the server's did_open:
            workspace.changed(str(path), supersede=read_text(str(path)) != UNUSED)

    workspace = Workspace(documents, publish)
    workspace.roots = [str(tmp_path)]
    try:
        workspace.schedule({str(tmp_path)}, supersede=False)  # the scan found the folder
        analysis = asyncio.run(workspace.fresh(str(path), timeout=60))
    finally:
        workspace.stop()
    assert opened == [str(path)]
    assert analysis is not None and analysis.texts[str(path)] == UNUSED
    assert _unused_imports(analysis) == ["W0411"]


def test_a_text_changed_with_no_word_of_it_is_analysed_again_for_a_request(
    tmp_path: Path,
) -> None:
    """A file saved by another program before its change event arrives: a request
    for it drives a new analysis rather than answering from the one of the old text."""
    path = tmp_path / "main.k"
    path.write_text("import math\n", encoding="utf-8")
    workspace = Workspace(Documents(), lambda where, found, version: None)
    workspace.roots = [str(tmp_path)]
    try:
        first = asyncio.run(workspace.fresh(str(path), timeout=60))
        assert first is not None and first.texts[str(path)] == "import math\n"
        path.write_text(UNUSED, encoding="utf-8")  # no ``changed`` call: no event yet
        again = asyncio.run(workspace.fresh(str(path), timeout=60))
    finally:
        workspace.stop()
    assert again is not None and again.texts[str(path)] == UNUSED
    assert _unused_imports(again) == ["W0411"]


BLOCKS = "\n".join(
    [
        "p = Person(b) {",
        "    name: Name {",
        '        "}": 1  # {',
        "        ",
        "    }",
        "    config = {",
        '        labels.app = "x"',
        "        ports = [{a = 1}, {",
        "            ",
        "        }]",
        "    }",
        "}",
        "q = P {a = 1, b = 2}",
        "",
    ]
)


def _offset(text: str, line: int, column: int) -> int:
    return sum(len(part) + 1 for part in text.split("\n")[:line]) + column


def test_open_brackets_skip_strings_comments_and_closed_groups() -> None:
    found = open_brackets(BLOCKS, _offset(BLOCKS, 3, 8))
    assert [(b.char, b.head) for b in found] == [("{", "p = Person(b) "), ("{", "    name: Name ")]
    nested = open_brackets(BLOCKS, _offset(BLOCKS, 8, 12))
    assert [(b.char, b.head.strip()) for b in nested] == [
        ("{", "p = Person(b)"),
        ("{", "config ="),
        ("[", "ports ="),
        ("{", ""),
    ]
    assert open_brackets(BLOCKS, _offset(BLOCKS, 12, 0)) == []


def test_keys_set_in_a_block_before_and_after_the_cursor() -> None:
    outer, inner = open_brackets(BLOCKS, _offset(BLOCKS, 3, 8))
    assert keys_set(BLOCKS, outer) == {"name", "config"}
    assert keys_set(BLOCKS, inner) == set()  # a quoted key, a comment
    config = open_brackets(BLOCKS, _offset(BLOCKS, 8, 12))[1]
    assert keys_set(BLOCKS, config) == {"labels", "ports"}
    [one_line] = open_brackets(BLOCKS, _offset(BLOCKS, 12, 7))
    assert keys_set(BLOCKS, one_line) == {"a", "b"}


def test_string_at_finds_the_literal_around_an_offset() -> None:
    text = 'schema S:\n    """\n    \n    """\n    a: str = "x"\n'
    begin, close, quote = string_at(text, _offset(text, 2, 4)) or (0, 0, "")
    assert (text[begin:close], quote) == ("\n    \n    ", '"""')
    assert string_at(text, _offset(text, 4, 4)) is None
    assert mask('a = "{" # }\n', 0, 12) == 'a = " "    \n'


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (STR_T, '"$1"'),
        (ListType(STR_T), "[$1]"),
        (DictType(STR_T, STR_T), "{$1}"),
        (BOOL_T, "${1|True,False|}"),
        (UnionType((str_lit("a"), str_lit("b,c"))), '${1|"a","b\\,c"|}'),
        (UnionType((STR_T, NONE)), '"$1"'),
        (INT_T, "$1"),
    ],
)
def test_placeholders_follow_the_type(kind: Type, expected: str) -> None:
    assert placeholder(kind) == expected


def test_suggested_names_read_back_what_suggestion_text_wrote() -> None:
    hint = suggestion_text("replica", ["replicas", "replicate", "other"])
    assert suggested_names(f"name 'replica' is not defined{hint}") == ["replicas", "replicate"]
    assert suggested_names("got an unexpected keyword argument 'nam', did you mean 'name'?") == [
        "name"
    ]
    assert suggested_names("name 'x' is not defined") == []
