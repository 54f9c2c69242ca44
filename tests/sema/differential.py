"""Differential check of the error chunks against the reference KCL (``kcl_lib``).

Each chunk of ``tests/sema/errors/*.k`` is run through the reference in one
subprocess; its compile-time errors (kind and line) are compared with the
chunk's ``# E:`` expectations. Run by hand (``python tests/sema/differential.py``)
or through ``test_differential.py``, which skips when ``kcl_lib`` is missing.
"""

from __future__ import annotations

import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "src"))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))  # tests/: the reference helper

from chunks import Chunk, all_chunks, write_chunk  # noqa: E402
from reference import call_reference  # noqa: E402

Place = tuple[str, str, int]  # (code, file relative to the chunk folder, line)

_SCRIPT = r"""
import json, re, sys
import kcl_lib.api as api
ansi = re.compile(r"\x1b\[[0-9;]*m")
result = {}
for name, path in json.loads(sys.stdin.read()):
    try:
        api.API().exec_program(api.ExecProgramArgs(k_filename_list=[path]))
        result[name] = []
    except Exception as error:
        text = ansi.sub("", str(error))
        found = []
        for block in re.split(r"\n(?=error\[)", text):
            head = re.search(r"error\[(\w+)\]: (\w+)", block)
            arrow = re.search(r"-->\s*(\S+?):(\d+)", block)
            if head and arrow:
                found.append([head.group(1), arrow.group(1), int(arrow.group(2))])
        result[name] = found
print(json.dumps(result))
"""


def reference_errors(chunks: list[Chunk]) -> dict[str, set[Place]]:
    """{chunk name: {(code, relative file, line)}} of the reference's compile errors."""
    with tempfile.TemporaryDirectory() as root:
        work: list[tuple[str, str]] = []
        folders: dict[str, str] = {}
        for index, chunk in enumerate(chunks):
            folder = os.path.join(root, f"c{index}")
            os.makedirs(folder)
            work.append((chunk.name, write_chunk(chunk, folder)))
            folders[chunk.name] = folder
        raw = call_reference(_SCRIPT, work, timeout=900)
    result: dict[str, set[Place]] = {}
    for name, errors in raw.items():
        folder = folders[name]
        result[name] = {(code, os.path.relpath(path, folder), line) for code, path, line in errors}
    return result


def expected_errors(chunk: Chunk) -> set[Place]:
    return {(e.code, e.path, e.line) for e in chunk.expectations}


def compare() -> list[str]:
    chunks = list(all_chunks())
    reference = reference_errors(chunks)
    problems: list[str] = []
    for chunk in chunks:
        want = expected_errors(chunk)
        got = reference.get(chunk.name, set())
        if want != got:
            problems.append(f"{chunk.name}: expected {sorted(want)}, reference {sorted(got)}")
    return problems


if __name__ == "__main__":
    issues = compare()
    print("\n".join(issues) or "all chunks agree with the reference")
    sys.exit(1 if issues else 0)
