"""Running a whole program: the main package, its output documents and print text.

``Runner`` assembles the parts of the VM for one run (a :class:`Runtime` with the
state, an :class:`Interpreter` that runs code) and turns the main package into the
list of output documents (before filtering by the emitter). Runtime errors are
:class:`KclRuntimeError` with their position and KCL stack in declared fields.
What a driver reads after a run: :class:`RunOutput` (documents, print text, stream
options, warnings), and, after a failure too, :attr:`Runner.log`;
:meth:`Runner.main_value` and :meth:`Runner.call` serve ``kcl test``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from kclpy.compile.code import NO_SOURCE, PackageCode
from kclpy.values import UNDEFINED, Config, Value
from kclpy.values.errors import KclRuntimeError, Location
from kclpy.vm.fs_policy import DEFAULT_POLICY, FsPolicy
from kclpy.vm.interp import Interpreter
from kclpy.vm.limits import DEFAULT_LIMITS, ResourceLimits, within
from kclpy.vm.merge import conflicts, short_repr, union
from kclpy.vm.objects import DONE, ModuleValue, PackageState
from kclpy.vm.runtime import Runtime

TYPE_CHECKING = False
if TYPE_CHECKING:
    from kclpy.compile.code import CodeSource
    from kclpy.vm.limits import Result


class RunOutput:
    """What a successful run produced."""

    __slots__ = ("documents", "log", "stream_options", "warnings")

    def __init__(
        self,
        documents: list[Value],
        log: str,
        stream_options: dict[str, Value] | None,
        warnings: list[tuple[str, Location | None]] | None = None,
    ) -> None:
        self.documents = documents  # output documents, before the emitter's filters
        self.log = log  # print() output
        self.stream_options = stream_options  # set by manifests.yaml_stream, else None
        self.warnings = warnings or []  # (message, location) of non-fatal problems


class Runner:
    """Runs the main package of a program (see the module docstring)."""

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
        self.runtime = Runtime(
            package_codes, main_pkgpath, options, work_dir, root, fs_policy, limits, code_source
        )
        self.interpreter = Interpreter(self.runtime)

    @property
    def log(self) -> str:
        """The print output so far (after a failed run too)."""
        return self.runtime.log

    def under_limits(self, work: Callable[[], Result]) -> Result:
        """``work()`` under the run's resource limits: other work on its values (writing
        the output of a big result takes memory too); a tripped limit leaves as a
        KclRuntimeError of kind ResourceLimitError."""
        return within(self.runtime.limits, work)

    def set_strict_range_check(self, strict: bool) -> None:
        """``-r``: arithmetic results must fit 32-bit ints and floats."""
        self.interpreter.set_strict_range_check(strict)

    def main_value(self, name: str) -> Value:
        """A computed top-level variable of the main package (Undefined if none)."""
        return self.runtime.main_value(name)

    def call(self, function: Value, args: list[Value], kwargs: dict[str, Value]) -> Value:
        """Call a KCL function value of the program (``kcl test`` calls its lambdas)."""
        return self.interpreter.call_value(function, args, kwargs)

    def run(self) -> RunOutput:
        """Run the main package; raises KclRuntimeError (located) when it fails."""
        runtime = self.runtime
        package = PackageState(runtime.package_codes[runtime.main_pkgpath])
        runtime.main_package = package
        runtime.modules[runtime.main_pkgpath] = ModuleValue(runtime.main_pkgpath, package, None)

        def work() -> list[Value]:
            self.interpreter.run_package(package, None)
            return self.documents(package)

        documents = within(runtime.limits, work)
        stream_options = None
        if runtime.stream is not None:
            documents, stream_options = runtime.stream
        return RunOutput(documents, runtime.log, stream_options, list(runtime.warnings))

    def documents(self, package: PackageState) -> list[Value]:
        """The output documents, as the reference plans the main package.

        The values of its bare top-level expressions (calls excepted), in source order,
        where a schema expression takes the place of the last one before it (the first
        value when there was none: a reference quirk, ``{a = 1}`` then ``P {}`` prints
        only the instance); the dicts first, then the variables.
        The other values (scalars, lists) unify into one (None and Undefined give way,
        equal values agree, lists unify item by item): that value is then the output,
        and visible variables beside it are a conflict. A list of dicts is a stream of
        documents, an empty list prints nothing; None or Undefined alone print ``null``.
        """
        root = Config()
        code = package.code
        extra = _replace_schema_values(sorted(self.runtime.expression_values, key=_position))
        scalar: Value = UNDEFINED
        for value in extra:
            if value is None or value is UNDEFINED:
                continue
            if isinstance(value, dict):
                for key, item in value.items():
                    root[key] = item
            elif scalar is UNDEFINED:
                scalar = value
            elif conflicts(value, scalar):
                raise _conflict(value, scalar)
            else:
                scalar = union(scalar, value, [])
        for slot in code.output:
            if package.states[slot] == DONE:
                root[code.slot_names[slot]] = package.values[slot]
        if scalar is not UNDEFINED:
            if _has_output(root):
                raise _conflict(root, scalar)
            if isinstance(scalar, list) and all(isinstance(item, dict) for item in scalar):
                return list(scalar)  # a stream (none at all for an empty list)
            return [scalar]
        vacant = all(value is None or value is UNDEFINED for value in extra)
        if extra and vacant and not _has_output(root):
            return [None]
        return [root]


def _position(recorded: tuple[tuple[int, int], Value, bool]) -> tuple[int, int]:
    return recorded[0]


def _replace_schema_values(recorded: list[tuple[tuple[int, int], Value, bool]]) -> list[Value]:
    """The output values of the bare expressions: each schema expression's value takes
    the place of the previous schema expression's, or of the first value before it."""
    values: list[Value] = []
    schema_index = 0
    for _, value, schema in recorded:
        if schema:
            if schema_index < len(values):
                del values[schema_index]
            schema_index = len(values)
        values.append(value)
    return values


def _conflict(new: Value, old: Value) -> KclRuntimeError:
    return KclRuntimeError(f"conflicting values between {short_repr(new)} and {short_repr(old)}")


def _has_output(root: dict[str, Value]) -> bool:
    """Whether the document of variables would print anything (visible data)."""
    from kclpy.values import is_data

    return any(
        not key.startswith("_") and value is not UNDEFINED and is_data(value)
        for key, value in root.items()
    )
