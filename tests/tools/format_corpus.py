"""``kcl fmt`` against the reference formatter on real code: the upstream goldens
(``.corpus/kcl-fmt``: kcl-lang/kcl's ``crates/tools/src/format/test_data``) and every
``.k`` file of kcl-lang/modules (``.corpus/modules``; also ``.corpus/examples`` and
``.corpus/kusionstack-konfig`` when there), written by ``benchmarks/prepare_corpus.py``.

    python tests/tools/format_corpus.py reference [--corpus .corpus] [--ref-python PY]
    python tests/tools/format_corpus.py compare [--corpus .corpus] [--out result.json]

``reference`` formats every distinct file text with kcl-lib (``format_code``) and keeps
the output in ``.corpus/fmt-reference/`` (one file per text, named by its SHA-256:
``.k`` the output, ``.fail`` why there is none), a batch of files per subprocess, one
subprocess at a time, each with a timeout (the native library can crash: the file it
was on is recorded as failed and the rest of the batch goes on in a new process).
Texts already there are not formatted again.

``compare`` formats the same files with the kclpy importable here (run it with another
checkout's interpreter to measure that checkout) and prints a summary: goldens met,
files equal to the reference, equal but for blank lines, different, and refused. The
pytest module ``test_format_corpus.py`` uses the same functions. Self-contained (no
imports from the test suite).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / ".corpus"
GOLDENS = "kcl-fmt/format_data"
REAL = ("modules", "examples", "kusionstack-konfig")  # folders of real code, where present
CACHE = "fmt-reference"
BATCH = 200  # files per reference subprocess
BATCH_TIMEOUT = 300.0  # seconds for one batch
KNOWN = Path(__file__).with_name("format_corpus_known.json")  # the differences found
# the reasons of the differences that classify() does not name
REASONS = {
    "modules/gitlab-ci/schema.k": "an index signature after attributes stays where it is",
    "modules/dab-draft/experimental.k": "refused: a keyword as an attribute name (parser gap)",
    "modules/result/main.k": "refused: `error, if not result, msg` in a check (parser gap)",
}

_WORKER = r"""
import hashlib, json, os, sys, tempfile
import kcl_lib.api as api

cache, progress = sys.argv[1], sys.argv[2]
client = api.API()


def by_path(text):
    # format_code resolves relative imports (`import .a`) against no file and
    # answers nothing; `kcl fmt FILE` (format_path) formats such a file
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "main.k")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        client.format_path(api.FormatPathArgs(path=path))
        with open(path, "rb") as handle:
            return handle.read()


for line in sys.stdin:
    path = line.rstrip("\n")
    data = open(path, "rb").read()
    digest = hashlib.sha256(data).hexdigest()
    with open(progress, "w") as mark:
        mark.write(digest)
    try:
        text = data.decode("utf-8")
        out = client.format_code(api.FormatCodeArgs(source=text)).formatted
        if not out.strip() and text.strip():
            out = by_path(text)
        target, payload = digest + ".k", out
    except Exception as error:
        target, payload = digest + ".fail", str(error).encode("utf-8", "replace")
    temporary = os.path.join(cache, target + ".tmp")
    with open(temporary, "wb") as handle:
        handle.write(payload)
    os.replace(temporary, os.path.join(cache, target))
