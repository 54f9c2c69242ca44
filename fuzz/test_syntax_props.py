"""Property tests of the syntax stage (hypothesis).

* Programs built from a grammar-based strategy (expressions, configs, lists,
  comprehensions, schemas, if blocks, lambdas, interpolated strings) parse
  without diagnostics.
* Lists of literals and other items, with any separators and layout, parse to the
  same tree and diagnostics whether the LR driver takes literal runs or not.
* Any bytes, and every truncation of the sample programs, parse without an
  exception: a Module and a list of diagnostics always come back, and the tree
  can be walked and dumped.
"""

from __future__ import annotations

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.syntax import ast, literals, parse_bytes, parse_source, parser
from kclpy.syntax.dump import dump
from kclpy.syntax.walk import walk

pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

CASES = pathlib.Path(__file__).resolve().parents[1] / "tests" / "syntax" / "cases"
KEYWORDS = {
    "if",
    "elif",
    "else",
    "for",
    "in",
    "not",
    "and",
    "or",
    "is",
    "as",
    "import",
    "schema",
    "mixin",
    "protocol",
    "check",
    "assert",
    "lambda",
    "rule",
    "type",
    "all",
    "any",
    "map",
    "filter",
    "True",
    "False",
    "None",
    "Undefined",
}

names = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n not in KEYWORDS)
schema_names = st.from_regex(r"[A-Z][a-zA-Z0-9]{0,6}", fullmatch=True).filter(
    lambda n: n not in KEYWORDS and not n.endswith(("Mixin", "Protocol"))
)
numbers = st.one_of(
    st.integers(0, 10**12).map(str),
    st.sampled_from(["0x1F", "0o17", "0b101", "1_000", "1.5", "2.", "1e3", "1Ki", "5Gi", "3m"]),
)
plain_text = st.text(alphabet="abc XYZ-_./:", max_size=8)
strings = st.one_of(
    plain_text.map(lambda s: f'"{s}"'),
    plain_text.map(lambda s: f"'{s}'"),
    st.tuples(plain_text, names).map(lambda p: f'"{p[0]}${{{p[1]}}}"'),
    names.map(lambda n: f'"${{{n}: #json}}"'),
)
atoms = st.one_of(names, numbers, strings, st.sampled_from(["True", "False", "None", "Undefined"]))
binary_ops = st.sampled_from(
    [
        "+",
        "-",
        "*",
        "/",
        "//",
        "%",
        "**",
        "|",
        "&",
        "^",
        "<<",
        ">>",
        "and",
        "or",
        "==",
        "!=",
        "<",
        "<=",
        ">",
        ">=",
        "in",
        "not in",
        "is",
        "is not",
    ]
)


