"""The generated parse tables: fresh, conflict count pinned, grammar file in sync,
and loading them neither writes files nor prints anything."""

from __future__ import annotations

import os
import pathlib
import random
import re
import subprocess
import sys
import types
from typing import Any

import ply.lex
import ply.yacc
import pytest

from kclpy.syntax import driver, grammar, lexer, parse_source, parser, parsetab, tables
from kclpy.syntax.dump import dump

ROOT = pathlib.Path(__file__).resolve().parents[2]
GRAMMAR_FILE = ROOT / "grammar" / "kcl.grammar"
REGEN = "python -m kclpy.syntax.tables --regen"


def _reflect() -> ply.yacc.ParserReflect:
    info = ply.yacc.ParserReflect(grammar.grammar_dict())
    info.get_all()
    assert not info.error
    return info


def test_tables_are_fresh() -> None:
    assert parsetab._lr_signature == _reflect().signature(), f"stale tables: run {REGEN}"


def test_signature_without_ply_is_plys() -> None:
    assert grammar.grammar_signature(grammar.grammar_dict()) == _reflect().signature()


def test_runtime_tables_parse_like_plys_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = parser.get_parser()
    assert isinstance(loaded, grammar.Tables)  # the fast path: parsetab.py is fresh
    built = tables.build_in_memory(grammar.grammar_dict())
    assert [(r.name, r.len, r.callable) for r in loaded.productions] == [
        (p.name, p.len, p.callable) for p in built.productions
    ]
    programs = [
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "tests" / "conformance").rglob("*.k"))[:150]
    ]
    programs += ["a = [1, 2\nb = (\n", "schema A:\n  x: int\n y = 1\n", "x = {a: 1, }}\n"]

    def parse_all() -> list[str]:
        results = []
        for text in programs:
            module, diagnostics = parse_source(text, "main.k")
            results.append(dump(module) + "".join(d.message for d in diagnostics))
        return results

    with_tables = parse_all()
    monkeypatch.setattr(parser, "_parser", built)
    assert parse_all() == with_tables


def _unstored() -> types.SimpleNamespace:
    """parsetab's ply tables without the machine data --regen derives from them."""
    return types.SimpleNamespace(
        _lr_action=parsetab._lr_action,
        _lr_goto=parsetab._lr_goto,
        _lr_productions=parsetab._lr_productions,
    )


def test_stored_machine_data_is_what_the_machine_derives() -> None:
    """The machine data in parsetab.py (rule kinds, default reductions, goto targets,
    literal runs, absorbed tokens) equals what building the machine computes now from
    the ply tables and the rules' marks: stale after a mark changes without --regen."""
    loaded = parser.get_parser()
    assert loaded.derived is not None, f"no machine data in parsetab.py: run {REGEN}"
    computed = driver.Machine(grammar.Tables(_unstored(), grammar.grammar_dict())).derived()
    assert loaded.derived == computed, f"stale machine data: run {REGEN}"
    assert driver.Machine(loaded).derived() == computed


def test_machine_data_of_other_marks_is_not_used() -> None:
    """Stored data whose rule kinds differ from the rules' marks now (a mark edited
    without --regen) is ignored: the machine derives its own."""
    stale = grammar.Tables(parsetab, grammar.grammar_dict())
    assert stale.derived is not None
    kinds, defaults, by_name, _runs, _absorbed = stale.derived
    stale.derived = ([driver.CALL] * len(kinds), defaults, by_name, {}, [])
    computed = driver.Machine(grammar.Tables(_unstored(), grammar.grammar_dict())).derived()
    assert driver.Machine(stale).derived() == computed


def test_master_regex_without_ply_is_plys() -> None:
    built = ply.lex.lex(module=lexer, reflags=re.UNICODE, errorlog=ply.lex.NullLogger())
    (regex, _index), *rest = built.lexre
    assert not rest
    assert lexer.master_pattern() == regex.pattern


def test_conflicts_are_pinned() -> None:
    log = tables.ConflictLog()
    tables.generate_tables(None, log)
    assert log.reduce_reduce == grammar.REDUCE_REDUCE_CONFLICTS == 0
    assert log.shift_reduce == grammar.SHIFT_REDUCE_CONFLICTS, log.messages


def _productions_from_parser() -> list[tuple[str, tuple[str, ...]]]:
    result = []
    productions = []
    for line, _module, name, doc in _reflect().pfuncs:
        productions.extend(ply.yacc.parse_grammar(doc, name, line))
    for _file, _line, name, symbols in productions:
        if "%prec" in symbols:
            symbols = symbols[: symbols.index("%prec")]
        result.append((name, tuple(symbols)))
    return sorted(result)