"""


# --------------------------------------------------------------------------- files


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def golden_names(corpus: Path = CORPUS) -> list[str]:
    folder = corpus / GOLDENS
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(".input")] for p in folder.glob("*.input"))


def real_files(corpus: Path = CORPUS) -> list[Path]:
    """The ``.k`` files of the folders of real code that are there."""
    files: list[Path] = []
    for part in REAL:
        files.extend(sorted((corpus / part).rglob("*.k")))
    return files


def reference_output(data: bytes, corpus: Path = CORPUS) -> str | None:
    """The cached reference output for a file's bytes; None when it failed or is not
    cached."""
    path = corpus / CACHE / (digest_of(data) + ".k")
    return path.read_bytes().decode("utf-8") if path.is_file() else None


# --------------------------------------------------------------------------- reference


def fill_reference(paths: Iterable[Path], corpus: Path, python: str) -> tuple[int, int]:
    """Format the texts of ``paths`` not cached yet; returns (formatted, failed)."""
    cache = corpus / CACHE
    cache.mkdir(parents=True, exist_ok=True)
    pending: dict[str, Path] = {}
    for path in paths:
        digest = digest_of(path.read_bytes())
        done = (cache / f"{digest}.k").exists() or (cache / f"{digest}.fail").exists()
        if not done:
            pending.setdefault(digest, path)
    queue = list(pending.items())
    formatted = failed = 0
    while queue:
        batch, queue = queue[:BATCH], queue[BATCH:]
        left = _run_batch(batch, cache, python)
        formatted += sum((cache / f"{digest}.k").exists() for digest, _ in batch)
        failed += sum((cache / f"{digest}.fail").exists() for digest, _ in batch)
        queue = left + queue
        print(f"reference: {formatted} formatted, {failed} failed, {len(queue)} left", flush=True)
    return formatted, failed


def _run_batch(batch: list[tuple[str, Path]], cache: Path, python: str) -> list[tuple[str, Path]]:
    """Run one worker over ``batch``; returns the files it did not reach (after a
    crash or a timeout, whose file is marked failed)."""
    with tempfile.NamedTemporaryFile("w+", suffix=".progress", delete=False) as handle:
        progress = Path(handle.name)
    stdin = "".join(f"{path}\n" for _, path in batch)
    try:
        process = subprocess.run(
            [python, "-c", _WORKER, str(cache), str(progress)],
            input=stdin,
            text=True,
            capture_output=True,
            timeout=BATCH_TIMEOUT,
        )
        reason = f"exit status {process.returncode}: {process.stderr[-300:]}"
        clean = process.returncode == 0
    except subprocess.TimeoutExpired:
        reason, clean = f"timed out after {BATCH_TIMEOUT:.0f} s", False
    current = progress.read_text() if progress.exists() else ""
    progress.unlink(missing_ok=True)
    if clean:
        return []
    left = [
        (d, p)
        for d, p in batch
        if not (cache / f"{d}.k").exists() and not (cache / f"{d}.fail").exists()
    ]
    if current and any(d == current for d, _ in left):
        (cache / f"{current}.fail").write_text(reason, encoding="utf-8")
        left = [(d, p) for d, p in left if d != current]
    elif left and not current:  # the worker did not start
        raise RuntimeError(f"the reference worker failed: {reason}")
    return left


# --------------------------------------------------------------------------- compare


def without_blank_lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip())


@dataclass
class Tally:
    """Files by outcome: ``equal``, ``blank`` (equal but for blank lines), ``differ``,
    ``refused`` (kclpy: syntax error), ``refused_both``, ``no_reference`` (the reference
    failed)."""

    outcomes: dict[str, list[str]] = field(default_factory=dict)

    def add(self, outcome: str, name: str) -> None:
        self.outcomes.setdefault(outcome, []).append(name)

    def counts(self) -> dict[str, int]:
        return {key: len(names) for key, names in sorted(self.outcomes.items())}


def kclpy_format(text: str) -> str | None:
    """kclpy's output; None when kclpy refuses the text (syntax errors)."""
    from kclpy.tools.format import FormatError, format_code

    try:
        return format_code(text)
    except FormatError:
        return None


def outcome(ours: str | None, theirs: str | None, source: str | None = None) -> str:
    """How kclpy's output ``ours`` compares with ``theirs`` (None: no output); a text
    that both refuse (the reference leaves one with syntax errors as it is) is
    ``refused_both``."""
    if theirs is None:
        return "no_reference"
    if ours is None:
        return "refused_both" if theirs == source else "refused"
    if ours == theirs:
        return "equal"
    if without_blank_lines(ours) == without_blank_lines(theirs):
        return "blank"
    return "differ"


def compare_goldens(corpus: Path = CORPUS) -> Tally:
    tally = Tally()
    folder = corpus / GOLDENS
    for name in golden_names(corpus):
        golden = (folder / f"{name}.golden").read_text(encoding="utf-8").replace("\r\n", "\n")
        source = (folder / f"{name}.input").read_bytes().decode("utf-8")
        tally.add(outcome(kclpy_format(source), golden), name)
    return tally


def compare_files(paths: list[Path], corpus: Path = CORPUS) -> tuple[Tally, Tally]:
    """(per file, per distinct text)."""
    by_file, by_text = Tally(), Tally()
    seen: dict[str, str] = {}
    for path in paths:
        data = path.read_bytes()
        digest = digest_of(data)
        name = str(path.relative_to(corpus))
        if digest not in seen:
            text = data.decode("utf-8", "replace")
            ours = kclpy_format(text)
            seen[digest] = outcome(ours, reference_output(data, corpus), text)
            by_text.add(seen[digest], name)
        by_file.add(seen[digest], name)
    return by_file, by_text


# --------------------------------------------------------------------------- classify


NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+"
    r"|[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+"
)


def _number(text: str) -> str:
    """A number literal's value (``0x1F``, ``1_000``, ``2.0``, ``1e+06``, and the
    leading number of ``1e+09x``), for comparing spellings."""
    match = NUMBER.match(text)
    literal = (match.group(0) if match else text).replace("_", "")
    try:
        return repr(
            float(int(literal, 0)) if literal[:2].lower() in ("0x", "0o", "0b") else float(literal)
        )
    except ValueError:
        return text


