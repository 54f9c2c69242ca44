"""The view of a running program that context-aware builtins get."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from kclpy.vm.fs_policy import FsPolicy


class RuntimeContext(Protocol):
    """What the VM offers builtins such as ``print``, ``option`` and ``file.read``."""

    @property
    def current_file(self) -> str:
        """Absolute path of the .k file whose code is running ("" for code strings)."""
        ...

    @property
    def root(self) -> str:
        """The package root: the kcl.mod directory, or the entry file's directory."""
        ...

    @property
    def workdir(self) -> str:
        """The ``work_dir`` setting ("" when unset)."""
        ...

    @property
    def fs_policy(self) -> FsPolicy:
        """Which folders the file builtins may read and write (besides the root)."""
        ...

    @property
    def options(self) -> dict[str, Any]:
        """``-D`` / settings-file option values, already JSON-decoded."""
        ...

    def write_output(self, text: str) -> None:
        """Append ``text`` to the program's print output."""
        ...

    def set_output_stream(self, values: list[Any], options: dict[str, Any]) -> None:
        """Replace the program output by a YAML stream (``manifests.yaml_stream``)."""
        ...

    def call(self, function: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """Call a KCL function value (a lambda, a schema type, a builtin)."""
        ...

    def warn(self, message: str) -> None:
        """Report a warning diagnostic at the current call site."""
        ...


ContextFunction = Callable[..., Any]
