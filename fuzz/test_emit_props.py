"""Property tests of the emitter (hypothesis).

* Against the reference (``kcl_lib``, skipped without it): documents of generated
  values, many values per program so that one subprocess run checks a whole batch,
  printed by ``kclpy.emit.render`` (YAML and JSON, random output options) and by the
  reference must be the same text.
* Without the reference: our YAML read back by PyYAML (YAML 1.1) gives the data
  again, for values whose strings mean the same in YAML 1.1 and in our quoting
  (no U+2028/U+2029 line separators, not ``=`` or ``<<``); our floats read back as the
  value the reference prints.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.emit import EmitOptions, render
from kclpy.values.json_writer import to_json
from kclpy.values.scalars import format_float
from kclpy.values.yaml_writer import to_yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.emit.oracle import document_program, run_programs
from tests.reference import reference_available

PIECES = [
    "y", "n", "yes", "No", "ON", "off", "true", "False", "null", "Nil", "NaN", "~", "inf",
    ".inf", "0", "1", "1.5", "-1", "+1", "0x1F", "0o7", "1e3", "1_000", "1:20",
    "2001-12-14", ".5", "-", "- ", "--- ", "...", "#", " #", ": ", ":", "?", "? ", "'",
    '"', "\\", "|", ">", "{", "}", "[", "]", ",", "&", "*", "!", "%", "@", "`", "=", "<<",
    " ", "  ", "\t", "\n", "\n\n", "\r", "\x00", "\x1b", "\x7f", "\x85", "\xa0", "\u3000",
    "\u2028", "\u2029", "\ufeff", "é", "日本", "\U0001f600", "a", "b", "key", "_",
]  # fmt: skip


def strings(pieces: list[str]) -> st.SearchStrategy[str]:
    """Strings made of corner-case pieces, arbitrary text, or both."""
    joined = st.lists(st.sampled_from(pieces), max_size=5).map("".join)
    return st.one_of(
        joined, st.text(max_size=8), st.tuples(joined, st.text(max_size=4)).map("".join)
    )


FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=1e-12, max_value=1e-3),
    st.floats(min_value=1e14, max_value=1e20),
    st.sampled_from([0.0, -0.0, 1e16, 1e-5, 9.99e-6, 5e-324, 1.7976931348623157e308]),
)
INTS = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def values(text: st.SearchStrategy[str], floats: bool = True) -> st.SearchStrategy[Any]:
    scalars: st.SearchStrategy[Any] = st.one_of(st.none(), st.booleans(), INTS, text)
    if floats:
        scalars = st.one_of(scalars, FLOATS)
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(text, children, max_size=4),
        ),
        max_leaves=12,
    )


OPTIONS = st.builds(
    EmitOptions,
    format=st.sampled_from(["yaml", "json"]),
    sort_keys=st.booleans(),
    disable_none=st.booleans(),
    show_hidden=st.booleans(),
)


@pytest.mark.skipif(not reference_available(), reason="kcl_lib is not installed")
# KCLPY_FUZZ_EXAMPLES raises the number of batches for a longer local run.
@settings(
    max_examples=int(os.environ.get("KCLPY_FUZZ_EXAMPLES", "12")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    batch=st.lists(values(strings(PIECES)), min_size=1, max_size=200),
    options=OPTIONS,
    hidden=st.lists(st.booleans(), min_size=200, max_size=200),
)
def test_same_text_as_the_reference(
    batch: list[Any], options: EmitOptions, hidden: list[bool]
) -> None:
    document = {
        f"{'_h' if hidden[index] else 'v'}{index}": value for index, value in enumerate(batch)
    }
    flags = {
        "sort_keys": options.sort_keys,
        "disable_none": options.disable_none,
        "show_hidden": options.show_hidden,
    }
    [result] = run_programs([(document_program(document), flags)])
    assert not result.error, result.error
    assert render([document], options) == result.cli_text(options.format)


# Strings on which YAML 1.1 (PyYAML) and the reference's quoting agree.
SAFE_PIECES = [piece for piece in PIECES if piece not in ("\u2028", "\u2029")]
SAFE_TEXT = strings(SAFE_PIECES).filter(
    lambda text: text not in ("=", "<<") and "\u2028" not in text and "\u2029" not in text
)


def _without_surrogates(text: str) -> bool:
    return not any(0xD800 <= ord(char) < 0xE000 for char in text)


@settings(max_examples=300, deadline=None)
@given(value=values(SAFE_TEXT.filter(_without_surrogates), floats=False))
def test_yaml_reads_back(value: Any) -> None:
    assert yaml.safe_load(to_yaml(value)) == value


@settings(max_examples=300, deadline=None)
@given(
    value=values(SAFE_TEXT.filter(_without_surrogates), floats=False),
    indent=st.sampled_from([None, 2]),
)
def test_json_reads_back(value: Any, indent: int | None) -> None:
    import json

    assert json.loads(to_json(value, indent=indent)) == value


@settings(max_examples=500, deadline=None)
@given(x=st.floats(allow_nan=False, allow_infinity=False))
def test_floats_read_back(x: float) -> None:
    text = format_float(x)
    assert "." in text or "e" in text
    back = float(text)
    # Equal, or one unit in the last place off (the reference's fast float reader).
    assert back == x or math.isclose(back, x, rel_tol=4.5e-16)
