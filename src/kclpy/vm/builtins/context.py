"""The context handed to builtins that need more than their arguments.

A builtin marked with ``registry.needs_context`` gets a :class:`BuiltinContext` as
its first argument. It is a small, explicit view of the run, made of exactly what
builtins read: the options (``option``), the print output (``print``), the output
stream (``manifests.yaml_stream``), the file-system policy with the root, work
folder and current file (``file``, ``json``/``yaml`` dumps, ``crypto.filesha*``),
and two services of the interpreter: calling a KCL function value (``reduce``,
``runtime.catch``) and the ``|`` union of values (``collection.union_all``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from kclpy.values import Value

if TYPE_CHECKING:
    from kclpy.vm.fs_policy import FsPolicy
    from kclpy.vm.runtime import Runtime

# (function value, positional arguments, keyword arguments) -> result
CallFunction = Callable[[Value, list[Value], dict[str, Value]], Value]
# (left, right) -> left | right
UnionFunction = Callable[[Value, Value], Value]


class BuiltinContext:
    """What the VM offers builtins such as ``print``, ``option`` and ``file.read``."""

    __slots__ = ("_runtime", "call", "union")

    def __init__(self, runtime: Runtime, call: CallFunction, union: UnionFunction) -> None:
        self._runtime = runtime
        self.call = call  # call a KCL function value (a lambda, a schema type, a builtin)
        self.union = union  # the ``|`` operator (configs, schema instances, lists, ints)

    @property
    def current_file(self) -> str:
        """Absolute path of the .k file whose code is running ("" for code strings)."""
        return self._runtime.current_file

    @property
    def root(self) -> str:
        """The package root: the kcl.mod directory, or the entry file's directory."""
        return self._runtime.root

    @property
    def workdir(self) -> str:
        """The ``work_dir`` setting ("" when unset)."""
        return self._runtime.work_dir

    @property
    def fs_policy(self) -> FsPolicy:
        """Which folders the file builtins may read and write (besides the root)."""
        return self._runtime.fs_policy

    @property
    def options(self) -> Mapping[str, Value]:
        """``-D`` / settings-file option values, already JSON-decoded."""
        return self._runtime.options

    def write_output(self, text: str) -> None:
        """Append ``text`` to the program's print output."""
        self._runtime.output.append(text)

    def set_output_stream(self, values: list[Value], options: dict[str, Value]) -> None:
        """Replace the program output by a YAML stream (``manifests.yaml_stream``)."""
        self._runtime.stream = (list(values), dict(options))
