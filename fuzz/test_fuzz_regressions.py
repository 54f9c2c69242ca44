"""Replays ``fuzz/corpus``: inputs kept from the atheris campaign (seeds it grew, and
the input of any finding once fixed) through the parser and checker fuzz target.

Each file must parse and check without an exception or an internal error; the
campaign itself is run by hand (``fuzz/README.md``).
"""

from __future__ import annotations

import os
import pathlib
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from parse_check_target import check_bytes

CORPUS = sorted((pathlib.Path(__file__).resolve().parent / "corpus").glob("*"))


@pytest.mark.parametrize("path", CORPUS, ids=[path.name for path in CORPUS])
def test_corpus_input_is_handled(path: pathlib.Path) -> None:
    check_bytes(path.read_bytes())


def test_corpus_is_not_empty() -> None:
    assert len(CORPUS) >= 10
