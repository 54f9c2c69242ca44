"""Adapters: the one way the VM calls a builtin, made from its declared signature.

Takes a declaration of :mod:`kclpy.syntax.universe` (parameter names in order,
their types, which are optional, whether ``...`` accepts more) and the plain typed
Python function that implements it; returns an :data:`Adapter`, made once per
builtin, that the VM calls as ``adapter(host, package, args, kwargs)``. The adapter

* binds positional and keyword arguments to the declared parameters, in the
  declared order, and reports a wrong call as the VM always has
  (``"len" takes 1 positional argument but 2 were given``);
* checks each argument whose implementation parameter has a concrete type
  (``str``, ``int | None``, ``list[Value]``, ...: a type the declaration admits,
  checked when the adapter is made) and on a mismatch does what the
  implementation's :func:`~kclpy.vm.builtins.marks.on_mismatch` says: answer with
  a value, fail with the reference's words, or treat the argument as not given;
* leaves parameters typed ``Value`` (the KCL values that can be anything) to the
  implementation, and passes the context (:class:`BuiltinContext`, which carries
  the calling frame's package) first to those marked ``needs_context``.

A call with positional arguments only, within the arity, takes a fast path: no
binding, a type test per checked argument, then the function. Nothing is looked up
per call; the annotations and defaults are read here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kclpy.syntax.universe import read_signature, split_top_level
from kclpy.values import UNDEFINED, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import Action, Answer, Fail, Omit, mismatch_actions, takes_context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from kclpy.vm.builtins.context import Host
    from kclpy.vm.objects import PackageState

# (host services, the calling frame's package, positional, keyword) -> result
Adapter = Callable[["Host", "PackageState", list[Value], dict[str, Value]], Value]
# the same with the receiver first (string methods): bound per value with functools.partial
MethodAdapter = Callable[[Value, "Host", "PackageState", list[Value], dict[str, Value]], Value]

_NONE_TYPE: Final = type(None)
# a declared type's text -> the Python types of the values it admits (None: any value)
_DECLARED: Final[dict[str, frozenset[type] | None]] = {
    "int": frozenset({int}),
    "float": frozenset({float, int}),
    "number": frozenset({int, float}),
    "str": frozenset({str}),
    "bool": frozenset({bool}),
    "None": frozenset({_NONE_TYPE}),
}
# an implementation's annotation (one member of a union) -> the type it checks
_ANNOTATED: Final[dict[str, type]] = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "None": _NONE_TYPE,
    "list[Value]": list,
    "list[str]": list,
    "list[int]": list,
    "dict[str, Value]": dict,
}


class BindingError(AssertionError):
    """Declarations and implementations of builtins disagree: a bug in kclpy."""


class Parameter:
    """One declared parameter and how the adapter checks its argument."""

    __slots__ = (
        "action",
        "default",
        "exact",
        "expected",
        "keyword",
        "mapping",
        "name",
        "optional",
    )

    def __init__(self, name: str, expected: str, optional: bool) -> None:
        self.name = name
        self.expected = expected  # the declared type's text
        self.optional = optional
        self.default: Value = UNDEFINED  # the implementation's default (optional ones)
        self.exact: frozenset[type] | None = None  # None: not checked
        self.mapping = False  # dicts (and their subclasses) pass
        self.keyword = True  # a keyword argument may give it (not: ``dict(x=1)`` is {x: 1})
        self.action: Action = Omit()

    def admits(self, value: Value) -> bool:
        exact = self.exact
        return exact is None or type(value) in exact or (self.mapping and isinstance(value, dict))


def parse_signature(signature: str) -> tuple[list[Parameter], bool]:
    """The parameters of ``(a: int, b?: str, ...) -> R`` and whether ``...`` is there."""
    declared, variadic, _result = read_signature(signature)
    return [Parameter(p.name, p.type_text, p.optional) for p in declared], variadic


def _declared_types(expected: str) -> frozenset[type] | None:
    """The Python types a declared type admits (None: it admits anything)."""
    members = split_top_level(expected, "|")
    found: set[type] = set()
    for member in members:
        if member.startswith("["):
            found.add(list)
        elif member.startswith("{"):
            found.add(dict)
        else:
            kinds = _DECLARED.get(member)
            if kinds is None:
                return None
            found |= kinds
    return frozenset(found)


def _annotated_types(owner: str, annotation: object) -> frozenset[type] | None:
    """The types an implementation's annotation checks (None: a union with ``Value``
    or ``object``, which the implementation handles itself). Every other annotation
    the adapter cannot check (an alias such as ``Number``, or ``Any``) is a
    :class:`BindingError`: the parameter would go unchecked."""
    if annotation is _EMPTY:
        return None
    members = split_top_level(str(annotation), "|")
    if "Value" in members or "object" in members:
        return None
    found: set[type] = set()
    for member in members:
        kind = _ANNOTATED.get(member)
        if kind is None:
            raise BindingError(f"{owner}: the adapter cannot check the parameter type {annotation}")
        found.add(kind)
    return frozenset(found)


_EMPTY: Final = object()  # a parameter without a default


class _Implemented:
    """One positional parameter of an implementation, as its code object declares it."""

    __slots__ = ("annotation", "default", "has_default", "name", "positional_only")

    def __init__(
        self,
        name: str,
        positional_only: bool,
        default: tuple[Value] | None,  # None: no default
        annotation: object,
    ):
        self.name = name
        self.positional_only = positional_only
        self.has_default = default is not None
        self.default: Value = UNDEFINED if default is None else default[0]
        self.annotation = annotation


def _positional_parameters(owner: str, function: Callable[..., Value]) -> list[_Implemented]:
    """The positional parameters of ``function``, read from its code object (not with
    ``inspect``, which ``kcl run`` would otherwise import at start for this alone)."""
    code = getattr(function, "__code__", None)
    if code is None:
        raise BindingError(f"{owner}: the implementation is not a Python function")
    bound = 1 if getattr(function, "__self__", None) is not None else 0  # a bound method
    count = code.co_argcount
    names = code.co_varnames[bound:count]
    defaults: tuple[Value, ...] = getattr(function, "__defaults__", None) or ()
    annotations = getattr(function, "__annotations__", {})
    first_default = count - bound - len(defaults)
    return [
        _Implemented(
            name,
            index + bound < code.co_posonlyargcount,
            (defaults[index - first_default],) if index >= first_default else None,
            annotations.get(name, _EMPTY),
        )
        for index, name in enumerate(names)
    ]


def _prepare(
    owner: str, declared: list[Parameter], function: Callable[..., Value], skip: int
) -> None:
    """Read the implementation once: its defaults, its typed parameters, its mismatch
    actions; a :class:`BindingError` when it does not implement the declaration."""
    positional = _positional_parameters(owner, function)[skip:]
    names = [parameter.name.rstrip("_") for parameter in positional]  # list_ for list
    if names[: len(declared)] != [parameter.name for parameter in declared]:
        raise BindingError(
            f"{owner}: the implementation's parameters {names} are not the declared "
            f"{[parameter.name for parameter in declared]}"
        )
    default, actions = mismatch_actions(function)
    for parameter, implemented in zip(declared, positional, strict=False):
        parameter.keyword = not implemented.positional_only
        if implemented.has_default:
            parameter.default = implemented.default
        elif parameter.optional:
            raise BindingError(f"{owner}: optional parameter {parameter.name} has no default")
        checked = _annotated_types(owner, implemented.annotation)
        if checked is None:
            continue
        admitted = _declared_types(parameter.expected)
        wanted = checked - {_NONE_TYPE} if parameter.optional else checked
        if admitted is not None and not wanted <= admitted:
            raise BindingError(
                f"{owner}: parameter {parameter.name} is declared {parameter.expected} "
                f"but implemented as {implemented.annotation}"
            )
        parameter.mapping = dict in checked
        parameter.exact = checked - {dict}
        parameter.action = actions.get(parameter.name, default)


def adapter(owner: str, name: str, signature: str, function: Callable[..., Value]) -> Adapter:
    """The adapter of ``function`` implementing builtin ``name`` declared as ``signature``."""
    return _make(owner, name, signature, function, False).build()


def method_adapter(
    owner: str, name: str, signature: str, function: Callable[..., Value]
) -> MethodAdapter:
    """The adapter of a method: ``function`` takes the receiver first."""
    return _make(owner, name, signature, function, True).build_method()


def _make(
    owner: str, name: str, signature: str, function: Callable[..., Value], method: bool
) -> _Adapter:
    context = takes_context(function)
    declared, variadic = parse_signature(signature)
    _prepare(owner, declared, function, int(context) + int(method))
    return _Adapter(name, declared, variadic, function, context, method)


class _Adapter:
    """The parts one adapter closes over, and the slow path (keywords, defaults,
    mismatches, arity errors)."""

    def __init__(
        self,
        name: str,
        declared: list[Parameter],
        variadic: bool,
        function: Callable[..., Value],
        context: bool,
        method: bool,
    ) -> None:
        self.name = name
        self.declared = declared
        self.variadic = variadic
        self.function = function
        self.context = context
        self.method = method
        self.required = sum(1 for parameter in declared if not parameter.optional)
        self.positions = {
            parameter.name: index for index, parameter in enumerate(declared) if parameter.keyword
        }
        self.checked = tuple(
            (index, parameter)
            for index, parameter in enumerate(declared)
            if parameter.exact is not None  # (empty: a dict only, checked by mapping)
        )

    def build_method(self) -> MethodAdapter:
        """The adapter of a method (the receiver first)."""
        function = self.function
        low = self.required
        high = 1 << 30 if self.variadic else len(self.declared)
        checked = self.checked
        slow = self.slow
        if not checked:

            def plain_method(
                receiver: Value,
                host: Host,
                package: PackageState,
                args: list[Value],
                kwargs: dict[str, Value],
            ) -> Value:
                if kwargs or not low <= len(args) <= high:
                    return slow(host, package, args, kwargs, receiver)
                return function(receiver, *args)

            return plain_method

        def method(
            receiver: Value,
            host: Host,
            package: PackageState,
            args: list[Value],
            kwargs: dict[str, Value],
        ) -> Value:
            if kwargs or not low <= len(args) <= high:
                return slow(host, package, args, kwargs, receiver)
            for index, parameter in checked:
                if index < len(args) and not parameter.admits(args[index]):
                    return slow(host, package, args, kwargs, receiver)
            return function(receiver, *args)

        return method

    def build(self) -> Adapter:
        """The adapter of a function."""
        function = self.function
        low = self.required
        high = 1 << 30 if self.variadic else len(self.declared)
        checked = self.checked
        slow = self.slow
        if self.context:

            def with_context(
                host: Host, package: PackageState, args: list[Value], kwargs: dict[str, Value]
            ) -> Value:
                if kwargs or not low <= len(args) <= high:
                    return slow(host, package, args, kwargs, None)
                for index, parameter in checked:
                    if index < len(args) and not parameter.admits(args[index]):
                        return slow(host, package, args, kwargs, None)
                return function(host.context(package), *args)

            return with_context
        if not checked:

            def plain(
                host: Host, package: PackageState, args: list[Value], kwargs: dict[str, Value]
            ) -> Value:
                if kwargs or not low <= len(args) <= high:
                    return slow(host, package, args, kwargs, None)
                return function(*args)

            return plain

        def typed(
            host: Host, package: PackageState, args: list[Value], kwargs: dict[str, Value]
        ) -> Value:
            if kwargs or not low <= len(args) <= high:
                return slow(host, package, args, kwargs, None)
            for index, parameter in checked:
                if index < len(args) and not parameter.admits(args[index]):
                    return slow(host, package, args, kwargs, None)
            return function(*args)

        return typed

    def slow(
        self,
        host: Host,
        package: PackageState,
        args: list[Value],
        kwargs: dict[str, Value],
        receiver: Value,
    ) -> Value:
        """Bind, check and call: keywords, gaps filled with defaults, mismatches."""
        values, extra, extra_keywords = self.bind(args, kwargs)
        for index, parameter in self.checked:
            if index < len(values) and not parameter.admits(values[index]):
                action = parameter.action
                if isinstance(action, Answer):
                    return action.value
                if isinstance(action, Fail):
                    raise KclRuntimeError(self.message(action, parameter, values[index]))
                values[index] = parameter.default
        lead: list[object] = []
        if self.method:
            lead.append(receiver)
        if self.context:
            lead.append(host.context(package))
        return self.function(*lead, *values, *extra, **extra_keywords)

    def bind(
        self, args: Sequence[Value], kwargs: dict[str, Value]
    ) -> tuple[list[Value], list[Value], dict[str, Value]]:
        """(declared arguments, extra positional, extra keyword) of a call."""
        declared = self.declared
        count = len(declared)
        if len(args) > count and not self.variadic:
            raise KclRuntimeError(self.too_many(len(args)))
        values: list[Value] = list(args[:count])
        given = [True] * len(values) + [False] * (count - len(values))
        values += [UNDEFINED] * (count - len(values))
        extra_keywords: dict[str, Value] = {}
        for key, value in kwargs.items():
            index = self.positions.get(key)
            if index is None:
                if not self.variadic:
                    raise KclRuntimeError(
                        f"\"{self.name}\" got an unexpected keyword argument '{key}'"
                    )
                extra_keywords[key] = value
            elif given[index]:
                raise KclRuntimeError(f"\"{self.name}\" got multiple values for argument '{key}'")
            else:
                values[index] = value
                given[index] = True
        missing = [
            parameter.name
            for parameter, present in zip(declared, given, strict=True)
            if not present and not parameter.optional
        ]
        if missing:
            raise KclRuntimeError(self.missing(missing))
        last = max((index for index, present in enumerate(given) if present), default=-1)
        for index in range(last + 1):
            if not given[index]:
                values[index] = declared[index].default
        return values[: last + 1], list(args[count:]), extra_keywords

    def too_many(self, count: int) -> str:
        low, high = self.required, len(self.declared)
        took = f"{high}" if low == high else f"from {low} to {high}"
        plural = "s" if high != 1 or low != high else ""
        was = "was" if count == 1 else "were"
        return f'"{self.name}" takes {took} positional argument{plural} but {count} {was} given'

    def missing(self, names: list[str]) -> str:
        quoted = [f"'{name}'" for name in names]
        listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
        plural = "s" if len(names) != 1 else ""
        return f'"{self.name}" missing {len(names)} required positional argument{plural}: {listed}'

    def message(self, action: Fail, parameter: Parameter, value: Value) -> str:
        from kclpy.vm.builtins.convert import type_name

        return action.message.format(
            function=self.name.rpartition(".")[2],
            parameter=parameter.name,
            expected=parameter.expected,
            python=type(value).__name__,
            kcl=type_name(value),
        )
