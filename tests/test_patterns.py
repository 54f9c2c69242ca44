"""The stored regular expressions (``kclpy.patterns``, ``kclpy/patterntab.py``).

``patterntab.py`` holds the sre code of the patterns a run compiles through
``kclpy.patterns.compiled``, for one interpreter. These tests hold it to what ``re``
compiles on this interpreter, and to the patterns the product asks for: after a
pattern changes, ``pytest tests/test_patterns.py --update-goldens`` writes it again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kclpy import patterns, patterntab

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "src" / "kclpy" / "patterntab.py"

# Every module that compiles patterns through kclpy.patterns, imported with recording
# on, then the patterns compiled on first use.
_RECORD = """
import json
import kclpy.patterns as patterns  # (not `from kclpy import`: that would load the API first)
patterns.start_recording()
import kclpy.cli, kclpy.emit, kclpy.loader, kclpy.pipeline.driver, kclpy.vm.runner
import kclpy.syntax.literals, kclpy.values.yaml_writer, kclpy.mod.names
import kclpy.vm.builtins.core, kclpy.vm.builtins.strings
from kclpy.syntax import lexer
lexer._scanner()
lexer._master_regex()
from kclpy.syntax import scan
scan._scanner_parts()
for width in range(1, 17):  # the docstring dedent's patterns of the common indent widths
    kclpy.syntax.literals._space_cut(width)
print(json.dumps(patterns.recorded()))
"""


def _requested() -> list[tuple[str, int]]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(
        [sys.executable, "-c", _RECORD], capture_output=True, text=True, env=env, check=True
    )
    return sorted({(pattern, flags) for pattern, flags in json.loads(result.stdout)})


def _this_interpreter() -> bool:
    return tuple(patterntab.KEY) == patterns.interpreter_key()


def test_the_table_holds_every_pattern_the_product_compiles(update_goldens: bool) -> None:
    requested = _requested()
    assert len(requested) > 20
    if update_goldens:
        TABLE.write_text(patterns.table_source(requested), encoding="utf-8")
        return
    if not _this_interpreter():
        pytest.skip(
            f"patterntab.py was made for {tuple(patterntab.KEY)}, this is "
            f"{patterns.interpreter_key()}: run with --update-goldens on the CI interpreter"
        )
    assert sorted(patterns.stored()) == requested, "stale: run with --update-goldens"


def test_stored_code_is_what_re_compiles_here() -> None:
    if not _this_interpreter():
        pytest.skip("patterntab.py was made for another interpreter")
    table = patterns.stored()
    assert table
    for (pattern, flags), entry in table.items():
        assert entry == patterns.sre_entry(pattern, flags), pattern


def test_a_stored_pattern_matches_as_the_compiled_one() -> None:
    texts = ["a = 1\n", 'x: "y"\n', "  # c\n", "0x1F 1.5e3 r'''z'''", "é ² \u2028", ""]
    for pattern, flags in list(patterns.stored())[:40]:
        built = patterns.compiled(pattern, flags)
        plain = __import__("re").compile(pattern, flags)
        assert built.groupindex == plain.groupindex
        for text in texts:
            assert built.findall(text) == plain.findall(text), pattern


def test_an_unknown_pattern_or_interpreter_compiles_as_usual(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert patterns.compiled("q[0-9]+", 0).findall("q1 q22") == ["q1", "q22"]
    monkeypatch.setattr(patterns, "_table", None)
    monkeypatch.setattr(patterntab, "KEY", ("another", 0, 0))
    assert patterns.stored() == {}
    assert patterns.compiled(r"\d+").findall("a1b22") == ["1", "22"]
    monkeypatch.setattr(patterns, "_table", None)  # (read again by the next test)


def test_reading_the_table_loads_nothing_else() -> None:
    """``from kclpy import patterntab`` would run the package's lazy API hook (and import
    the whole API under the lexer); the table is read without it."""
    code = "import sys, kclpy.syntax.lexer; print('kclpy.api' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
