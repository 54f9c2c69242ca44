"""Where a cold ``kcl run`` spends its time and memory: one line per pipeline stage.

    python benchmarks/stages.py FILE_OR_FOLDER... [-E NAME=PATH]... [--tracemalloc]
        [--stop-after STAGE]

Runs the driver's stages (``kclpy.pipeline.driver``: load, check, compile, run,
render) one after the other in this process, cycle collector off as in ``kcl run``,
and prints each stage's ``process_time`` and the resident set size after it (current
and peak, from ``/proc/self/status``). With ``--tracemalloc`` it also prints the
bytes Python has allocated after each stage (slower: read the sizes, not the times).
A measurement only; the stages are called the way ``driver.run`` calls them (the
program and its model are let go once compiled, as there). ``--stop-after STAGE``
(``imports``, ``load``, ``check``, ``compile``, ``run``, ``render``) ends the
process after that stage: instruction counts per stage are the differences of
``valgrind --tool=callgrind`` runs stopping after each stage.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from kclpy.emit import EmitOptions
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database

STAGES = ("imports", "load", "check", "compile", "run", "render")


def memory_mb() -> tuple[float, float]:
    """(current, peak) resident set size of this process in MB."""
    fields: dict[str, float] = {}
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    arguments.add_argument("inputs", nargs="+")
    arguments.add_argument("-E", dest="externals", action="append", default=[], metavar="NAME=PATH")
    arguments.add_argument("--tracemalloc", action="store_true")
    arguments.add_argument("--stop-after", choices=STAGES, default="render")
    options = arguments.parse_args()
    files = [
        os.path.join(path, name) if os.path.isdir(path) else path
        for path in options.inputs
        for name in (sorted(os.listdir(path)) if os.path.isdir(path) else [""])
        if name.endswith(".k") or not name
    ]
    externals = dict(item.split("=", 1) for item in options.externals)
    gc.disable()
    if options.tracemalloc:
        tracemalloc.start()
    state: dict[str, Any] = {}

    def stage(name: str, work: Callable[[], Any]) -> None:
        start = time.process_time()
        state[name] = work()
        seconds = time.process_time() - start
        current, peak = memory_mb()
        traced = ""
        if options.tracemalloc:
            size, top = tracemalloc.get_traced_memory()
            traced = f", traced {size / 2**20:.0f} MB (peak {top / 2**20:.0f} MB)"
        print(f"{name:8} {seconds:7.3f} s  RSS {current:6.0f} MB (peak {peak:6.0f} MB){traced}")

    def stop_after(name: str) -> None:
        if options.stop_after == name:
            sys.stdout.flush()
            os._exit(0)

    stop_after("imports")
    inputs = driver.Inputs(files, os.getcwd(), externals)
    diagnostics: list[Any] = []
    database = Database(Settings(tool_facts=False))  # as a run's
    stage("load", lambda: driver.load(inputs, database))
    stop_after("load")
    stage("check", lambda: driver.check(state["load"], database))
    stop_after("check")
    state["check"].drop_tool_facts()  # as driver.front_end does
    diagnostics.extend(state["check"].diagnostics)
    model = state.pop("check")
    stage("compile", lambda: driver.compile_program(state["load"], model, diagnostics, database))
    stop_after("compile")
    codes, source = state.pop("compile")
    compiled = driver.Compiled(codes, state.pop("load").root, {}, "", None, source)
    runner = driver.start(compiled, driver.RunSettings())
    stage("run", lambda: driver.execute(runner, driver.RunSettings()))
    stop_after("run")
    stage("render", lambda: driver.render(state["run"], EmitOptions()))
    if diagnostics:
        print(f"{len(diagnostics)} diagnostics, first: {diagnostics[0].message}", file=sys.stderr)


if __name__ == "__main__":
    main()
