"""Differential checks against the reference (kcl-lib, in a subprocess) of what the
parser does at the edges of the grammar:

* keywords as names: every keyword in every position a name can take (schema
  attributes, config keys, selectors, arguments, parameters, operands...) is
  accepted or rejected as by the reference, but for the differences listed in
  ``KNOWN_LAXER`` (kclpy accepts, the reference rejects);
* an unclosed bracket: the reference's last message and position, plus a label at
  the bracket;
* recovery: after a syntax error the program's trees are checked as recovered, so
  the error kinds ``kcl run`` reports are the reference's.

Skipped when kcl-lib is not installed.
"""

from __future__ import annotations

import importlib.util
import re

import pytest
from reference import call_reference, run_reference

from kclpy import api
from kclpy.syntax import ast, parse_source
from kclpy.syntax.tokens import KEYWORDS

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("kcl_lib") is None, reason="kcl-lib (the reference) not installed"
)

# Where a name may stand; K is replaced by each keyword. (Not `[K]`: the reference
# loops without end on `[if]`.)
CONTEXTS = {
    "attr": "schema A:\n    K: int\n",
    "attr_opt": "schema A:\n    K?: int\n",
    "attr_default": "schema A:\n    K: int = 1\n",
    "attr_after": "schema A:\n    x: int\n    K: int\n",
    "attr_after_if": "schema A:\n    if True:\n        x = 1\n    K: int\n",
    "schema_assign": "schema A:\n    K = 1\n",
    "schema_dotted": "schema A:\n    x: int\n    K.b = 2\n",
    "top_assign": "K = 1\n",
    "top_annotated": "K: int = 1\n",
    "top_after": "x = 1\nK = 2\n",
    "top_dotted": "K.b = 1\n",
    "expr_stmt": "K\n",
    "config_colon": "a = {K: 1}\n",
    "config_assign": "a = {K = 1}\n",
    "config_dotted": "a = {K.b: 1}\n",
    "config_nested": "a = {b.K: 1}\n",
    "config_later": "a = {b = 1, K = 2}\n",
    "config_lines": "a = {\n    b = 1\n    K = 2\n}\n",
    "config_value": "a = {b = K}\n",
    "schema_expr": "a = A {K = 1}\n",
    "selector": "a = b.K\n",
    "keyword_arg": "a = f(K=1)\n",
    "arg": "a = f(K)\n",
    "operand": "a = K\n",
    "binary": "a = 1 + K\n",
    "type": "a: K = 1\n",
    "schema_param": "schema A[K: int]:\n    x: int = 1\n",
    "lambda_param": "f = lambda K {1}\n",
    "index_signature": "schema A:\n    [K: str]: str\n",
    "import_as": "import a as K\n",
    "quantifier": "a = all K in [1] {True}\n",
    "comprehension": "a = [1 for K in [1]]\n",
    "check": "schema A:\n    x: int\n    check:\n        K\n",
}

# kclpy takes these as names where the reference does not (the soft keywords of
# kclpy's grammar start no statement there; `not in` is one token).
_SOFT = ("schema", "mixin", "protocol", "rule", "type")
KNOWN_LAXER = {
    *((context, word) for context in ("top_assign", "top_annotated") for word in _SOFT),
    *((context, word) for context in ("top_after", "top_dotted", "expr_stmt") for word in _SOFT),
    ("attr", "mixin"),
    ("attr_default", "mixin"),
    ("attr_opt", "mixin"),
    ("attr_opt", "check"),
    ("schema_assign", "mixin"),
    ("schema_assign", "check"),
    ("schema_dotted", "check"),
    ("quantifier", "not"),
    ("comprehension", "not"),
}

_SYNTAX_ORACLE = r"""
import json, sys
import kcl_lib.api as api
a = api.API()
out = []
for source in json.load(sys.stdin):
    r = a.parse_file(api.ParseFileArgs(path="main.k", source=source))
    out.append([[m.msg, m.pos.line, m.pos.column] for e in r.errors
                if e.code == "Error(InvalidSyntax)" for m in e.messages])
print(json.dumps(out))
"""


def _programs() -> list[tuple[str, str, str]]:
    return [
        (context, word, template.replace("K", word))
        for context, template in CONTEXTS.items()
        for word in KEYWORDS
    ]


def _rejects(source: str) -> bool:
    _, diagnostics = parse_source(source, "main.k")
    return any(d.code.kind == "InvalidSyntax" for d in diagnostics)


def test_keywords_as_names_as_the_reference() -> None:
    programs = _programs()
    answers = call_reference(_SYNTAX_ORACLE, [source for _, _, source in programs], timeout=300)
    different = set()
    for (context, word, source), errors in zip(programs, answers, strict=True):
        if _rejects(source) != bool(errors):
            different.add((context, word))
    assert different - KNOWN_LAXER == set()
    assert KNOWN_LAXER - different == set(), "a known difference is gone: drop it from the list"


