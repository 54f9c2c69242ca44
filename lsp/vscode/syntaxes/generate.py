"""Writes ``kcl.tmLanguage.json``, the TextMate grammar of the VS Code extension.

The grammar is built here from named regular-expression pieces (an identifier,
a dotted name, the end of a type annotation, ...) instead of being edited as
JSON, where every piece would be repeated, escaped twice. The builtin function
names and unit suffixes come from kclpy itself, so the highlighting follows the
language. Run ``python lsp/vscode/syntaxes/generate.py`` after a change
(``--check`` only tells whether the JSON is up to date, as tests/vscode does);
the extension's ``npm test`` checks the scopes the grammar gives.
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

from kclpy.syntax.literals import UNIT_SUFFIXES
from kclpy.syntax.universe import builtin_functions

Rule = dict[str, Any]

OUTPUT = pathlib.Path(__file__).with_name("kcl.tmLanguage.json")

IDENTIFIER = r"\$?[^\W\d]\w*"  # as the lexer: a leading $ escapes a keyword
DOTTED = rf"{IDENTIFIER}(?:\s*\.\s*{IDENTIFIER})*"
AUGMENTED = r"(?:\*\*|//|<<|>>|[-+*/%&|^])="
BUILTINS = "|".join(sorted(builtin_functions()))
UNITS = "|".join(sorted(UNIT_SUFFIXES, key=lambda suffix: (-len(suffix), suffix)))
KEYWORD = r"(?<![.$])\b"  # any keyword may follow a dot, and $if is a name
TYPE_NAME = r"(?<!\$)(?<![^.]\.)\b"  # but a type may follow "..." ([...str]: int)
BEFORE_BRACE = r"(?<=[\w\])}'\"])(?=\s*\{)"  # `x: S {`: the config after a type
DECLARATION_TYPE_END = rf"(?=\s*(?:=(?!=)|{AUGMENTED}))|{BEFORE_BRACE}|(?=\s*#)|$"


def include(*names: str) -> list[Rule]:
    return [{"include": f"#{name}"} for name in names]


def captures(*scopes: str | None) -> dict[str, Rule]:
    """Capture scopes by group number, from 1; None skips a group."""
    return {str(number): {"name": scope} for number, scope in enumerate(scopes, 1) if scope}


def type_context(begin: str, begin_scopes: list[str | None], end: str, name: str = "") -> Rule:
    """A rule that reads a type annotation after ``begin`` until ``end``."""
    rule: Rule = {"begin": begin, "beginCaptures": captures(*begin_scopes), "end": end}
    rule["patterns"] = include("type-expression")
    return {"name": name, **rule} if name else rule


def bracketed(begin: str, end: str, scope: str, patterns: list[Rule], name: str = "") -> Rule:
    """``begin ... end`` with ``scope.begin`` / ``scope.end`` on the brackets."""
    rule: Rule = {
        "begin": f"({begin})",
        "beginCaptures": captures(f"{scope}.begin.kcl"),
        "end": f"({end})",
        "endCaptures": captures(f"{scope}.end.kcl"),
        "patterns": patterns,
    }
    return {"name": name, **rule} if name else rule


def statement_rules() -> dict[str, Rule]:
    """Rules that only apply at the start of a statement."""
    rules: dict[str, Rule] = {
        "statement": {
            "patterns": include(
                "import",
                "decorator",
                "schema-definition",
                "mixin-definition",
                "protocol-definition",
                "rule-definition",
                "type-alias",
                "check-block",
                "mixin-statement",
                "declaration",
                "assignment-target",
            )
        },
        "import": {
            "match": rf"^\s*(import)\s+(\.*{IDENTIFIER}(?:\.{IDENTIFIER})*|\.+)"
            rf"(?:\s+(as)\s+({IDENTIFIER}))?",
            "name": "meta.statement.import.kcl",
            "captures": captures(
                "keyword.control.import.kcl",
                "entity.name.namespace.kcl",
                "keyword.control.import.kcl",
                "entity.name.namespace.kcl",
            ),
        },
        "decorator": {
            "name": "meta.decorator.kcl",
            "begin": rf"^\s*(@)\s*({DOTTED})",
            "beginCaptures": captures(
                "punctuation.definition.decorator.kcl", "entity.name.function.decorator.kcl"
            ),
            "end": r"(?=\s*#)|$",
            "patterns": include("arguments"),
        },
    }
    rules.update(declaration_rules())
    rules.update(definition_rules())
    return rules


def declaration_rules() -> dict[str, Rule]:
    """Type aliases, check blocks, mixin lists and the targets of assignments."""
    return {
        "type-alias": type_context(
            rf"^\s*(type)\s+({IDENTIFIER})\s*(=)",
            [
                "storage.type.type.kcl",
                "entity.name.type.alias.kcl",
                "keyword.operator.assignment.kcl",
            ],
            r"(?=\s*#)|$",
            name="meta.type.alias.kcl",
        ),
        "check-block": {
            "match": r"^\s*(check)\s*(:)(?=\s*(?:#.*)?$)",
            "captures": captures("keyword.other.check.kcl", "punctuation.separator.colon.kcl"),
        },
        "mixin-statement": {
            "match": r"^\s*(mixin)\s*(?=\[)",
            "captures": captures("storage.modifier.mixin.kcl"),
        },
        "declaration": type_context(
            rf"^\s*(?!(?:if|elif|else|for|assert|import|lambda)\b)({DOTTED})\s*(\?)?\s*(:)(?!=)",
            [
                "variable.other.declaration.kcl",
                "keyword.operator.optional.kcl",
                "punctuation.separator.annotation.kcl",
            ],
            DECLARATION_TYPE_END,
        ),
        "assignment-target": {
            "match": rf"^\s*(?!(?:if|elif|else|for|assert|import|lambda|not)\b)({DOTTED})"
            rf"(?=\s*(?:=(?!=)|{AUGMENTED}))",
            "captures": captures("variable.other.declaration.kcl"),
        },
    }


def definition_rules() -> dict[str, Rule]:
    """Headers of schema, mixin, protocol and rule definitions."""
    rules: dict[str, Rule] = {}
    for kind in ("schema", "mixin", "protocol"):
        rules[f"{kind}-definition"] = {
            "name": f"meta.{kind}.kcl",
            "begin": rf"^\s*({kind})\s+({IDENTIFIER})",
            "beginCaptures": captures(f"storage.type.{kind}.kcl", f"entity.name.type.{kind}.kcl"),
            "end": r"(:)|(?=\s*#)|$",
            "endCaptures": captures(f"punctuation.section.{kind}.begin.kcl"),
            "patterns": include("schema-parameters", "parent", "for-protocol"),
        }
    rules["rule-definition"] = {
        "name": "meta.rule.kcl",
        "begin": rf"^\s*(rule)\s+({IDENTIFIER})",
        "beginCaptures": captures("storage.type.rule.kcl", "entity.name.type.rule.kcl"),
        "end": r"(:)|(?=\s*#)|$",
        "endCaptures": captures("punctuation.section.rule.begin.kcl"),
        "patterns": include("schema-parameters", "parent-list", "for-protocol"),
    }
    rules.update(parameter_rules())
    inherited = "entity.other.inherited-class.kcl"
    rules["parent"] = {
        "match": rf"(\()\s*({DOTTED})\s*(\))",
        "captures": captures(
            "punctuation.definition.inheritance.begin.kcl",
            inherited,
            "punctuation.definition.inheritance.end.kcl",
        ),
    }
    rules["parent-list"] = bracketed(
        r"\(",
        r"\)",
        "punctuation.definition.inheritance",
        [
            {"match": DOTTED, "name": inherited},
            {"match": ",", "name": "punctuation.separator.inheritance.kcl"},
        ],
    )
    rules["for-protocol"] = {
        "match": rf"\b(for)\s+({DOTTED})",
        "captures": captures("keyword.other.for.kcl", inherited),
    }
    return rules


def parameter_rules() -> dict[str, Rule]:
    """Parameters of schemas, rules and lambdas: ``name: type = default``."""
    return {
        "schema-parameters": bracketed(
            r"\[",
            r"\]",
            "punctuation.definition.parameters",
            include("parameter", "expression"),
            name="meta.schema.parameters.kcl",
        ),
        "parameter": {
            "patterns": [
                type_context(
                    rf"({IDENTIFIER})\s*(:)",
                    ["variable.parameter.kcl", "punctuation.separator.annotation.kcl"],
                    rf"(?=\s*(?:[,=\])]|->))|{BEFORE_BRACE}|$",
                ),
                {
                    "match": rf"({IDENTIFIER})\s*(?=[,=\]]|->|\{{|$)",
                    "captures": captures("variable.parameter.kcl"),
                },
            ]
        },
    }


def function_rules() -> dict[str, Rule]:
    """Lambdas and the quantifiers (all, any, map, filter), which end at their body's brace."""
    body = bracketed(
        r"\{",
        r"\}",
        "punctuation.section.function",
        [{"include": "$self"}],
        name="meta.function.body.kcl",
    )
    header: Rule = {
        # parameters and return type, up to the body's brace (types may hold braces)
        "begin": r"\G(?!\s*\{)",
        "end": r"(?=\{)|(?=\s*#)|$",
        "patterns": [
            type_context(
                r"(->)", ["punctuation.separator.annotation.result.kcl"], rf"{BEFORE_BRACE}|$"
            ),
            {"match": ",", "name": "punctuation.separator.parameters.kcl"},
            {"match": "=", "name": "keyword.operator.assignment.kcl"},
            *include("parameter", "expression"),
        ],
    }
    variable = "variable.other.readwrite.kcl"
    return {
        "lambda": {
            "name": "meta.lambda-function.kcl",
            "begin": rf"{KEYWORD}(lambda)\b",
            "beginCaptures": captures("storage.type.function.lambda.kcl"),
            "end": r"(?<=\})|(?=\s*#)|$",
            "patterns": [header, body],
        },
        "quantifier": {
            "name": "meta.quantifier.kcl",
            "begin": rf"{KEYWORD}(all|any|map|filter)\s+({IDENTIFIER})"
            rf"(?:\s*(,)\s*({IDENTIFIER}))?\s+(in)\b",
            "beginCaptures": captures(
                "keyword.other.quantifier.kcl",
                variable,
                "punctuation.separator.element.kcl",
                variable,
                "keyword.operator.logical.kcl",
            ),
            "end": r"(?<=\})|(?=\s*#)|$",
            "patterns": [
                bracketed(r"\{", r"\}", "punctuation.section.block", include("expression")),
                {"match": rf"{DOTTED}(?=\s*\{{)", "name": variable},
                *include("expression"),
            ],
        },
    }


