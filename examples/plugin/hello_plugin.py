"""An example kclpy plugin: KCL code calls it as ``import kcl_plugin.hello``.

Run ``python examples/plugin/hello_plugin.py`` to evaluate ``main.k`` with it, or
register it from your own automation with ``hello_plugin.register()``. An installed
package can provide the same mapping through the ``kclpy.plugins`` entry-point group.
"""

from __future__ import annotations

import os
import sys

import kclpy
import kclpy.plugin


def add(x: int, y: int) -> int:
    return x + y


def greet(name: str, greeting: str = "Hello") -> str:
    return f"{greeting}, {name}!"


FUNCTIONS = {"add": add, "greet": greet}


def register() -> None:
    kclpy.plugin.register("hello", FUNCTIONS)


def main() -> int:
    register()
    here = os.path.dirname(os.path.abspath(__file__))
    result = kclpy.run_files([os.path.join(here, "main.k")])
    if not result.ok:
        for diagnostic in result.diagnostics:
            print(diagnostic.message, file=sys.stderr)
        return 1
    sys.stdout.write(result.text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
