"""Coverage-guided fuzzing (atheris / libFuzzer) of the parser and the type checker.

libFuzzer's byte strings go through :func:`parse_check_target.check_bytes`; any
exception (a crash or an internal-error diagnostic) stops the campaign and leaves the
input as ``crash-<sha1>`` beside ``-artifact_prefix``. Seeds: ``tests/syntax/cases``
and ``fuzz/corpus`` (the inputs of past findings). Usage and figures:
``fuzz/README.md``.
"""

from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
with atheris.instrument_imports(include=["kclpy", "parse_check_target"]):
    from parse_check_target import check_bytes


def main() -> None:
    atheris.Setup(sys.argv, check_bytes)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