def expression_rules() -> dict[str, Rule]:
    """The pieces of an expression: literals, keywords, operators, names, comments."""
    return {
        "expression": {"patterns": include("comment", "expression-no-comment")},
        "expression-no-comment": {
            "patterns": include(
                "lambda",
                "quantifier",
                "strings",
                "numbers",
                "constants",
                "builtin-types",
                "keywords",
                "calls",
                "config",
                "list",
                "arguments",
                "operators",
                "identifier",
            )
        },
        "constants": {
            "match": rf"{KEYWORD}(True|False|None|Undefined)\b",
            "name": "constant.language.kcl",
        },
        "keywords": {
            "patterns": [
                {"match": rf"{KEYWORD}({words})\b", "name": scope}
                for words, scope in (
                    ("if|elif|else", "keyword.control.conditional.kcl"),
                    ("for", "keyword.control.loop.kcl"),
                    ("assert", "keyword.control.assert.kcl"),
                    ("import", "keyword.control.import.kcl"),
                    ("and|or|not|in|is", "keyword.operator.logical.kcl"),
                    ("as", "keyword.operator.cast.kcl"),
                    ("all|any|map|filter", "keyword.other.quantifier.kcl"),
                )
            ]
        },
        "builtin-types": {
            "match": rf"{TYPE_NAME}(str|int|float|bool|any)\b(?!\s*\()",
            "name": "support.type.kcl",
        },
        "numbers": {"patterns": number_rules()},
        "operators": {"patterns": operator_rules()},
        "identifier": {"match": IDENTIFIER, "name": "variable.other.readwrite.kcl"},
        "comment": {
            "match": r"(#).*$\n?",
            "name": "comment.line.number-sign.kcl",
            "captures": captures("punctuation.definition.comment.kcl"),
        },
    }