def test_keyword_attribute_runs() -> None:
    # kcl-lang/modules: `import: [str]` in a schema; the instance has the attribute
    source = (
        "schema A:\n    import: [str]\n    in?: int\n\n"
        'a = A {import = ["x"], in = 1}\nb = a.import\n'
    )
    result = api.run(source)
    assert result.diagnostics == []
    assert result.text == run_reference(source).stdout


UNCLOSED = [
    "a = {\n    b = 1\n",
    "a = {\n    b = [1,\n        2\n",
    "schema A:\n    x: {str:int} = {\n        a = 1\n",
]


def _rendered(stderr: str) -> list[tuple[int, int, str]]:
    """(line, column, message) of each error the reference printed."""
    found = []
    for block in stderr.split("error[")[1:]:
        where = re.search(r"--> .*:(\d+):(\d+)", block)
        said = re.search(r"\^ (.+)$", block, re.MULTILINE)
        if where and said:
            found.append((int(where.group(1)), int(where.group(2)), said.group(1).strip()))
    return found


@pytest.mark.parametrize("source", UNCLOSED, ids=range(len(UNCLOSED)))
def test_unclosed_bracket(source: str) -> None:
    _, diagnostics = parse_source(source, "main.k")
    assert len(diagnostics) == 1, "one error for one problem"
    (diagnostic,) = diagnostics
    assert diagnostic.message.endswith("got eof")
    assert diagnostic.span is not None
    line, column = diagnostic.span.begin_pos
    assert (line, column, diagnostic.message) in _rendered(run_reference(source).stderr)
    opened = diagnostic.labels[1]
    assert opened.span is not None
    bracket = source[opened.span.start]
    assert opened.message == f"unclosed '{bracket}'"
    closer = {"(": ")", "[": "]", "{": "}"}[bracket]
    assert diagnostic.message == f'expected one of ["{closer}"] got eof'


def test_unclosed_bracket_told_once() -> None:
    # the line break ends the call's arguments (an error): the end says no more
    _, diagnostics = parse_source("x = f(1,\n    2\n", "main.k")
    assert [d.message for d in diagnostics] == ['expected one of [")"] got newline']


def test_error_inside_a_never_closed_bracket_names_it() -> None:
    _, diagnostics = parse_source("b = [1, 2\nc = 3\nd = 4\n", "main.k")
    (diagnostic,) = diagnostics
    assert diagnostic.message == "unexpected token '='"
    assert [label.message for label in diagnostic.labels[1:]] == ["unclosed '['"]
    assert diagnostic.labels[1].span is not None
    assert diagnostic.labels[1].span.begin_pos == (1, 5)


def test_a_closed_bracket_is_not_labelled() -> None:
    _, diagnostics = parse_source("a = {\n    b = 1 +\n    c = = 2\n}\n", "main.k")
    assert diagnostics
    assert all(len(d.labels) == 1 for d in diagnostics)


def test_an_error_inside_a_closed_bracket_skips_to_its_closer() -> None:
    source = "schema B(A, C):\n    b: str\nd = [1, = 2] + [3]\n"
    module, diagnostics = parse_source(source, "main.k")
    assert [d.message for d in diagnostics] == [
        'expected one of [")"] got ,',
        "unexpected token '='",
    ]
    schema, assign = module.body
    assert isinstance(schema, ast.SchemaStmt) and isinstance(assign, ast.AssignStmt)
    assert isinstance(assign.value, ast.BinaryExpr)
    assert (
        schema.parent is not None
        and source[schema.parent.span.start : schema.parent.span.end] == "A"
    )
    assert [stmt.name for stmt in schema.body if isinstance(stmt, ast.SchemaAttr)] == ["b"]


def test_a_name_missing_in_a_dotted_import_path_is_a_placeholder() -> None:
    module, diagnostics = parse_source("import .a..b as c\nd = c.x\n", "main.k")
    assert [d.message for d in diagnostics] == ['expected one of ["identifier"] got .']
    imported, _ = module.body
    assert isinstance(imported, ast.ImportStmt) and imported.path == ".a..b"


RECOVERED = [
    'result = True\nerror, if not result, "failed"\n',
    "a==\n",
    "a, b = 1, 2\n",
    "a = 1 +\nb = c\n",
    "schema A:\n    x: int = = 1\nb = A {y = 1}\n",
    "schema A:\n    x: int\n\nb = A {x = 1} )\nc = d\n",
    "schema KnowMixin:\n    a: int\n\nschema B(KnowMixin, C):\n    b: str\n\nx = B {a = 1}\n",
    "import .a..b as c\n",
]

_KIND = re.compile(r"error\[\w+\]: (\w+)")


@pytest.mark.parametrize("source", RECOVERED, ids=range(len(RECOVERED)))
def test_follow_on_error_kinds_as_the_reference(source: str) -> None:
    reference = run_reference(source)
    assert reference.returncode == 1
    theirs = set(_KIND.findall(reference.stderr))
    result = api.run(source)
    ours = {d.code.kind for d in result.diagnostics if d.is_error}
    assert ours == theirs, reference.stderr
    syntax = [d for d in result.diagnostics if d.code.kind == "InvalidSyntax"]
    assert len({d.span.begin_pos[0] for d in syntax if d.span}) == len(syntax), "no cascades"
