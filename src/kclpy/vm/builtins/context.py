"""The context handed to builtins that need more than their arguments.

A builtin marked with ``marks.needs_context`` gets a :class:`BuiltinContext` as its
first argument, made by its adapter (:mod:`kclpy.vm.builtins.adapt`) for the call.
It is a small, explicit view of the run, made of exactly what builtins read: the
options (``option``), the print output (``print``), the output stream
(``manifests.yaml_stream``), the file-system policy with the root, work folder and
the calling code's file (``file``, ``json``/``yaml`` dumps, ``crypto.filesha*``),
and two services of the interpreter: calling a KCL function value from the calling
package (``reduce``, ``runtime.catch``) and the ``|`` union of values
(``collection.union_all``). The calling package comes from the frame of the call,
never from state of the run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from kclpy.values import Value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from kclpy.vm.fs_policy import FsPolicy
    from kclpy.vm.objects import PackageState
    from kclpy.vm.runtime import Runtime

    class Host(Protocol):
        """What the interpreter offers builtins: the run's state and two services."""

        @property
        def runtime(self) -> Runtime: ...

        def call_from(
            self,
            function: Value,
            args: list[Value],
            kwargs: dict[str, Value],
            package: PackageState,
        ) -> Value:
            """Call a KCL function value (a lambda, a schema type, a builtin) from ``package``."""
            ...

        def union(self, left: Value, right: Value) -> Value:
            """The ``|`` operator (configs, schema instances, lists, ints)."""
            ...

        def context(self, package: PackageState) -> BuiltinContext:
            """The context of a call from ``package``."""
            ...


class BuiltinContext:
    """What the VM offers builtins such as ``print``, ``option`` and ``file.read``."""

    __slots__ = ("_host", "_package")

    def __init__(self, host: Host, package: PackageState) -> None:
        self._host = host
        self._package = package  # the package of the calling code

    def call(self, function: Value, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """Call a KCL function value (a lambda, a schema type, a builtin)."""
        return self._host.call_from(function, args, kwargs, self._package)

    def union(self, left: Value, right: Value) -> Value:
        """The ``|`` operator (configs, schema instances, lists, ints)."""
        return self._host.union(left, right)

    @property
    def current_file(self) -> str:
        """Absolute path of the first file of the calling package ("" for code strings)."""
        files = self._package.code.files
        return os.path.abspath(files[0]) if files else ""

    @property
    def root(self) -> str:
        """The package root: the kcl.mod directory, or the entry file's directory."""
        return self._host.runtime.root

    @property
    def workdir(self) -> str:
        """The ``work_dir`` setting ("" when unset)."""
        return self._host.runtime.work_dir

    @property
    def fs_policy(self) -> FsPolicy:
        """Which folders the file builtins may read and write (besides the root)."""
        return self._host.runtime.fs_policy

    @property
    def options(self) -> Mapping[str, Value]:
        """``-D`` / settings-file option values, already JSON-decoded."""
        return self._host.runtime.options

    def write_output(self, text: str) -> None:
        """Append ``text`` to the program's print output."""
        self._host.runtime.output.append(text)

    def set_output_stream(self, values: list[Value], options: dict[str, Value]) -> None:
        """Replace the program output by a YAML stream (``manifests.yaml_stream``)."""
        self._host.runtime.stream = (list(values), dict(options))