def bracket_rules() -> dict[str, Rule]:
    """Calls and schema expressions, configs ``{}``, lists ``[]`` and argument lists ``()``."""
    return {
        "calls": {
            "patterns": [
                {
                    "match": rf"(?<![.$\w])({BUILTINS})(?=\s*\()",
                    "name": "support.function.builtin.kcl",
                },
                {"match": r"(?<![$\w])([A-Z]\w*)(?=\s*\()", "name": "entity.name.type.kcl"},
                {
                    "match": rf"(?<![$\w])({IDENTIFIER})(?=\s*\()",
                    "name": "entity.name.function.kcl",
                },
                {"match": rf"(?<![$\w])({IDENTIFIER})(?=\s*\{{)", "name": "entity.name.type.kcl"},
            ]
        },
        "config": bracketed(
            r"\{",
            r"\}",
            "punctuation.section.config",
            include("comment", "config-key", "expression"),
            name="meta.config.kcl",
        ),
        "config-key": {
            "match": rf"(?:^|(?<=[{{,]))\s*(?!(?:if|elif|else|for)\b)({DOTTED})"
            r"\s*(?:(\+=)|(=)(?!=)|(:))",
            "captures": captures(
                "variable.other.property.kcl",
                "keyword.operator.assignment.augmented.kcl",
                "keyword.operator.assignment.kcl",
                "punctuation.separator.key-value.kcl",
            ),
        },
        "list": bracketed(
            r"\[", r"\]", "punctuation.section.brackets", include("comment", "expression")
        ),
        "arguments": bracketed(
            r"\(", r"\)", "punctuation.section.parens", include("argument-contents")
        ),
        "argument-contents": {
            "patterns": [
                *include("comment"),
                {
                    "match": rf"({IDENTIFIER})\s*(=)(?!=)",
                    "captures": captures(
                        "variable.parameter.kcl", "keyword.operator.assignment.kcl"
                    ),
                },
                *include("expression"),
            ]
        },
    }


