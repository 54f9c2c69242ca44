"""Any bytes to ``kcl import`` (hypothesis): a KCL file or a diagnostic, never a crash.

Inputs are raw bytes, or text put together from the pieces JSON, YAML and TOML are
made of (brackets, quotes, escapes, anchors and aliases, merge keys, tags,
directives, document markers, odd numbers, keywords, ``${``, control characters),
nested and repeated. Each goes through ``kcl import -m MODE -o -`` (the command's
``main``, in process: the same code as the installed command, at hypothesis's
speed), with small bounds so that the bounded paths are reached too.

Property: the exit code is 0 (and the output parses as KCL, formatted) or 1 with
a coded diagnostic on standard error: never 3 (an internal error) nor an exception.
A few examples also run through the installed ``kcl`` in a subprocess: exit 0 or
1, no traceback. Deterministic in CI (``derandomize``); ``KCLPY_FUZZ_EXAMPLES``
runs more.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kclpy.cli import main
from kclpy.tools.format import format_code

# kclpy.depth raises the recursion limit for its deep thread (hypothesis notices)
pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.HypothesisWarning")

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_EXAMPLES", "8")) * 25
MODES = ["json", "yaml", "toml", "auto", "jsonschema", "openapi", "crd"]
PIECES = [
    "{", "}", "[", "]", ",", ":", ": ", "\n", "  ", "\t", '"', "'", "\\", "\\u00", "\\ud800",
    "a", "b", "if", "schema", "x-y", "1", "-0", "1e999", "1.5e-7", "0x1F", "0o17", "017",
    "18446744073709551616", "-9223372036854775809", "NaN", "Infinity", ".nan", ".inf",
    "true", "null", "~", "yes", "2024-01-31", "&a ", "*a", "&b ", "*b", "<<: ", "<<: *a",
    "!!int ", "!!float ", "!!binary ", "!!set ", "!!omap ", "!!timestamp ", "!!python/name:os",
    "!local ", "? ", "- ", "---\n", "...\n", "%YAML 1.2\n", "%TAG ! tag:x,2000:\n", "|\n",
    ">-\n", "#", "${", "}", "$", "\x00", "\x7f", "\u202e", "名", "\ufeff", "=", "[[a]]", "[a.b]",
    '"""', "'''", "apiVersion: ", "kind: CustomResourceDefinition", '"$schema"', "openapi: 3",
    '"type": "object"', '"properties": ', "$ref", "#/definitions/a",
]  # fmt: skip

TEXTS = st.recursive(
    st.lists(st.sampled_from(PIECES), max_size=12).map("".join),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["[", "{", "- ", "a: ", "&a "]), inner).map("".join),
        st.tuples(inner, st.integers(2, 40)).map(lambda pair: pair[0] * pair[1]),
        st.lists(inner, max_size=4).map("\n".join),
    ),
    max_leaves=12,
)
INPUTS = st.one_of(st.binary(max_size=300), TEXTS.map(lambda text: text.encode("utf-8")))
# small bounds: the deep and aliased paths are reached by short inputs too
BOUNDS = ["--max-input-size", "4K"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("import")


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=INPUTS, mode=st.sampled_from(MODES))
def test_any_input_is_imported_or_diagnosed(
    folder: Path, capsys: pytest.CaptureFixture[str], data: bytes, mode: str
) -> None:
    path = folder / "input.data"
    path.write_bytes(data)
    capsys.readouterr()
    code = main(["import", "-m", mode, "-o", "-", *BOUNDS, str(path)])
    printed = capsys.readouterr()
    assert code in (0, 1), (data, mode, code, printed.err[-2000:])
    if code == 1:
        assert re.match(r"error\[E\d\w\d\d\]", printed.err), (data, mode, printed.err[-2000:])
        assert "E9999" not in printed.err
    else:
        printed.out.encode("utf-8")  # no lone surrogate: the installed command can print it
        assert format_code(printed.out) == printed.out  # it parses, and is formatted


SAMPLES = [
    b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b"a: &a [*a]\n",
    b'a: &a ["x", "x"]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]\n',
    b"\xff\xfe{",
    b'{"a": "\\ud800", "b": 1e999, "c": 18446744073709551616}',
    b"a: !!timestamp x\nb: !!int y\n",
    b"a = " + b"[" * 3000 + b"]" * 3000 + b"\n",
]


@pytest.mark.parametrize("data", SAMPLES)
@pytest.mark.parametrize("mode", ["json", "yaml", "toml"])
def test_installed_command(tmp_path: Path, data: bytes, mode: str) -> None:
    (tmp_path / "input.data").write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "import", "-m", mode, "-o", "-", "input.data"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        env={**os.environ, "KCLPY_DEBUG": "", "NO_COLOR": "1"},
    )
    assert done.returncode in (0, 1), (data[:80], mode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "E9999" not in done.stderr
