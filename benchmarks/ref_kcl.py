"""A minimal `kcl run` over the reference KCL (the ``kcl_lib`` package).

The benchmark runner times this script as the reference side.  It takes the
subset of `kcl run` options the workloads use:

    python benchmarks/ref_kcl.py [run] FILE... [-D name=value]... [-E pkg=path]...
        [-S path_selector]... [--format yaml|json]

Output: the program's ``print`` output, then the YAML (or JSON) result and a
newline on stdout, exit status 0.  A KCL error goes to stderr with exit
status 1; a bad command line exits with status 2.  Entries may use the
``${pkg:KCL_MOD}/...`` form of kcl.mod profiles; the reference resolves
them against the ``-E`` packages.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def option_value(text: str) -> str:
    """A ``-D`` value as the JSON text the reference expects.

    JSON values (numbers, lists, quoted strings...) pass through; anything
    else becomes a JSON string.
    """
    try:
        json.loads(text)
    except ValueError:
        return json.dumps(text, ensure_ascii=False)
    return text


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ref_kcl.py", description="kcl run over kcl_lib")
    parser.add_argument("files", nargs="+", help="KCL entry files")
    parser.add_argument(
        "-D",
        "--argument",
        action="append",
        default=[],
        dest="arguments",
        metavar="NAME=VALUE",
        help="top-level option for option()",
    )
    parser.add_argument(
        "-E",
        "--external",
        action="append",
        default=[],
        dest="externals",
        metavar="PKG=PATH",
        help="external package location",
    )
    parser.add_argument(
        "-S",
        "--path_selector",
        action="append",
        default=[],
        dest="selectors",
        metavar="PATH",
        help="path selector",
    )
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
    return parser.parse_args(argv)


def build_args(api: Any, ns: argparse.Namespace) -> Any:
    """Fill an ``ExecProgramArgs`` from the parsed command line."""
    args = api.ExecProgramArgs()
    args.k_filename_list.extend(ns.files)
    for spec in ns.arguments:
        name, sep, value = spec.partition("=")
        if not sep or not name:
            raise ValueError(f"invalid -D argument {spec!r}, expected name=value")
        args.args.append(api.Argument(name=name, value=option_value(value)))
    for spec in ns.externals:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"invalid -E argument {spec!r}, expected pkg=path")
        args.external_pkgs.append(api.ExternalPkg(pkg_name=name, pkg_path=path))
    args.path_selector.extend(ns.selectors)
    return args


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        argv = argv[1:]
    ns = parse_args(argv)

    import kcl_lib.api as api

    try:
        exec_args = build_args(api, ns)
    except ValueError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    try:
        result = api.API(plugin_agent=0).exec_program(exec_args)
    except Exception as error:  # the reference raises on compile errors
        sys.stderr.write(f"{error}\n")
        return 1
    if result.log_message:
        sys.stdout.write(result.log_message)
    if result.err_message:
        sys.stdout.flush()
        sys.stderr.write(f"{result.err_message}\n")
        return 1
    text = result.json_result if ns.format == "json" else result.yaml_result
    if text:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