def number_rules() -> list[Rule]:
    unit = captures("keyword.other.unit.kcl")
    return [
        # the reference also accepts a unit after these (0x10Ki, 2.5Ki)
        {
            "match": rf"\b0x[0-9A-Fa-f_]+({UNITS})?\b",
            "name": "constant.numeric.hex.kcl",
            "captures": unit,
        },
        {
            "match": rf"\b0o[0-7_]+({UNITS})?\b",
            "name": "constant.numeric.octal.kcl",
            "captures": unit,
        },
        {
            "match": rf"\b0b[01_]+({UNITS})?\b",
            "name": "constant.numeric.binary.kcl",
            "captures": unit,
        },
        {
            "match": r"\b\d[\d_]*(?:\.(?!\.|[^\W\d])\d*(?:[eE][+-]?\d+)?|[eE][+-]?\d+)"
            rf"(?:({UNITS})\b)?",
            "name": "constant.numeric.float.kcl",
            "captures": unit,
        },
        {
            "match": rf"\b(\d[\d_]*)({UNITS})\b",
            "name": "constant.numeric.integer.decimal.kcl",
            "captures": captures(None, "keyword.other.unit.kcl"),
        },
        {"match": r"\b\d[\d_]*\b", "name": "constant.numeric.integer.decimal.kcl"},
        {"match": r"\b\d\w+", "name": "invalid.illegal.name.kcl"},
    ]


def operator_rules() -> list[Rule]:
    return [
        {"match": pattern, "name": scope}
        for pattern, scope in (
            (r"->", "punctuation.separator.annotation.result.kcl"),
            (r"\?\.|\?(?=\[)", "punctuation.accessor.optional.kcl"),
            (r"\.\.\.", "keyword.operator.ellipsis.kcl"),
            (r"\.", "punctuation.accessor.kcl"),
            (AUGMENTED, "keyword.operator.assignment.augmented.kcl"),
            (r"==|!=|<=|>=|<(?!<)|>(?!>)", "keyword.operator.comparison.kcl"),
            (r"=", "keyword.operator.assignment.kcl"),
            (r"\*\*|//|[-+*/%]", "keyword.operator.arithmetic.kcl"),
            (r"<<|>>|[&|^~]", "keyword.operator.bitwise.kcl"),
            (r"\?", "keyword.operator.optional.kcl"),
            (r",", "punctuation.separator.element.kcl"),
            (r":", "punctuation.separator.colon.kcl"),
            (r";", "invalid.illegal.semicolon.kcl"),
            (r"\\$", "punctuation.separator.continuation.line.kcl"),
        )
    ]