def _compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, binary_ops, inner).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
        st.tuples(st.sampled_from(["-", "+", "~", "not "]), atoms).map("".join),
        inner.map(lambda e: f"({e})"),
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.lists(st.tuples(names, st.sampled_from([":", "=", "+="]), inner), max_size=3).map(
            lambda entries: "{" + ", ".join(f"{k} {op} {v}" for k, op, v in entries) + "}"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]}) if ({t[1]}) else {t[2]}"),
        st.tuples(names, st.lists(inner, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
        st.tuples(names, names).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(names, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(names, names, inner).map(lambda t: f"[{t[0]} for {t[0]} in {t[1]} if {t[2]}]"),
        st.tuples(names, names).map(lambda t: f"{{k: v for k, v in {t[0]}.{t[1]}}}"),
        st.tuples(st.sampled_from(["all", "any", "map", "filter"]), names, names, inner).map(
            lambda t: f"{t[0]} {t[1]} in {t[2]} {{ ({t[3]}) }}"
        ),
        st.tuples(names, inner).map(lambda t: f"lambda {t[0]} {{ {t[1]} }}"),
        st.tuples(schema_names, names, inner).map(lambda t: f"{t[0]} {{{t[1]} = {t[2]}}}"),
        st.tuples(inner, inner).map(lambda t: f"[if {t[0]}: {t[1]}]"),
    )


expressions = st.recursive(atoms, _compound, max_leaves=12)
types = st.one_of(
    st.sampled_from(["int", "str", "float", "bool", "any", "[int]", "{str:any}", '"a" | "b"']),
    schema_names,
)


def _statement(indent: str) -> st.SearchStrategy[list[str]]:
    simple = st.one_of(
        st.tuples(names, expressions).map(lambda t: [f"{indent}{t[0]} = {t[1]}"]),
        st.tuples(names, types, expressions).map(lambda t: [f"{indent}{t[0]}: {t[1]} = {t[2]}"]),
        st.tuples(names, expressions).map(lambda t: [f"{indent}_{t[0]} += {t[1]}"]),
        expressions.map(lambda e: [f"{indent}assert ({e})"]),
        expressions.map(lambda e: [f"{indent}print({e})"]),
    )
    block = st.tuples(expressions, st.lists(simple, min_size=1, max_size=3)).map(
        lambda t: [f"{indent}if {t[0]}:"] + ["    " + line for stmt in t[1] for line in stmt]
    )
    return st.one_of(simple, block)


attribute = st.tuples(names, st.booleans(), types, st.one_of(st.none(), expressions)).map(
    lambda t: f"    {t[0]}{'?' if t[1] else ''}: {t[2]}" + ("" if t[3] is None else f" = {t[3]}")
)
schemas = st.tuples(
    schema_names, st.lists(attribute, min_size=1, max_size=4), st.lists(expressions, max_size=2)
).map(
    lambda t: (
        [f"schema {t[0]}:"]
        + t[1]
        + (["", "    check:"] + [f"        ({c})" for c in t[2]] if t[2] else [])
    )
)
programs = st.lists(st.one_of(_statement(""), schemas), max_size=6).map(
    lambda stmts: "\n".join(line for stmt in stmts for line in stmt) + "\n"
)


def _well_formed(module: ast.Module) -> None:
    assert isinstance(module, ast.Module)
    for node in walk(module):
        assert 0 <= node.span.start <= node.span.end <= len(module.file.text)
    dump(module)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs)
def test_generated_programs_parse(source: str) -> None:
    module, diagnostics = parse_source(source, "gen.k")
    assert [d.message for d in diagnostics] == [], source
    _well_formed(module)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_any_bytes_parse_without_exceptions(data: bytes) -> None:
    module, diagnostics = parse_bytes(data, "random.k")
    assert isinstance(diagnostics, list)
    assert all(d.code.kind != "InternalError" for d in diagnostics)
    _well_formed(module)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab1 =:[](){}\n\t\"'#$\\.,+-*ifelsforschema", max_size=200))
def test_token_soup_parses_without_exceptions(source: str) -> None:
    module, diagnostics = parse_source(source, "soup.k")
    assert all(d.code.kind != "InternalError" for d in diagnostics)
    _well_formed(module)


_LIST_PARTS = st.sampled_from(
    [
        "1",
        "22",
        '"s"',
        "'t'",
        "2.5",
        "3Ki",
        "x",
        "-1",
        "1 + 2",
        "[1, 2]",
        "*a",
        "if a: 1",
        "True",
        '"${x}"',
        "lambda {1}",
        "{k = 1}",
    ]
)
_LIST_SEPARATORS = st.sampled_from([", ", ",", ",\n", "\n", " ", ",\n\n", ", # c\n", ",,"])


@st.composite
def _list_soup(draw: st.DrawFn) -> str:
    items = draw(st.lists(_LIST_PARTS, max_size=12))
    text = "a = ["
    for item in items:
        text += item + draw(_LIST_SEPARATORS)
    return text + draw(st.sampled_from(["]", "", ")", "] + [1, 2]", " for x in [1, 2]]"])) + "\n"


@settings(max_examples=300, deadline=None)
@given(_list_soup())
def test_literal_runs_parse_as_the_machine_does(source: str) -> None:
    machine = parser._machine(parser.get_parser())
    module, diagnostics = parse_source(source, "list.k")
    fast = (dump(module), [d.message for d in diagnostics])
    saved = dict(machine.runs)
    machine.runs.clear()
    try:
        module, diagnostics = parse_source(source, "list.k")
    finally:
        machine.runs.update(saved)
    assert fast == (dump(module), [d.message for d in diagnostics])


def test_every_truncation_of_the_samples() -> None:
    for path in sorted(CASES.glob("*.k")):
        text = path.read_text(encoding="utf-8")
        for end in range(len(text) + 1):
            module, diagnostics = parse_source(text[:end], path.name)
            assert isinstance(module, ast.Module)
            assert all(d.code.kind != "InternalError" for d in diagnostics), (path.name, end)


_PIECES = ["    ", "  ", " ", "\t", "\n", "x", "\r", "\u3000", "\x0c"]


@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_dedent_fast_path_matches_the_line_by_line_rule(text: str) -> None:
    # the C-call dedent of space-indented docstrings and the per-line rule agree everywhere
    assert literals.dedent_string(text) == literals.dedent_lines(text)
