"""Generators for the synthetic benchmark workloads.

Each family writes one folder per size N, holding KCL files and a
``workload.json`` that says how to run it (``argv``: the `kcl run` arguments,
relative to the folder).  The programs are our own, written to stress one part
of an implementation each:

* ``schemas``: N literal schema instances of two schemas that inherit from a
  common base, with defaults, computed attributes and check blocks.
* ``unify``: one config ``config: Config {...}`` declared in 10 files, each
  file adding N/10 entries and a few nested fields; the implementation must
  unify the ten parts.
* ``compute``: list/dict comprehensions, arithmetic, string formatting and
  builtins over ranges of size N; a small literal program, heavy evaluation.
* ``merge``: one instance ``app: App`` of a schema whose attribute is typed
  ``{str:{str:{str:int}}}``, declared in 10 files, each adding N/100 nested
  blocks of 10 keys (``data: {"g<i>-<m>": {"k<j>": {"x": j}}}``); the
  implementation must check every nested block against the dict type and
  merge the ten parts.
* ``mergeblocks``: the same instance and keys, each group written as a block of
  its own (``data: {"g<i>-<m>": {...}}`` N/100 times in each file's instance):
  the key ``data`` repeated in one config, whose value types are joined.
* ``assign``: N top-level assignments of literals (ints, strings, small lists
  and dicts); 700k of them make a 10 MB source.  Stresses the front end.
* ``list``: one list literal of N ints and strings on a single line.

    python benchmarks/generate.py OUT_DIR [--families schemas,unify,compute,merge,mergeblocks]
        [--sizes 1k,10k,100k]

Folders are named ``<family>-<N>`` (``schemas-1000``).  Generation is
deterministic: the same arguments give byte-identical files.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

FAMILIES = ("schemas", "unify", "compute", "merge", "mergeblocks")
BIG_FAMILIES = ("assign", "list")
DEFAULT_SIZES = (1_000, 10_000, 100_000)
UNIFY_FILES = 10
MERGE_FILES = 10
MERGE_GROUP = 10  # keys of each nested block

SCHEMAS_HEADER = '''\
"""Synthetic workload: N schema instances with inheritance, defaults and checks."""

schema Base:
    name: str
    labels: {str:str} = {}
    enabled: bool = True
    owner?: str

    check:
        len(name) > 0, "name must not be empty"

schema Service(Base):
    port: int = 80
    replicas: int = 1
    tier: "frontend" | "backend" = "backend"
    endpoint: str = "{}:{}".format(name, port)

    check:
        0 < port < 65536, "port out of range"
        replicas >= 1

schema Job(Base):
    schedule: str = "@daily"
    retries: int = 3
    timeoutSeconds: int = retries * 60

    check:
        retries <= 10

'''

UNIFY_SCHEMAS = '''\
"""Synthetic workload: one config unified across {files} files."""

schema Entry:
    value: int
    tags: [str] = []
    weight: float = 1.0

schema Meta:
    labels: {{str:str}} = {{}}
    annotations: {{str:str}} = {{}}

schema Config:
    meta: Meta = Meta {{}}
    entries: {{str:Entry}} = {{}}
    owners: [str] = []
'''

COMPUTE_TEMPLATE = '''\
"""Synthetic workload: comprehension and arithmetic heavy, size {n}."""

N = {n}
_numbers = [i for i in range(N)]
squares = [(i * i + 7 * i) % 1009 for i in _numbers]
total = sum(squares)
_evens = {{str(i): i * 2 for i in _numbers if i % 2 == 0}}
evenCount = len(_evens)
_pairs = [[i, (i * 31 + 17) % 101] for i in range(N // 2)]
pairSum = sum([p[0] * p[1] for p in _pairs])
_names = ["item-{{}}-{{}}".format(i, i % 13) for i in _numbers]
longNames = len([s for s in _names if len(s) > 10])
_grid = [[(r * c) % 7 for c in range(10)] for r in range(N // 10)]
gridSum = sum([sum(row) for row in _grid])
_buckets = {{
    str(b): len([x for x in squares[b * 10:(b + 1) * 10] if x % 2 == 0])
    for b in range(N // 10)
}}
bucketMax = max([v for _, v in _buckets])
_floats = [i / 3.0 + 0.5 for i in range(N)]
floatSum = int(sum(_floats))
flags = {{
    anyBig = any x in squares {{x > 1000}}
    allSmall = all x in squares {{x < 1009}}
    mapped = len(map x in squares {{x + 1}})
    kept = len(filter x in squares {{x % 3 == 0}})
}}
stats = {{
    count = len(squares)
    min = min(squares)
    max = max(squares)
    mean = total / len(squares)
}}
'''


def parse_size(text: str) -> int:
    """``1k`` -> 1000, ``10000`` -> 10000, ``1m`` -> 1000000."""
    text = text.strip().lower()
    scale = 1
    if text.endswith("k"):
        scale, text = 1_000, text[:-1]
    elif text.endswith("m"):
        scale, text = 1_000_000, text[:-1]
    return int(text) * scale


def parse_sizes(text: str) -> list[int]:
    return [parse_size(part) for part in text.split(",") if part.strip()]


def _schemas(n: int) -> dict[str, str]:
    lines = [SCHEMAS_HEADER, "services = ["]
    for i in range(n):
        if i % 4 == 3:
            lines.append(
                f'    Job {{name = "job-{i}", retries = {i % 5}, '
                f'labels = {{team = "t{i % 17}", idx = "{i}"}}}}'
            )
        else:
            tier = "frontend" if i % 2 else "backend"
            lines.append(
                f'    Service {{name = "svc-{i}", port = {1000 + i % 50000}, '
                f'replicas = {i % 5 + 1}, tier = "{tier}", labels = {{idx = "{i}"}}}}'
            )
    lines.append("]")
    lines.append("serviceCount = len(services)")
    return {"main.k": "\n".join(lines) + "\n"}


def _unify(n: int) -> dict[str, str]:
    files = {"schemas.k": UNIFY_SCHEMAS.format(files=UNIFY_FILES)}
    per_file = max(1, n // UNIFY_FILES)
    for part in range(UNIFY_FILES):
        lines = [
            f'"""Part {part} of the unified config."""',
            "",
            "config: Config {",
            f'    meta.labels.part{part} = "p{part}"',
            f'    meta.annotations: {{"owner-{part}" = "team-{part % 3}"}}',
            f'    owners += ["owner-{part}"]',
            "    entries: {",
        ]
        for j in range(per_file):
            index = part * per_file + j
            lines.append(
                f'        "e{index}": {{value = {index}, tags = ["p{part}"], '
                f"weight = {(index % 10) / 10.0}}}"
            )
        lines.append("    }")
        lines.append("}")
        files[f"part{part:02d}.k"] = "\n".join(lines) + "\n"
    files["summary.k"] = "entryCount = len(config.entries)\n"
    return files


MERGE_SCHEMA = '''\
"""Synthetic workload: one instance of a nested-dict schema merged across {files} files."""

schema App:
    name: str = "app"
    data: {{str:{{str:{{str:int}}}}}} = {{}}
'''


def _merge(n: int) -> dict[str, str]:
    return _merged_instance(n, repeat_key=False)


def _merge_blocks(n: int) -> dict[str, str]:
    return _merged_instance(n, repeat_key=True)


def _merged_instance(n: int, repeat_key: bool) -> dict[str, str]:
    """Ten files adding N/100 groups of 10 keys to ``app.data``: in one ``data``
    block per file, or (``repeat_key``) in one block per group."""
    files = {"schema.k": MERGE_SCHEMA.format(files=MERGE_FILES)}
    per_file = max(1, n // MERGE_FILES)
    groups = max(1, per_file // MERGE_GROUP)
    indent = "    " if repeat_key else "        "
    for part in range(MERGE_FILES):
        lines = [f'"""Part {part} of the merged instance."""', "", "app: App {"]
        if not repeat_key:
            lines.append("    data: {")
        for group in range(groups):
            opening = f'"g{part}-{group}": {{'
            lines.append(f"    data: {{{opening}" if repeat_key else indent + opening)
            for key in range(MERGE_GROUP):
                value = group * MERGE_GROUP + key
                lines.append(f'{indent}    "k{key}": {{"x": {value}}}')
            lines.append("    }}" if repeat_key else indent + "}")
        if not repeat_key:
            lines.append("    }")
        lines.append("}")
        files[f"part{part:02d}.k"] = "\n".join(lines) + "\n"
    files["summary.k"] = "groupCount = len(app.data)\n"
    return files


def _compute(n: int) -> dict[str, str]:
    return {"main.k": COMPUTE_TEMPLATE.format(n=n)}


def _assign(n: int) -> dict[str, str]:
    lines = ['"""Synthetic workload: N top-level assignments of literals."""']
    for i in range(n):
        kind = i % 4
        if kind == 0:
            lines.append(f"a{i} = {i % 997}")
        elif kind == 1:
            lines.append(f's{i} = "x{i % 97}"')
        elif kind == 2:
            lines.append(f"l{i} = [{i % 7}, 2]")
        else:
            lines.append(f"d{i} = {{k = {i % 5}}}")
    return {"main.k": "\n".join(lines) + "\n"}


def _list(n: int) -> dict[str, str]:
    items = ", ".join(str(i) if i % 2 else f'"s{i}"' for i in range(n))
    return {"main.k": f"items = [{items}]\ncount = len(items)\n"}


GENERATORS: dict[str, Callable[[int], dict[str, str]]] = {
    "schemas": _schemas,
    "unify": _unify,
    "compute": _compute,
    "merge": _merge,
    "mergeblocks": _merge_blocks,
    "assign": _assign,
    "list": _list,
}


def entry_files(family: str, files: dict[str, str]) -> list[str]:
    """The `kcl run` inputs for a generated folder, in order."""
    if family in ("unify", "merge", "mergeblocks"):
        parts = sorted(name for name in files if name.startswith("part"))
        first = "schemas.k" if family == "unify" else "schema.k"
        return [first, *parts, "summary.k"]
    return ["main.k"]


def generate(out_dir: Path, family: str, size: int) -> Path:
    """Write ``out_dir/<family>-<size>`` and return its path."""
    folder = out_dir / f"{family}-{size}"
    folder.mkdir(parents=True, exist_ok=True)
    files = GENERATORS[family](size)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    lines = sum(text.count("\n") for text in files.values())
    meta = {"family": family, "size": size, "argv": entry_files(family, files), "lines": lines}
    (folder / "workload.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="output folder (e.g. .corpus/bench)")
    parser.add_argument(
        "--families",
        default=",".join(FAMILIES + BIG_FAMILIES),
        help="comma-separated families (default: all)",
    )
    parser.add_argument("--sizes", default="1k,10k,100k", help="comma-separated sizes")
    ns = parser.parse_args(argv)
    families = [f for f in ns.families.split(",") if f]
    unknown = [f for f in families if f not in GENERATORS]
    if unknown:
        parser.error(f"unknown families: {', '.join(unknown)}")
    for family in families:
        for size in parse_sizes(ns.sizes):
            folder = generate(ns.out, family, size)
            print(folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
