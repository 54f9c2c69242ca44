"""The VS Code extension (lsp/vscode) agrees with kclpy itself: its TextMate
grammar is what syntaxes/generate.py writes (from kclpy's builtin functions and
unit suffixes) and has a rule for every keyword of the lexer, and every snippet
expands to KCL that kclpy parses. Runs without npm (the extension's own tests,
`npm test`, run in .ci/run when npm is present).
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from kclpy.syntax import parse_source
from kclpy.syntax.tokens import KEYWORDS

EXTENSION = pathlib.Path(__file__).resolve().parents[2] / "lsp" / "vscode"
GRAMMAR = json.loads((EXTENSION / "syntaxes" / "kcl.tmLanguage.json").read_text())
SNIPPETS: dict[str, dict[str, Any]] = json.loads((EXTENSION / "snippets" / "kcl.json").read_text())


def rules(node: Any) -> Iterator[dict[str, Any]]:
    """Every rule object in the grammar, depth first."""
    if isinstance(node, dict):
        if "match" in node or "begin" in node:
            yield node
        for value in node.values():
            yield from rules(value)
    elif isinstance(node, list):
        for value in node:
            yield from rules(value)


def test_grammar_json_is_what_the_generator_writes() -> None:
    generator = EXTENSION / "syntaxes" / "generate.py"
    result = subprocess.run(
        [sys.executable, str(generator), "--check"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("keyword", sorted(KEYWORDS))
def test_every_keyword_has_a_rule(keyword: str) -> None:
    patterns = " ".join(rule.get("match", "") + rule.get("begin", "") for rule in rules(GRAMMAR))
    assert re.search(rf"[(|]{re.escape(keyword)}[)|]", patterns), f"{keyword} is not highlighted"


_PLACEHOLDER = re.compile(r"\$\{\d+:([^${}]*)\}|\$\{\d+\|([^,|]*)[^|]*\|\}|\$\d+")


def expand(body: list[str]) -> str:
    """The text a snippet inserts when every placeholder keeps its default."""
    text = "\n".join(body).replace("\t", "    ")
    while True:
        expanded = _PLACEHOLDER.sub(lambda match: match.group(1) or match.group(2) or "", text)
        if expanded == text:
            return expanded + "\n"
        text = expanded


def contexts(text: str) -> list[str]:
    """Where a snippet may be inserted: a file, a schema body, above a schema."""
    indented = "".join(f"    {line}\n" if line else "\n" for line in text.splitlines())
    return [text, f"schema S:\n    x: int = 1\n{indented}", f"{text}schema S:\n    x: int = 1\n"]


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_snippet_expands_to_valid_kcl(name: str) -> None:
    text = expand(SNIPPETS[name]["body"])
    assert "$" not in text.replace("${", ""), f"placeholder left in {text!r}"
    errors = [parse_source(candidate)[1] for candidate in contexts(text)]
    assert any(not found for found in errors), f"{name!r} does not parse:\n{text}\n{errors[0]}"
