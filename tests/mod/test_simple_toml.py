"""``kclpy.mod.simple_toml``: the plain-TOML reader of kcl.mod files must give what
``tomllib`` gives, or ``None`` (then ``tomllib`` reads the text)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kclpy.mod.manifest import Locked, init_text, render_lock
from kclpy.mod.simple_toml import loads

ROOT = Path(__file__).parents[2]

MOD_EXAMPLE = """[package]
name = "nginx-example"
edition = "v0.9.0"
version = "0.0.1"

[dependencies]
konfig = { path = "../../../../konfig" }
k8s = "1.31.2"
helloworld = { oci = "oci://ghcr.io/kcl-lang/helloworld", tag = "0.1.0" }

[profile]
entries = ["main.k", "base.k"]
"""

LOCK_EXAMPLE = """[dependencies]
  [dependencies.k8s]
    name = "k8s"
    full_name = "k8s_1.31.2"
    version = "1.31.2"
    sum = "xBZgPsnpVVyWBpahuPQHReeRx28eUHGFoaPeqbct+vs="
"""

# within the subset: loads gives tomllib's document
HANDLED = [
    MOD_EXAMPLE,
    LOCK_EXAMPLE,
    MOD_EXAMPLE.replace("\n", "\r\n"),
    "",
    "\n\n  \t\n",
    "# only a comment\n  # indented é ✓\t\n",
    "a=1\nb =-0\nc= +0\nd = +17\ne = -9223372036854775809\n",
    "t = true # yes\nf = false#no\n",
    "s = 'C:\\path\\x' \nq = \"it's # not a comment\"\ne = \"\"\nl = ''\n",
    'tab = "a\tb"\nu = "\ufeff héllo \ufffd"',
    "x = []\ny = [ ]\nz = [1, 'a', \"b\", true,]\nw = [1,2 ,3]  # mixed is fine\n",
    "i = {}\nj = { }\nk = {a=1,b='x' , c = true}\n",
    "[a.b]\nx = 1\n[a.c]\n[ a . d ]\n[\ta.e\t] # spaced\n[b]\n",
    "[a]\nb = 1\n[c]\nb = 2\n[a.d]\nb = 3\n",
    "1 = 2\n-_- = 'x'\ntrue = false\n",
]

# valid TOML outside the subset: declined, tomllib reads it
DECLINED = [
    "f = 1.5\n",
    "n = inf\n",
    "d = 1979-05-27\n",
    "h = 0x1F\n",
    "u = 1_000\n",
    's = "a\\nb"\n',
    's = """multi"""\n',
    "s = '''multi'''\n",
    "a = [\n  1,\n]\n",
    "a = [[1], [2]]\n",
    "a = { b = { c = 1 } }\n",
    "a = [{ b = 1 }]\n",
    "a.b = 1\n",
    '"quoted" = 1\n',
    '["quoted"]\n',
    "[[items]]\nx = 1\n",
    "[a.b]\n[a]\n",  # valid TOML (a was implicit) but declined
    "[a.b.c]\n[a.b]\n",
]

# invalid TOML: tomllib raises, loads declines
INVALID = [
    "a = 1\na = 2\n",
    "[a]\n[a]\n",
    "[a]\nb = 1\n[a.b]\n",
    "a = {}\n[a.b]\n",
    "a = { x = 1, }\n",
    "a = { x = 1, x = 2 }\n",
    'a = "unterminated\n',
    "a = 'unterminated\n",
    "a = \n",
    "a = 01\n",
    "a = 1 2\n",
    "a = [1,,2]\n",
    "a = [,]\n",
    "a = truex\n",
    "a = 1\rb = 2\n",
    "a = 1 # nul\x00\n",
    'a = "bell\x07"\n',
    "a = 1]\n",
    "[a\n",
    "[a]]\n",
    "[]\n",
    "[a.]\n",
    "[a b]\n",
    "= 1\n",
    "a b = 1\n",
    "\u00a0a = 1\n",
    "\ufeffa = 1\n",  # tomllib does not skip a BOM
    "a = +\n",
    "a = { x = 1 } y\n",
]


def _same(loaded: dict[str, Any] | None, expected: dict[str, Any]) -> bool:
    """Equal with the same types and order (``True == 1`` in Python)."""
    return loaded == expected and repr(loaded) == repr(expected)


@pytest.mark.parametrize("text", HANDLED)
def test_plain_texts_are_read_as_tomllib_reads_them(text: str) -> None:
    assert _same(loads(text), tomllib.loads(text))


@pytest.mark.parametrize("text", DECLINED)
def test_valid_toml_outside_the_subset_is_declined(text: str) -> None:
    tomllib.loads(text)
    assert loads(text) is None


@pytest.mark.parametrize("text", INVALID)
def test_invalid_toml_is_declined(text: str) -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        tomllib.loads(text)
    assert loads(text) is None


def test_the_texts_kclpy_writes_are_handled() -> None:
    locked = {
        "k8s": Locked("k8s", "1.31.2", "c3VtPQ==", {"reg": "ghcr.io", "repo": "kcl-lang/k8s"}),
        "local": Locked("local", "0.1.0", "", {"path": "../local"}),
    }
    for text in (init_text("app"), render_lock(locked), render_lock({})):
        assert _same(loads(text), tomllib.loads(text))


def _mod_files(folder: Path) -> list[Path]:
    names = ("kcl.mod", "kcl.mod.lock")
    return sorted(path for path in folder.rglob("kcl.mod*") if path.name in names)


# kcl.mod files of tests/ and examples/ that legitimately use TOML beyond the subset
OUTSIDE_THE_SUBSET: set[str] = set()


def test_the_mod_files_of_the_repository() -> None:
    for path in _mod_files(ROOT / "tests") + _mod_files(ROOT / "examples"):
        text = path.read_text(encoding="utf-8")
        loaded = loads(text)
        if loaded is None:
            assert path.name == "kcl.mod.lock" or str(path.relative_to(ROOT)) in OUTSIDE_THE_SUBSET
        else:
            assert _same(loaded, tomllib.loads(text)), path


def test_the_mod_files_of_the_corpus() -> None:
    corpus = ROOT / ".corpus"
    if not corpus.is_dir():
        pytest.skip("no .corpus folder")
    declined = []
    for path in _mod_files(corpus):
        text = path.read_text(encoding="utf-8", errors="replace")
        loaded = loads(text)
        if loaded is None:
            declined.append(path)
        else:
            assert _same(loaded, tomllib.loads(text)), path
    # every kcl.mod of the corpus is within the subset (the lock files too today)
    assert [path for path in declined if path.name == "kcl.mod"] == []


def _check(text: str) -> None:
    loaded = loads(text)
    try:
        expected = tomllib.loads(text)
    except ValueError:  # TOMLDecodeError, or an integer of too many digits
        assert loaded is None
        return
    if loaded is not None:
        assert _same(loaded, expected)


# Documents from a small grammar of lines; a "clean" document uses only what the
# subset reads (so it can still repeat a key or a table), the others mix in what it
# declines, what TOML rejects and junk characters.
_GOOD_KEYS = ["a", "b", "c", "k8s", "x-y_1", "1"]
_BAD_KEYS = ["a.b", '"a"', "", "a b"]
_SPACE = st.sampled_from(["", "", " ", "  ", "\t"])
_JUNK = st.sampled_from(list("\"'#=[]{},.\\\t\r\n\x00\x7f\ufeff é+-_0123456789aetrux"))
_GOOD_SCALARS = ["true", "false", "0", "+0", "-0", "7", "-12", "+3"]
_BAD_SCALARS = ["True", "truex", "fals", "inf", "nan", "1.5", "1e3", "01", "+01", "0x1F"]
_BAD_SCALARS += ["1_000", "+", "-", "1979-05-27", ""]


def _scalars(clean: bool) -> st.SearchStrategy[str]:
    chars = "ab #,]}=\té" + ("" if clean else "\x01\\")
    basic = st.text(st.sampled_from(list(chars + "'")), max_size=6)
    literal = st.text(st.sampled_from(list(chars + '"')), max_size=6)
    words = _GOOD_SCALARS if clean else _GOOD_SCALARS + _BAD_SCALARS
    strategies = [
        basic.map(lambda text: f'"{text}"'),
        literal.map(lambda text: f"'{text}'"),
        st.sampled_from(words),
        st.integers(-(10**20), 10**20).map(str),
    ]
    if not clean:
        strategies.append(st.text(_JUNK, max_size=4).map(lambda text: f'"{text}"'))
    return st.one_of(strategies)


_SCALARS = {clean: _scalars(clean) for clean in (True, False)}
_KEYS = {
    clean: st.sampled_from(_GOOD_KEYS if clean else _GOOD_KEYS * 2 + _BAD_KEYS)
    for clean in (True, False)
}


@st.composite
def _values(draw: st.DrawFn, clean: bool) -> str:
    kind = draw(st.integers(0, 3))
    keys, scalars = _KEYS[clean], _SCALARS[clean]
    if kind < 2:
        return draw(scalars)
    space = draw(_SPACE)
    if kind == 2:
        items = draw(st.lists(scalars, max_size=3))
        comma = draw(st.sampled_from(["", ","] if clean else ["", ",", ",,"]))
        return "[" + space + f",{space}".join(items) + comma + space + "]"
    pairs = draw(st.lists(st.tuples(keys, scalars), max_size=3))
    comma = draw(st.sampled_from([""] if clean else ["", "", ","]))
    inner = ", ".join(f"{key}{space}={space}{value}" for key, value in pairs)
    return "{" + space + inner + comma + space + "}"


@st.composite
def _lines(draw: st.DrawFn, clean: bool) -> str:
    keys = _KEYS[clean]
    kind = draw(st.integers(0, 5 if clean else 7))
    indent, space = draw(_SPACE), draw(_SPACE)
    comments = ["", "", " # note", "#", "# é\t"] + ([] if clean else ["# \x01", "# \r"])
    comment = draw(st.sampled_from(comments))
    if kind == 0:
        return indent + comment.strip()
    if kind == 1:
        path = f"{space}.{space}".join(draw(st.lists(keys, min_size=1, max_size=3)))
        brackets = [("[", "]")] if clean else [("[", "]"), ("[[", "]]"), ("[", "")]
        opening, closing = draw(st.sampled_from(brackets))
        return indent + opening + space + path + space + closing + comment
    if kind == 6:
        return "".join(draw(st.lists(_JUNK, max_size=8)))
    line = indent + draw(keys) + space + "=" + space + draw(_values(clean)) + comment
    if kind == 7:  # a junk character somewhere in a key/value line
        at = draw(st.integers(0, len(line)))
        line = line[:at] + draw(_JUNK) + line[at:]
    return line


@st.composite
def _documents(draw: st.DrawFn) -> str:
    clean = draw(st.booleans())
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    ending = draw(st.sampled_from(["", newline]))
    return newline.join(draw(st.lists(_lines(clean), max_size=8))) + ending


@settings(max_examples=800, deadline=None)
@given(_documents())
def test_generated_documents_agree_with_tomllib(text: str) -> None:
    _check(text)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_any_text_agrees_with_tomllib(text: str) -> None:
    _check(text)


def test_reading_a_plain_kcl_mod_does_not_import_tomllib() -> None:
    code = (
        "import os, sys, tempfile\n"
        "from kclpy.mod.manifest import read_lock, read_mod\n"
        "with tempfile.TemporaryDirectory() as root:\n"
        "    with open(os.path.join(root, 'kcl.mod'), 'w') as stream:\n"
        f"        stream.write({MOD_EXAMPLE!r})\n"
        "    with open(os.path.join(root, 'kcl.mod.lock'), 'w') as stream:\n"
        f"        stream.write({LOCK_EXAMPLE!r})\n"
        "    mod = read_mod(root)\n"
        "    assert sorted(mod.dependencies) == ['helloworld', 'k8s', 'konfig'], mod\n"
        "    assert list(read_lock(root)) == ['k8s']\n"
        "print('tomllib' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"
