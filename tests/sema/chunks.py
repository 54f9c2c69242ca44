"""Chunked error-expectation files for the checker's tests.

A ``.k`` file under ``tests/sema/errors/`` holds several programs separated by
lines ``# ---``. Inside a chunk, ``# file: sub/sub.k`` starts another file of
the program (the first file is ``main.k``; a ``kcl.mod`` is always written).
An expected error is written on the offending line as ``# E: <code> <message
fragment>`` (several may follow each other on one line); a chunk without ``# E:`` must check clean.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field

from kclpy.diag import Code, Diagnostic
from kclpy.loader import Loader
from kclpy.sema import Model, check_program

HERE = os.path.dirname(os.path.abspath(__file__))
ERRORS_DIR = os.path.join(HERE, "errors")
EXPECT_RE = re.compile(r"#\s*E:\s*(\w+)\s*(.*?)\s*(?=#\s*E:|$)")
FILE_RE = re.compile(r"^#\s*file:\s*(\S+)\s*$")


@dataclass
class Expectation:
    path: str
    line: int
    code: str
    fragment: str


@dataclass
class Chunk:
    source: str  # the chunk file
    first_line: int  # line of the chunk in its file
    files: dict[str, str] = field(default_factory=dict)  # relative path -> text
    expectations: list[Expectation] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{os.path.basename(self.source)}:{self.first_line}"


def parse_chunks(path: str) -> list[Chunk]:
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    chunks: list[Chunk] = []
    start = 0
    for index, line in enumerate([*lines, "# ---"]):
        if line.strip() == "# ---":
            chunk = _chunk(path, start + 1, lines[start:index])
            if chunk.files:
                chunks.append(chunk)
            start = index + 1
    return chunks


def _chunk(path: str, first_line: int, lines: list[str]) -> Chunk:
    chunk = Chunk(path, first_line)
    current = "main.k"
    body: dict[str, list[str]] = {current: []}
    for line in lines:
        match = FILE_RE.match(line)
        if match:
            current = match.group(1)
            body.setdefault(current, [])
            continue
        body[current].append(line)
        for expect in EXPECT_RE.finditer(line):
            number = len(body[current])
            chunk.expectations.append(
                Expectation(current, number, expect.group(1), expect.group(2))
            )
    chunk.files = {name: "\n".join(text) + "\n" for name, text in body.items() if any(text)}
    return chunk


def all_chunks() -> Iterator[Chunk]:
    for name in sorted(os.listdir(ERRORS_DIR)):
        if name.endswith(".k"):
            yield from parse_chunks(os.path.join(ERRORS_DIR, name))


def write_chunk(chunk: Chunk, directory: str) -> str:
    """Write the chunk's files (and a kcl.mod) under ``directory``; returns main.k's path."""
    with open(os.path.join(directory, "kcl.mod"), "w", encoding="utf-8") as handle:
        handle.write('[package]\nname = "chunk"\n')
    for name, text in chunk.files.items():
        target = os.path.join(directory, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
    return os.path.join(directory, "main.k")


def check_chunk(chunk: Chunk) -> tuple[Model | None, list[Diagnostic], str]:
    """Check the chunk: the model (None on load errors other than missing modules, which
    the checker goes on after, as ``kcl run`` does), the loader's diagnostics, and the
    folder the files were written to (gone afterwards; spans keep their text)."""
    with tempfile.TemporaryDirectory() as directory:
        main = write_chunk(chunk, directory)
        program = Loader(directory).load([main])
        errors = [d for d in program.diagnostics if d.is_error]
        if any(d.code is not Code.CANNOT_FIND_MODULE for d in errors):
            return None, program.diagnostics, directory
        return check_program(program), errors, directory


def mismatches(chunk: Chunk, errors: list[Diagnostic], directory: str) -> list[str]:
    """Problems: unexpected errors and expectations no error satisfies."""
    problems: list[str] = []
    found = [(where(d, directory), d) for d in errors]
    for expectation in chunk.expectations:
        if not any(
            place == (expectation.path, expectation.line)
            and d.code.id == expectation.code
            and expectation.fragment in d.message
            for place, d in found
        ):
            problems.append(
                f"missing {expectation.code} '{expectation.fragment}' at "
                f"{expectation.path}:{expectation.line}"
            )
    expected_lines = {(e.path, e.line) for e in chunk.expectations}
    for place, diagnostic in found:
        if place not in expected_lines:
            problems.append(f"unexpected {diagnostic!r}")
    return problems


def where(diagnostic: Diagnostic, directory: str) -> tuple[str, int]:
    """(file relative to the chunk folder, line) of a diagnostic."""
    span = diagnostic.span
    if span is None:
        return "", 0
    return os.path.relpath(span.file.path, directory), span.begin_pos.line