def _tokens(text: str, comments: bool, literals: bool) -> list[tuple[str, str]] | None:
    """The tokens of ``text`` without layout (newlines, blanks, commas) and, with ``literals``,
    numbers by value, slices without trailing colons and ``else: if`` as ``elif``;
    None when it does not scan."""
    from kclpy.syntax.lexer import raw_tokens

    try:
        tokens = raw_tokens(text)
    except Exception:
        return None
    out: list[tuple[str, str]] = []
    for token in tokens:
        kind, value = str(token.type), str(token.value)
        if kind in ("NEWLINE", "COMMA") or (kind == "COMMENT" and not comments):
            continue  # a multi-line list or config has no commas
        if literals and kind == "NUMBER":
            value = _number(value)
        while literals and kind == "RBRACKET" and out and out[-1][0] == "COLON":
            out.pop()  # `a[1::]` -> `a[1`
        if literals and (kind, value) == ("NAME", "if") and out[-2:] == ELSE_COLON:
            del out[-2:]
            value = "elif"
        out.append((kind, value))
    return out


ELSE_COLON = [("NAME", "else"), ("COLON", ":")]


def classify(ours: str, theirs: str) -> str:
    """Why kclpy's output differs from the reference's, in the words of
    docs/differences.md ("Formatter"): ``blank lines``; ``layout`` (the same tokens
    and comments in the same order: a trailing comment kept on its line, a list or
    config kept on its line, a list ``if`` item kept on its line); ``literals``
    (numbers and slices as written, ``else: if`` kept); ``comments`` (kept in their
    block, which the reference moves past other code), ``literals, comments``;
    ``other``."""
    if without_blank_lines(ours) == without_blank_lines(theirs):
        return "blank lines"
    layout = _tokens(ours, True, False)
    if layout is not None and layout == _tokens(theirs, True, False):
        return "layout"
    literals = _tokens(ours, True, True)
    if literals is not None and literals == _tokens(theirs, True, True):
        return "literals"
    moved = _tokens(ours, False, True)
    if moved is not None and moved == _tokens(theirs, False, True):
        spelled = _tokens(ours, False, False) == _tokens(theirs, False, False)
        return "comments" if spelled else "literals, comments"
    return "other"


def differences(by_file: Tally, corpus: Path = CORPUS) -> dict[str, str]:
    """Every real file kclpy formats otherwise than the reference (or refuses alone),
    with the reason: :func:`classify`'s, or the one in ``REASONS``."""
    found: dict[str, str] = {}
    for kind in ("blank", "differ", "refused"):
        for name in by_file.outcomes.get(kind, []):
            reason = REASONS.get(name)
            if reason is None:
                data = (corpus / name).read_bytes()
                ours = kclpy_format(data.decode("utf-8", "replace"))
                theirs = reference_output(data, corpus)
                reason = "other" if ours is None or theirs is None else classify(ours, theirs)
            found[name] = reason
    return found


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=("reference", "compare"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--ref-python", default=os.environ.get("KCL_REF_PYTHON", sys.executable))
    parser.add_argument("--out", type=Path, help="compare: write every file's outcome here")
    parser.add_argument(
        "--write-known", action="store_true", help=f"compare: rewrite {KNOWN.name} from the results"
    )
    ns = parser.parse_args(argv)
    corpus = ns.corpus.resolve()
    if ns.command == "reference":
        folder = corpus / GOLDENS
        paths = [folder / f"{n}.input" for n in golden_names(corpus)] + real_files(corpus)
        formatted, failed = fill_reference(paths, corpus, ns.ref_python)
        print(json.dumps({"formatted": formatted, "failed": failed}))
        return 0
    start = time.monotonic()
    goldens = compare_goldens(corpus)
    by_file, by_text = compare_files(real_files(corpus), corpus)
    known = differences(by_file)
    if ns.write_known:
        KNOWN.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    reasons: dict[str, int] = {}
    for reason in known.values():
        reasons[reason] = reasons.get(reason, 0) + 1
    summary = {
        "goldens": goldens.counts(),
        "differences": dict(sorted(reasons.items())),
        "goldens_missed": {k: v for k, v in goldens.outcomes.items() if k != "equal"},
        "files": by_file.counts(),
        "texts": by_text.counts(),
        "seconds": round(time.monotonic() - start, 1),
    }
    print(json.dumps(summary, indent=1))
    if ns.out is not None:
        detail = {"goldens": goldens.outcomes, "files": by_file.outcomes, "texts": by_text.outcomes}
        ns.out.write_text(json.dumps(detail, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