def type_rules() -> dict[str, Rule]:
    """Type annotations: builtin and named types, literal types, [T], {K:V}, (A) -> R, unions."""
    definition = "punctuation.definition.type"
    nested = include("type-expression")
    return {
        "type-expression": {
            "patterns": [
                *include("strings", "numbers", "constants"),
                # x: Schema(args) {...}: the arguments of a schema, not a function type
                {
                    **bracketed(
                        r"\(", r"\)", "punctuation.section.parens", include("argument-contents")
                    ),
                    "begin": r"(?<=\w)(\()",
                },
                {"match": rf"{TYPE_NAME}(any|str|int|float|bool)\b", "name": "support.type.kcl"},
                {"match": r"\|", "name": "keyword.operator.type.union.kcl"},
                {"match": r"->", "name": "punctuation.separator.annotation.result.kcl"},
                bracketed(r"\[", r"\]", f"{definition}.list", nested),
                bracketed(r"\{", r"\}", f"{definition}.dict", nested),
                bracketed(r"\(", r"\)", f"{definition}.parameters", nested),
                {"match": r":", "name": "punctuation.separator.colon.kcl"},
                {"match": r",", "name": "punctuation.separator.element.kcl"},
                {"match": DOTTED, "name": "entity.name.type.kcl"},
            ]
        }
    }


STRING_FORMS = (
    # (rule key, quote, scope, may span lines)
    ("triple-double", '"""', "string.quoted.double.block.kcl", True),
    ("triple-single", "'''", "string.quoted.single.block.kcl", True),
    ("double", '"', "string.quoted.double.kcl", False),
    ("single", "'", "string.quoted.single.kcl", False),
)


def string_rules() -> dict[str, Rule]:
    """The four quote forms, raw (r"...") or not; non-raw ones have escapes and ${...}."""
    rules: dict[str, Rule] = {}
    begin, end = "punctuation.definition.string.begin.kcl", "punctuation.definition.string.end.kcl"
    for key, quote, scope, multiline in STRING_FORMS:
        line_end = "" if multiline else r"|(\n)"
        ends = {
            "end": f"({quote}){line_end}",
            "endCaptures": captures(end, None if multiline else "invalid.illegal.newline.kcl"),
        }
        rules[f"string-{key}"] = {
            "name": scope,
            "begin": f"({quote})",
            "beginCaptures": captures(begin),
            **ends,
            "patterns": include("string-escape", f"interpolation-{key}"),
        }
        rules[f"string-raw-{key}"] = {
            "name": scope.replace("string.quoted.", "string.quoted.raw."),
            "begin": f"([rR])({quote})",
            "beginCaptures": captures("storage.type.string.kcl", begin),
            **ends,
        }
        rules[f"interpolation-{key}"] = {
            "name": "meta.interpolation.kcl",
            "begin": r"(\$\{)",
            "beginCaptures": captures("punctuation.section.interpolation.begin.kcl"),
            # an interpolation cannot hold its string's quote, nor a newline in a one-line string
            "end": rf"(\}})|(?={quote})" + ("" if multiline else r"|(?=\n)"),
            "endCaptures": captures("punctuation.section.interpolation.end.kcl"),
            "contentName": "meta.embedded.expression.kcl",
            "patterns": include("format-spec", "expression-no-comment"),
        }
    forms = [key for key, *_ in STRING_FORMS]
    rules["strings"] = {
        "patterns": include(*(f"string-raw-{k}" for k in forms), *(f"string-{k}" for k in forms))
    }
    rules["string-escape"] = {
        "name": "constant.character.escape.kcl",
        "match": r"\\(?:[\\'\"abfnrtv0$\n]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}"
        r"|[0-7]{1,3}|N\{[^}]+\})",
    }
    rules["format-spec"] = {
        "match": r"(:)\s*(#(?:json|yaml))(?=\s*\})",
        "captures": captures("punctuation.separator.format-spec.kcl", "storage.type.format.kcl"),
    }
    return rules


def grammar() -> Rule:
    repository: dict[str, Rule] = {}
    for part in (
        statement_rules,
        parameter_rules,
        function_rules,
        expression_rules,
        bracket_rules,
        type_rules,
        string_rules,
    ):
        repository.update(part())
    return {
        "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
        "name": "KCL",
        "scopeName": "source.kcl",
        "fileTypes": ["k"],
        "patterns": include("comment", "statement", "expression"),
        "repository": dict(sorted(repository.items())),
    }


def render() -> str:
    return json.dumps(grammar(), indent=2, ensure_ascii=False) + "\n"


def main(arguments: list[str]) -> int:
    """Write the grammar; with ``--check``, only say whether the file is up to date."""
    text = render()
    if arguments == ["--check"]:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else ""
        if current != text:
            sys.stderr.write(f"{OUTPUT} is stale: run python {pathlib.Path(__file__)}\n")
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
