"""``kcl import`` of data against the reference's ``generate_kcl`` (kcl-lib, in a
subprocess): the same text where the reference is right, and where it is not
(docs/differences.md) our text still means the input, as the reference's own
``kcl run`` reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from import_helpers import CASES, needs_reference, run_reference
from reference import call_reference

import kclpy

GENERATE = r"""
import json, sys
import kcl_lib.api as api
request = json.load(sys.stdin)
args = api.GenerateKclArgs(
    source=request["text"], filename="input." + request["mode"], format=request["mode"]
)
try:
    print(json.dumps(api.API().generate_kcl(args).kcl))
except Exception:
    print("null")
"""


def reference_generate(text: str, mode: str) -> str | None:
    """The reference's KCL for ``text``, or None when it refuses the input."""
    answer: str | None = call_reference(GENERATE, {"text": text, "mode": mode}, timeout=60)
    return answer


# inputs on which the reference is right: the same text is expected
SAME = [
    ("json", '{"name": "app", "replicas": 3, "ratio": 0.5, "tags": ["a", "b"]}'),
    ("json", '{"a": {"b": {"c": [1, {"d": []}, [2, 3]]}, "e": {}}, "f": null}'),
    ("json", '{"text": "quote \\" backslash \\\\ newline \\n tab \\t"}'),
    ("json", '{"nested": {"x-y": 1, "a.b/c": "d", "_p": 1}}'),
    ("json", '{"unicode": "caf\\u00e9 \\u4e2d\\u6587", "big": 9007199254740993}'),
    ("json", '{"floats": [1.0, 1.5e-07, 1e+20, 123456.789, 0.1]}'),
    ("yaml", "a: 1\nb:\n  - x: 1\n    y: [1, 2]\n  - z\nc: |\n  two\n  lines\n"),
    ("yaml", "answer: yes\nwhen: 2024-01-31\nratio: 1.5e3\nlead: 017\nhex: 0x1F\nstr: '1'\n"),
    ("yaml", "anchors:\n  base: &base {a: 1}\n  copy: *base\n"),
    ("toml", 'title = "x"\n[owner]\nname = "T"\ndob = 1979-05-27T07:32:00-08:00\n'),
    ("toml", "[[items]]\nv = 1\n[[items]]\nv = 2\n[table]\narr = [[1, 2], ['a']]\n"),
]

# inputs the reference converts wrongly (docs/differences.md): booleans written
# `true`, `${` left to interpolate, keywords not escaped
DIFFERENT = [
    ("json", '{"enabled": true, "off": false}'),
    ("json", '{"message": "hello ${name}"}'),
    ("json", '{"if": 1, "schema": {"for": 2}, "type": "t"}'),
    ("yaml", "flags: [true, false]\nnested: {check: x}\n"),
]


@needs_reference
@pytest.mark.parametrize(("mode", "text"), SAME)
def test_same_text_as_reference(mode: str, text: str) -> None:
    """Ours is the reference's text as ``kcl fmt`` lays it out (the reference's own
    formatter would turn ``1.0`` into ``1``: docs/differences.md, Formatter)."""
    theirs = reference_generate(text, mode)
    assert theirs is not None
    assert kclpy.generate_kcl(text, mode) == kclpy.format_code(theirs)


@needs_reference
@pytest.mark.parametrize(("mode", "text"), SAME + DIFFERENT)
def test_reference_runs_our_text_back_to_the_data(mode: str, text: str, tmp_path: Path) -> None:
    ours = kclpy.generate_kcl(text, mode)
    ran = run_reference(ours, cwd=tmp_path)
    assert ran.ok, ran.stderr
    data = kclpy.api.run(ours).text
    assert yaml.safe_load(ran.stdout) == yaml.safe_load(data)
    if mode == "json" and "e" not in text.lower():  # PyYAML reads 1e20 as a string
        assert yaml.safe_load(ran.stdout) == json.loads(text)


@needs_reference
@pytest.mark.parametrize(("mode", "text"), DIFFERENT)
def test_reference_text_is_wrong_there(mode: str, text: str, tmp_path: Path) -> None:
    """Documented differences stay true: the reference's text fails or changes the data."""
    theirs = reference_generate(text, mode)
    assert theirs is not None
    assert theirs != kclpy.generate_kcl(text, mode)
    ran = run_reference(theirs, cwd=tmp_path)
    original = json.loads(text) if mode == "json" else yaml.safe_load(text)
    assert not ran.ok or yaml.safe_load(ran.stdout) != original


@needs_reference
@pytest.mark.parametrize("case", ["app.json", "values.yaml", "server.toml"])
def test_case_files_mean_the_same_in_both(case: str, tmp_path: Path) -> None:
    mode = case.rsplit(".", 1)[1]
    ours = kclpy.generate_kcl((CASES / case).read_text(), mode)
    ran = run_reference(ours, cwd=tmp_path)
    assert ran.ok, ran.stderr
    assert yaml.safe_load(ran.stdout) == yaml.safe_load(kclpy.api.run(ours).text)