def _productions_from_file() -> list[tuple[str, tuple[str, ...]]]:
    result = []
    name = ""
    for raw in GRAMMAR_FILE.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        head = re.match(r"^(\w+)\s*:(.*)$", line)
        if head:
            name, rhs = head.group(1), head.group(2)
        else:
            alternative = re.match(r"^\s+\|(.*)$", line)
            assert alternative and name, f"bad grammar line: {raw!r}"
            rhs = alternative.group(1)
        symbols = tuple(s for s in rhs.split() if s != "<empty>")
        result.append((name, symbols))
    return sorted(result)


def test_grammar_file_matches_the_parser() -> None:
    in_parser = _productions_from_parser()
    in_file = _productions_from_file()
    missing = sorted(set(in_parser) - set(in_file))
    extra = sorted(set(in_file) - set(in_parser))
    assert not missing and not extra, f"grammar/kcl.grammar: missing {missing}, extra {extra}"
    assert in_parser == in_file


def test_only_table_generation_imports_ply() -> None:
    package = ROOT / "src" / "kclpy"
    offenders = []
    for path in package.rglob("*.py"):
        if path.name == "parsetab.py":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"^\s*(import ply|from ply)", text, re.MULTILINE):
            offenders.append(str(path.relative_to(package)))
    assert sorted(offenders) == ["syntax/tables.py"]


def test_loading_writes_nothing_and_prints_nothing(tmp_path: pathlib.Path) -> None:
    package = ROOT / "src" / "kclpy" / "syntax"
    before = sorted(os.listdir(package))
    stamp = (package / "parsetab.py").stat().st_mtime_ns
    code = (
        "from kclpy.syntax import parse_source\n"
        "m, d = parse_source('a = [1, 2\\nb = (\\n')\n"
        "assert d\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    assert os.listdir(tmp_path) == []
    assert sorted(os.listdir(package)) == before
    assert (package / "parsetab.py").stat().st_mtime_ns == stamp


_CRAFTED = [
    "r'x' R\"y\" rx Rb $r'z' _a a_1 0x1F 0b2 1.5e3 1Ki 1..2 1.a 0_1 '''a\nb''' 'q\\'' \n",
    's = "unterminated\nt = \'also\n"""open to the end  \n  ',
    "a<<=b<=c<<d<e>>=f>=g>>h>i**=j**k*=l*m//=n//o/=p/q...r.s->t-=u-v\n",
    "x = $a + $ ! != == = \\\n y; @ ? ~ ^= ^ |= | &= & %= % += + \\",
    '"""a\\""" b""" r"""\\\\""" """""" \'\'\'x\\\'\'\' y\'\'\' R\'\'\'\n\'\'\' """a"b""" """\\n"""',
]
_NON_ASCII_NAMES = "abé = 1\nx = 'é' # é\n$é = 2 ℘ ² a\u2028b = 1\x85 # c  \n  "


def _programs() -> list[str]:
    return [path.read_text(encoding="utf-8") for path in sorted((ROOT / "tests").rglob("*.k"))]


def _rows(tokens: list[Any]) -> list[tuple[str, Any, int, int]]:
    return [(t.type, t.value, t.lexpos, t.end) for t in tokens]


def test_punctuation_and_simple_token_tables_equal_the_master_regex() -> None:
    for text in _programs() + _CRAFTED:
        assert _rows(lexer.general_tokens(text)) == _rows(lexer.regex_tokens(text))


def test_scanner_gives_the_tokens_of_the_general_loop() -> None:
    """The findall scanner and the general loop agree on whole texts and on slices
    (where the scanner hands over to the general loop mid-text)."""
    for text in [*_programs(), *_CRAFTED, _NON_ASCII_NAMES]:
        assert _rows(lexer.raw_tokens(text)) == _rows(lexer.general_tokens(text))
        step = max(1, len(text) // 5)
        for start in range(0, len(text), step):
            end = min(len(text), start + 2 * step)
            sliced = _rows(lexer.raw_tokens(text, start, end))
            assert sliced == _rows(lexer.general_tokens(text, start, end))


def test_scanner_agrees_with_the_general_loop_on_random_texts() -> None:
    pieces = [*"ab rR_$09.eE+-*/<>=!&|^%~@?:;,()[]{}#\"'\\\n\t\r", "é", "²", "℘", "\x85"]
    pieces += ['"""', "'''", "0x", "1Ki", "\\\n", "${", "abc", "\u2028"]
    chooser = random.Random(3)
    for _ in range(5000):
        text = "".join(chooser.choice(pieces) for _ in range(chooser.randint(0, 20)))
        assert _rows(lexer.raw_tokens(text)) == _rows(lexer.general_tokens(text)), repr(text)
