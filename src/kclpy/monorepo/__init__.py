"""Monorepo builds (``kcl build``, ``kclpy.build``): every stack under some paths
compiled, checked against its golden output, narrowed to what a change reaches.

Modules: ``stacks`` (discovery), ``impact`` (dependency sets, changed files,
affected stacks), ``report`` (jobs, outputs, results, the report), ``goldens``
(compare and update ``ci-test/stdout.golden.yaml``), ``workers`` (local worker
processes), ``cluster`` (Dask), ``engine`` (options to report), ``command`` (the
``kcl build`` arguments and output).

The package sits beside ``tools``, below the API: the function that compiles a
stack is handed in by ``kclpy.api`` (named ``monorepo`` rather than ``build`` so
that ``kclpy.build`` stays the API function).
"""

from kclpy.monorepo.engine import BuildError, BuildOptions, build
from kclpy.monorepo.report import BuildReport, StackJob, StackOutput, StackResult

__all__ = [
    "BuildError",
    "BuildOptions",
    "BuildReport",
    "StackJob",
    "StackOutput",
    "StackResult",
    "build",
]
