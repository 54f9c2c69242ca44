"""The ``kcl`` command's entry point (the console script and ``python -m kclpy``).

The cycle collector is paused while the command line's modules load: importing
them creates many objects and no garbage cycles, and the collections their
allocations trigger cost about 4 M instructions of every start (the commands
then decide: ``kcl run`` keeps it paused, see ``kclpy.cli.run``).
"""

from __future__ import annotations

import gc


def main() -> int:
    """Load the command line with the collector paused, then run ``kclpy.cli.main``."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        from kclpy.cli import main as command_line
    finally:
        if collecting:
            gc.enable()
    return command_line()
