"""The state of one program run, apart from the loop that advances it.

A ``Runtime`` holds what the whole run shares: the compiled packages and the loaded
ones (``modules``, by package path), the options,
the print output and the output stream a builtin may set, warnings, the file-system
policy and resource limits, and the builtin values made so far. The
interpreter (:mod:`kclpy.vm.interp`) and the schema builder (:mod:`kclpy.vm.schemas`)
read and update it; builtins see a part of it through
:class:`kclpy.vm.builtins.context.BuiltinContext`. It runs no code itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from kclpy.compile.code import NO_SOURCE, PackageCode
from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import Location
from kclpy.vm.fs_policy import DEFAULT_POLICY, FsPolicy
from kclpy.vm.limits import DEFAULT_LIMITS, ResourceLimits
from kclpy.vm.objects import DONE, Builtin, Frame, ModuleValue, PackageState, SchemaType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.compile.code import CodeSource

# a bare top-level expression of the main package: ((file index, offset), value, whether
# it is a schema expression)
ExpressionValue = tuple[tuple[int, int], Value, bool]


class Runtime:
    """Program-wide state of one run (see the module docstring)."""

    def __init__(
        self,
        package_codes: Mapping[str, PackageCode],
        main_pkgpath: str,
        options: Mapping[str, Value] | None = None,
        work_dir: str = "",
        root: str = "",
        fs_policy: FsPolicy = DEFAULT_POLICY,
        limits: ResourceLimits = DEFAULT_LIMITS,
        code_source: CodeSource = NO_SOURCE,
    ) -> None:
        self.package_codes = package_codes
        # the bodies of the schemas the codes hold the headers of (compiled on first use)
        self.code_source = code_source
        self.main_pkgpath = main_pkgpath
        self.options: Mapping[str, Value] = options or {}
        self.work_dir = work_dir
        self.root = root  # the kcl.mod folder, or the entry file's folder
        self.fs_policy = fs_policy
        self.limits = limits
        self.modules: dict[str, ModuleValue] = {}  # loaded packages and system modules
        self.main_package: PackageState | None = None
        self.output: list[str] = []  # print() text, in order
        self.stream: tuple[list[Value], dict[str, Value]] | None = None  # yaml_stream
        self.warnings: list[tuple[str, Location | None]] = []
        self.expression_values: list[ExpressionValue] = []
        self.builtin_cache: dict[str, Builtin] = {}

    @property
    def log(self) -> str:
        """The print output so far (also after a failed run)."""
        return "".join(self.output)

    def warn(self, message: str) -> None:
        self.warnings.append((message, None))

    def main_value(self, name: str) -> Value:
        """A computed top-level variable of the main package (Undefined when there is
        none by that name or it was never computed)."""
        package = self.main_package
        if package is None:
            return UNDEFINED
        slot = package.code.slot_of(name)
        if slot < 0 or package.states[slot] != DONE:
            return UNDEFINED
        return package.values[slot]

    def record_expression(self, value: Value, frame: Frame, schema: bool) -> None:
        """A bare top-level expression's value: output when it is main-package data."""
        if frame.package is not self.main_package:
            return
        if isinstance(value, SchemaType) or callable(value):
            return
        code = frame.code
        files = frame.package.code.files
        file_index = files.index(code.path) if code.path in files else 0
        start = code.positions[frame.pc // 2 - 1][0] if code.positions else 0
        self.expression_values.append(((file_index, start), value, schema))
