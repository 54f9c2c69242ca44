"""``python -m kclpy.kusion ...``: the kusion commands without the main ``kcl`` CLI."""

from __future__ import annotations

import argparse
import sys

from kclpy.kusion.cli import add_arguments, main


def run(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kcl kusion", description="Kusion backend of kclpy")
    add_arguments(parser)
    return main(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(run())
