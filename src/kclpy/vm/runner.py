"""Running a whole program: the main package, its output, print and option values.

``Runner`` is the interpreter plus the ``RuntimeContext`` that builtins see. The
result is the list of output documents (before filtering by the emitter), the
print output, and runtime errors as located exceptions.
"""

from __future__ import annotations

import os
import re
from typing import Any

from kclpy.compile.code import PackageCode
from kclpy.vm.fs_policy import DEFAULT_POLICY, FsPolicy
from kclpy.vm.interp import Interpreter
from kclpy.vm.limits import DEFAULT_LIMITS, ResourceLimits, guarded
from kclpy.vm.objects import DONE, Frame, PackageState, SchemaType
from kclpy.vm.values import UNDEFINED, Config, KclRuntimeError, SchemaInstance

Location = tuple[str, int, int]


class RunOutput:
    """What a successful run produced."""

    __slots__ = ("documents", "log", "stream_options")

    def __init__(
        self, documents: list[Any], log: str, stream_options: dict[str, Any] | None
    ) -> None:
        self.documents = documents
        self.log = log
        self.stream_options = stream_options


def locate(error: KclRuntimeError, frame: Frame, pc: int) -> None:
    """Attach the failing position (first time) or a call-stack entry to ``error``."""
    code = frame.code
    index = max(0, min(pc // 2, len(code.positions) - 1)) if code.positions else -1
    start, end = code.positions[index] if index >= 0 else (0, 0)
    error.locate((code.path, start, end))


class Runner(Interpreter):
    """Runs the main package of a program; also the RuntimeContext of builtins."""

    def __init__(
        self,
        package_codes: dict[str, PackageCode],
        main_pkgpath: str,
        options: dict[str, Any] | None = None,
        work_dir: str = "",
        root: str = "",
        fs_policy: FsPolicy = DEFAULT_POLICY,
        limits: ResourceLimits = DEFAULT_LIMITS,
    ) -> None:
        super().__init__(package_codes, self)
        self._fs_policy = fs_policy
        self.limits = limits
        self.main_pkgpath = main_pkgpath
        self._options = options or {}
        self._work_dir = work_dir
        self._root = root
        self._log: list[str] = []
        self._stream: tuple[list[Any], dict[str, Any]] | None = None
        self.warnings: list[tuple[str, Location | None]] = []
        self._frame: Frame | None = None

    # ------------------------------------------------------------------ context

    @property
    def current_file(self) -> str:
        package = self._current_package
        if package is not None and package.code.files:
            return os.path.abspath(package.code.files[0])
        return ""

    @property
    def root(self) -> str:
        return self._root

    @property
    def fs_policy(self) -> FsPolicy:
        return self._fs_policy

    @property
    def workdir(self) -> str:
        return self._work_dir

    @property
    def options(self) -> dict[str, Any]:
        return self._options

    def write_output(self, text: str) -> None:
        self._log.append(text)

    def set_output_stream(self, values: list[Any], options: dict[str, Any]) -> None:
        self._stream = (list(values), dict(options))

    def call(
        self, function: Any, args: list[Any], kwargs: dict[str, Any], frame: Any = None
    ) -> Any:
        return super().call(function, args, kwargs, frame or self._frame or self._root_frame())

    def warn(self, message: str) -> None:
        self.warnings.append((message, None))

    def _root_frame(self) -> Frame:
        from kclpy.compile.code import Code

        package = self._current_package or PackageState(PackageCode("__main__"))
        return Frame(Code("<builtin>", ""), package.scope, package, None)

    # ------------------------------------------------------------------ hooks

    def locate(self, error: KclRuntimeError, frame: Frame, pc: int) -> None:
        locate(error, frame, pc)

    def expression_output(self, value: Any, frame: Frame) -> None:
        if frame.package is not self.main_package:
            return
        if value is None or value is UNDEFINED:
            return
        if isinstance(value, SchemaType) or callable(value):
            return
        code = frame.code
        files = frame.package.code.files
        file_index = files.index(code.path) if code.path in files else 0
        start = code.positions[frame.pc // 2 - 1][0] if code.positions else 0
        self.expression_values.append(((file_index, start), value))

    def option(
        self,
        key: str,
        type: str = "",
        required: bool = False,
        default: Any = None,
        help: str = "",
        **_: Any,
    ) -> Any:
        if key in self._options:
            value = self._options[key]
        elif default is not None:
            value = default
        elif required:
            raise KclRuntimeError(f"option('{key}') must be initialized, try '-D {key}=?' argument")
        else:
            return None
        return convert_option(key, value, type)

    # ------------------------------------------------------------------ run

    def run(self) -> RunOutput:
        code = self.package_codes[self.main_pkgpath]
        package = PackageState(code)
        self.main_package = package
        from kclpy.vm.objects import ModuleValue

        self.modules[self.main_pkgpath] = ModuleValue(self.main_pkgpath, package, None)
        with guarded(self.limits):
            self.run_package(package, None)
            documents = self.documents(package)
        stream_options = None
        if self._stream is not None:
            documents, stream_options = self._stream
        return RunOutput(documents, "".join(self._log), stream_options)

    def documents(self, package: PackageState) -> list[Any]:
        """The output documents. As in the reference, the dicts of bare top-level
        expressions come first (in source order), then the variables; a bare list of
        dicts adds documents after that one, a bare scalar is the only document."""
        root = Config()
        code = package.code
        extra = sorted(self.expression_values, key=lambda item: item[0])
        listed: list[Any] | None = None
        scalar: list[Any] = []
        for _, value in extra:
            if isinstance(value, dict):
                if isinstance(value, SchemaInstance):
                    root.clear()  # (the reference drops the bare dicts before an instance)
                for key, item in value.items():
                    root[key] = item
            elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                listed = list(value)
            else:
                if scalar:
                    raise KclRuntimeError(
                        f"conflicting values between {_short(value)} and {_short(scalar[0])}"
                    )
                scalar.append(value)
        for slot in code.output:
            if package.states[slot] == DONE:
                root[code.slot_names[slot]] = package.values[slot]
        if scalar:
            if _has_output(root):
                raise KclRuntimeError(f"conflicting values between {{...}} and {_short(scalar[0])}")
            return scalar
        if listed is not None:
            return ([root] if root else []) + listed
        return [root]


def _has_output(root: dict[str, Any]) -> bool:
    """Whether the document of variables would print anything (visible data)."""
    from kclpy.vm.values import is_data

    return any(
        not key.startswith("_") and value is not UNDEFINED and is_data(value)
        for key, value in root.items()
    )


def _short(value: Any) -> str:
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def convert_option(key: str, value: Any, type_name: str) -> Any:
    """An option value (or default) converted to the ``type=`` of ``option()``."""
    if not type_name:
        return value
    kind = type(value)
    if type_name == "bool":
        if kind is bool:
            return value
        if kind is int or kind is float:
            return value != 0
        if kind is str:
            return value in ("True", "true")
        return UNDEFINED
    if type_name == "int":
        if kind is bool or kind is int:
            return int(value)
        if kind is float:
            return int(value)
        if kind is str and _INT_TEXT.match(value):
            return int(value)
    elif type_name == "float":
        if kind is bool or kind is int or kind is float:
            return float(value)
        if kind is str:
            try:
                return float(value)
            except ValueError:
                return 0.0
    elif type_name == "str":
        if kind is bool:
            return "true" if value else "false"
        if kind is int or kind is str:
            return str(value)
        if kind is float:
            return _plain_float(value)
    elif type_name == "list":
        if isinstance(value, list):
            return value
    elif type_name == "dict":
        if isinstance(value, dict):
            return value
    else:
        raise KclRuntimeError(f"unknown type '{type_name}'")
    raise KclRuntimeError(f"cannot use '{_short_text(value)}' as type '{type_name}'")


_INT_TEXT = re.compile(r"^[+-]?\d+$")


def _plain_float(value: float) -> str:
    """A float without exponent and without a needless ``.0`` (``120.0`` -> ``120``)."""
    if value != value or value in (float("inf"), float("-inf")):
        return {True: "NaN"}.get(value != value, "inf" if value > 0 else "-inf")
    from decimal import Decimal

    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _short_text(value: Any) -> str:
    from kclpy.vm.builtins.convert import to_str

    return to_str(value)
