"""KCL's builtin functions (everything callable without an import, except ``option``).

Each function takes runtime values (see :mod:`kclpy.values`) as the VM passes them
(positional and keyword arguments, named as in the reference where it accepts
keywords) and returns a runtime value, or raises
:class:`~kclpy.values.errors.KclRuntimeError` with the reference's message. ``print`` and
``reduce`` take the :class:`~kclpy.vm.builtins.context.BuiltinContext` first.

Like the reference, most numeric builtins return Undefined for an argument of the
wrong type instead of failing (``abs("a")``, ``pow(None, 2)``, ``range(1.5)``); the
type checker normally rejects such calls before they run. Where the reference
crashes, hangs or computes a wrong number, these functions do the right thing
instead; ``docs/differences-builtins.md`` lists every such case.

:data:`BUILTINS` maps each KCL name to its function.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from kclpy.patterns import compiled
from kclpy.values import UNDEFINED, NumberMultiplier, SchemaInstance, UndefinedType, Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.compare import equal, greater, less, sort_compare
from kclpy.vm.builtins.context import BuiltinContext
from kclpy.vm.builtins.convert import is_function, to_str, truthy, type_name, typeof
from kclpy.vm.builtins.marks import needs_context
from kclpy.vm.objects import Function, SchemaType
from kclpy.vm.typecheck import admits_none

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, TypeGuard

INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1
MAX_RANGE: Final = 100_000_000  # the reference runs out of memory on larger ranges


class _NoArgument:
    """The default of parameters whose absence the reference treats specially."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no argument>"


NO_ARGUMENT: Final = _NoArgument()


def check_int(value: int) -> int:
    """``value`` if it fits in 64 bits, else the reference's overflow error."""
    if INT_MIN <= value <= INT_MAX:
        return value
    raise KclRuntimeError(f"{value}: A 64 bit integer overflow")


def _is_number(value: Value) -> TypeGuard[int | float]:
    """An int or a float (not a bool)."""
    kind = type(value)
    return kind is int or kind is float


def _not_iterable(value: Value) -> KclRuntimeError:
    return KclRuntimeError(f"'{type_name(value)}' object is not iterable")


def iterate(value: Value) -> list[Value]:
    """The items a loop over ``value`` sees: list items, characters, dict keys."""
    if type(value) is list:
        return value
    if type(value) is str:
        return list(value)
    if isinstance(value, dict):
        return list(value)
    raise _not_iterable(value)


# ---------------------------------------------------------------- output and text


@needs_context
def kcl_print(ctx: BuiltinContext, *args: Value, end: Value = "\n", **_ignored: Value) -> None:
    """``print(*args, sep=" ", end="\\n")``: ``str()`` forms joined by spaces (``sep``
    is accepted and ignored, as in the reference)."""
    text = " ".join([to_str(arg) for arg in args])
    ctx.write_output(text + to_str(end))


def kcl_len(inval: Value) -> int:
    """``len``: UTF-8 bytes of a string, items of a list, keys of a dict or schema."""
    if type(inval) is str:
        return len(inval) if inval.isascii() else len(inval.encode())
    if type(inval) is list or isinstance(inval, dict):
        return len(inval)
    raise KclRuntimeError(f"object of type '{type_name(inval)}' has no len()")


def kcl_str(x: Value = "") -> str:
    """``str(x)``; ``str()`` is the empty string."""
    return to_str(x)


def kcl_bool(x: Value | _NoArgument = NO_ARGUMENT) -> bool:
    """``bool(x)``: truthiness."""
    if isinstance(x, _NoArgument):
        raise KclRuntimeError("bool() takes exactly one argument (0 given)")
    return truthy(x)


# ------------------------------------------------------------------------- int()

_UNIT_EXPONENTS: Final = {"n": -3, "u": -2, "m": -1, "k": 1, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
_DECIMAL: Final = compiled(r"[+-]?[0-9]+")
_DIGITS: Final = "0123456789abcdefghijklmnopqrstuvwxyz"
_BASE_DIGITS: Final = {base: frozenset(_DIGITS[:base]) for base in range(2, 37)}
_PREFIXES: Final = frozenset({"0x", "0o", "0b"})


def kcl_int(number: Value, base: Value = 10) -> int:
    """``int(number, base=10)``: truncates floats, parses strings (unit suffixes such as
    ``"1Ki"`` in base 10)."""
    if type(number) is int:
        return number
    if type(number) is str:
        if type(base) is not int or not 2 <= base <= 36:
            raise KclRuntimeError(f"int() base must be in the range [2, 36], not {to_str(base)}")
        if base == 10:
            return _parse_decimal(number)
        return _parse_in_base(number, base)
    if type(number) is float:
        return float_to_int(number)
    if type(number) is bool:
        return int(number)
    if type(number) is NumberMultiplier:
        return float_to_int(number.value)
    raise KclRuntimeError(f"int() argument must be a string or a number, not '{type_name(number)}'")


def float_to_int(value: float) -> int:
    """Truncate toward zero; infinities, NaN and values beyond 64 bits are errors."""
    if math.isinf(value):
        raise KclRuntimeError("cannot convert float infinity to integer")
    if value != value:
        raise KclRuntimeError("cannot convert float NaN to integer")
    return check_int(int(value))


def _parse_decimal(text: str) -> int:
    digits = text
    base = 1000
    exponent = 0
    if len(text) >= 2 and text[-1] == "i" and text[-2] in _UNIT_EXPONENTS:
        digits, base, exponent = text[:-2], 1024, _UNIT_EXPONENTS[text[-2]]
    elif text and text[-1] in _UNIT_EXPONENTS:
        digits, exponent = text[:-1], _UNIT_EXPONENTS[text[-1]]
    if not digits:
        raise KclRuntimeError("number can't be empty")
    if _DECIMAL.fullmatch(digits) is None:
        raise KclRuntimeError(f"invalid literal for int() with base 10: '{text}'")
    value = int(digits)
    if exponent > 0:
        value *= base**exponent
    elif exponent < 0:
        scale = base**-exponent
        value = abs(value) // scale * (-1 if value < 0 else 1)
    return check_int(value)


def _parse_in_base(text: str, base: int) -> int:
    """Digits of ``base`` after an optional ``-`` and an optional ``0x``/``0o``/``0b``
    (any of them, whatever the base), or after a ``+`` without a prefix."""
    sign, body = ("-", text[1:]) if text[:1] == "-" else ("", text)
    if body[:2].lower() in _PREFIXES:
        body = body[2:]
    elif body[:1] == "+" and not sign:
        body = body[1:]
    if body and body.isascii() and frozenset(body.lower()) <= _BASE_DIGITS[base]:
        value = int(sign + body, base)
        if INT_MIN <= value <= INT_MAX:
            return value
    raise KclRuntimeError(f"invalid literal for int() with base {base}: '{text}'")


# ----------------------------------------------------------------------- float()

_FLOAT: Final = compiled(
    r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF]"
    r"|[iI][nN][fF][iI][nN][iI][tT][yY]|[nN][aA][nN])"
)


def kcl_float(number: Value) -> float:
    """``float(number)``: from numbers, bools, units and decimal strings."""
    if type(number) is float:
        return number
    if type(number) is int or type(number) is bool:
        return float(number)
    if type(number) is NumberMultiplier:
        return number.value
    if type(number) is str and _FLOAT.fullmatch(number) is not None:
        value = float(number)
        if math.isinf(value):
            raise KclRuntimeError("inf: A 64-bit floating point number overflow")
        return value
    raise KclRuntimeError(f"invalid literal for float() with base 10: '{to_str(number)}'")


# --------------------------------------------------------------- list and dict


def kcl_list(x: Value | _NoArgument = NO_ARGUMENT, /) -> list[Value]:
    """``list(x)``: characters of a string, keys of a dict, a copy of a list."""
    if isinstance(x, _NoArgument):
        return []
    return list(iterate(x))


def kcl_dict(x: Value | _NoArgument = NO_ARGUMENT, /, **kwargs: Value) -> dict[str, Value]:
    """``dict(x, **kwargs)``: a copy of a dict or schema, or a dict built from
    ``[key, value]`` pairs; keyword arguments are added last and win."""
    result: dict[str, Value] = {}
    if not isinstance(x, _NoArgument):
        if isinstance(x, dict):
            result.update(x)
        else:
            _add_pairs(result, iterate(x))
    if kwargs:
        result.update(kwargs)
    return result


def _add_pairs(result: dict[str, Value], elements: list[Value]) -> None:
    for index, element in enumerate(elements):
        pair = iterate(element)
        if len(pair) != 2:
            raise KclRuntimeError(
                f"dictionary update sequence element #{index} has length {len(pair)}; 2 is required"
            )
        key = pair[0]
        result[key if isinstance(key, str) else to_str(key)] = pair[1]


# ------------------------------------------------------------------- arithmetic


def kcl_abs(inval: Value) -> Value:
    """``abs(x)`` of an int or float; Undefined for anything else."""
    if type(inval) is int:
        return check_int(abs(inval))
    if type(inval) is float:
        return abs(inval)
    return UNDEFINED


def kcl_round(number: Value, ndigits: Value = None) -> Value:
    """``round(number, ndigits=None)``.

    Without ``ndigits`` (or with a non-int one): half away from zero, an int. With
    ``ndigits == 0``: half away from zero, a float. Otherwise ``number * 10**ndigits``
    is rounded half to even and scaled back (``round(2.675, 2) == 2.68``), a float.
    """
    if not _is_number(number):
        return UNDEFINED
    if type(ndigits) is not int:
        return number if type(number) is int else float_to_int(_half_away(number))
    if ndigits == 0:
        return _half_away(float(number))
    if type(number) is int and ndigits > 0:
        return float(number)
    return _round_scaled(float(number), ndigits)


def _half_away(value: float) -> float:
    if not math.isfinite(value) or abs(value) >= 4503599627370496.0:
        return value
    whole = float(math.trunc(value))
    if abs(value - whole) >= 0.5:
        whole += math.copysign(1.0, value)
    return math.copysign(whole, value)


def _round_scaled(value: float, ndigits: int) -> float | UndefinedType:
    """Round ``value`` scaled by ``10**ndigits`` half to even, then scale back; a scale
    beyond 1e22 is applied in two steps (the reference's float arithmetic, step by step).
    A result that overflows is Undefined, as in the reference."""
    if not math.isfinite(value):
        return value
    if ndigits < 0:
        if ndigits < -308:
            return math.copysign(0.0, value)
        scale = math.pow(10.0, -ndigits)
        rounded = _half_even(value / scale) * scale
    else:
        if ndigits > 330:  # value * 10**(ndigits - 22) overflows
            return value
        scale, rest = (
            (math.pow(10.0, ndigits - 22), 1e22) if ndigits > 22 else (math.pow(10.0, ndigits), 1.0)
        )
        scaled = value * scale * rest
        if not math.isfinite(scaled):
            return value
        rounded = _half_even(scaled) / rest / scale
    return rounded if math.isfinite(rounded) else UNDEFINED


def _half_even(value: float) -> float:
    return math.copysign(float(round(value)), value)


def kcl_pow(x: Value, y: Value, z: Value = None) -> Value:
    """``pow(x, y, z=None)``; ``z`` makes it a modular power of ints (floored, like ``%``)."""
    if not _is_number(x) or not _is_number(y):
        return UNDEFINED
    if _is_number(z):
        return _modular_power(x, y, z)
    if type(x) is int and type(y) is int and y >= 0:
        return int_power(x, y)
    return float_power(float(x), float(y))


def _modular_power(x: int | float, y: int | float, z: int | float) -> int:
    if type(x) is not int or type(y) is not int or type(z) is not int:
        raise KclRuntimeError("pow() 3rd argument not allowed unless all arguments are integers")
    if z == 0:
        raise KclRuntimeError("pow() 3rd argument cannot be 0")
    if y < 0:
        raise KclRuntimeError("pow() 2nd argument cannot be negative when 3rd argument specified")
    return pow(x, y, z)


def int_power(base: int, exponent: int) -> int:
    """``base ** exponent`` for ``exponent >= 0`` with the 64-bit overflow check."""
    if abs(base) > 1 and exponent > 64:
        raise KclRuntimeError(f"{base}**{exponent}: A 64 bit integer overflow")
    return check_int(base**exponent)


def float_power(base: float, exponent: float) -> float:
    """IEEE ``pow``: infinities on overflow and for ``0 ** -n``, NaN for complex results."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        negative = base < 0 and exponent.is_integer() and exponent % 2 == 1
        return -math.inf if negative else math.inf
    except ValueError:
        if base == 0:
            odd = exponent.is_integer() and exponent % 2 == 1
            return math.copysign(math.inf, base) if odd else math.inf
        return math.nan


def kcl_sum(iterable: Value, start: Value = 0) -> Value:
    """``sum(iterable, start=0)`` with KCL's ``+``; Undefined unless ``iterable`` is a list."""
    if type(iterable) is not list:
        return UNDEFINED
    if type(start) is str:
        raise KclRuntimeError("sum() can't sum strings")
    total = start
    for item in iterable:
        total = _add(total, item)
    return total


def _add(left: Value, right: Value) -> Value:
    if type(left) is int and type(right) is int:
        return check_int(left + right)
    if _is_number(left) and _is_number(right):
        return left + right
    if type(left) is list:
        if type(right) is list:
            return left + right
        raise KclRuntimeError(f'can only concatenate list (not "{type_name(right)}") to list')
    if type(left) is str and type(right) is str:
        return left + right
    raise KclRuntimeError(
        f"unsupported operand type(s) for +: '{type_name(left)}' and '{type_name(right)}'"
    )


def multiplyof(a: Value, b: Value) -> Value:
    """``multiplyof(a, b)``: whether ``a`` is a multiple of ``b`` (ints only)."""
    if type(a) is not int or type(b) is not int:
        return UNDEFINED
    if b == 0:
        raise KclRuntimeError("integer division or modulo by zero")
    return a % b == 0


def _to_base(convert: Callable[[int], str]) -> Callable[[Value], Value]:
    def function(number: Value) -> Value:
        if type(number) is int:
            return convert(number)
        return UNDEFINED

    function.__name__ = function.__qualname__ = f"kcl_{convert.__name__}"
    function.__doc__ = f"``{convert.__name__}(number)``: ``{convert(255)}`` for 255."
    return function


kcl_hex = _to_base(hex)
kcl_oct = _to_base(oct)
kcl_bin = _to_base(bin)


def kcl_ord(c: Value) -> Value:
    """``ord(c)`` of a one-character string."""
    if type(c) is not str:
        return UNDEFINED
    if len(c) != 1:
        raise KclRuntimeError(
            f"ord() expected string of length 1, but string of length {len(c.encode())} found"
        )
    return ord(c)


# ------------------------------------------------------------------- sequences


def kcl_range(start: Value = UNDEFINED, stop: Value = UNDEFINED, step: Value = UNDEFINED) -> Value:
    """``range(stop)`` / ``range(start, stop[, step])`` of ints; Undefined for other types."""
    if type(start) is not int:
        return UNDEFINED
    low, high, stride = start, 0, 1
    if stop is UNDEFINED:
        low, high = 0, start
    elif type(stop) is int:
        high = stop
    else:
        return UNDEFINED
    if type(step) is int:
        stride = step
    elif step is not UNDEFINED:
        return UNDEFINED
    if stride == 0:
        raise KclRuntimeError("range() step argument must not be zero")
    numbers = range(low, high, stride)
    if abs(high - low) > MAX_RANGE * abs(stride) or len(numbers) > MAX_RANGE:
        raise KclRuntimeError("range() result has too many items")
    from kclpy.vm.limits import check_allocation

    check_allocation(len(numbers), 36)  # a list slot and an int object per item
    return list(numbers)


def _extreme_items(name: str, args: tuple[Value, ...]) -> list[Value]:
    if not args:
        raise KclRuntimeError(f"{name}() takes exactly one argument (0 given)")
    if len(args) > 1:
        return list(args)
    value = args[0]
    if type(value) is list or type(value) is str or isinstance(value, dict):
        if not value:
            kind = type(value)
            label = "list" if kind is list else "str" if kind is str else "dict"
            raise KclRuntimeError(f"arg is an empty {label}")
        return list(value)
    raise KclRuntimeError(f"{type_name(value)} object is not iterable")


def _simple(items: list[Value]) -> TypeGuard[list[float] | list[str]]:
    """True when Python's own max/min give KCL's answer (numbers only, or strings only)."""
    kinds = set(map(type, items))
    return kinds <= {int, float} or kinds == {str}


def kcl_max(*args: Value, **_ignored: Value) -> Value:
    """``max(iterable)`` or ``max(a, b, ...)``: the first greatest item."""
    items = _extreme_items("max", args)
    if _simple(items):  # numbers only or strings only: Python orders them as KCL does
        return max(items)
    best = items[0]
    for item in items:
        if greater(item, best):
            best = item
    return best


def kcl_min(*args: Value, **_ignored: Value) -> Value:
    """``min(iterable)`` or ``min(a, b, ...)``: the first least item."""
    items = _extreme_items("min", args)
    if _simple(items):
        return min(items)
    best = items[0]
    for item in items:
        if less(item, best):
            best = item
    return best


def kcl_sorted(inval: Value, reverse: Value = False) -> list[Value]:
    """``sorted(iterable, reverse=False)`` of a list, a string's characters or dict keys;
    a stable sort of numbers or of strings only."""
    if (
        type(inval) is list
        or type(inval) is str
        or (isinstance(inval, dict) and not isinstance(inval, SchemaInstance))
    ):
        items: list[Value] = list(inval)
    else:
        raise KclRuntimeError("sorted only for str|list|dict type")
    backwards = truthy(reverse)
    if len(items) > 1:
        if _simple(items):
            items.sort(reverse=backwards)
        else:
            _insertion_sort(items, backwards)
    return items


def _insertion_sort(items: list[Value], backwards: bool) -> None:
    """A stable sort that compares in the reference's order (so a failing comparison
    names the same pair of types): each new item against its left neighbours."""
    for position in range(1, len(items)):
        current = items[position]
        index = position
        while index > 0:
            previous = items[index - 1]
            order = (
                sort_compare(previous, current) if backwards else sort_compare(current, previous)
            )
            if order >= 0:
                break
            items[index] = previous
            index -= 1
        items[index] = current


def kcl_zip(*args: Value) -> list[Value]:
    """``zip(*iterables)``: lists of the i-th items, as long as the shortest input."""
    return [list(items) for items in zip(*[iterate(arg) for arg in args], strict=False)]


def isunique(inval: Value) -> bool:
    """``isunique(list)``: no two items are ``==`` (False for anything but a list)."""
    if type(inval) is not list:
        return False
    count = len(inval)
    if count < 2:
        return True
    kinds = set(map(type, inval))
    if (
        kinds == {str}
        or kinds == {int}
        or (kinds <= {int, float} and all(item == item for item in inval))
    ):
        return len(set(inval)) == count
    for index in range(1, count):
        item = inval[index]
        for other in inval[:index]:
            if equal(other, item):
                return False
    return True


def isnullish(inval: Value) -> bool:
    """``isnullish(x)``: x is None or Undefined."""
    return inval is None or inval is UNDEFINED


def all_true(inval: Value) -> bool:
    """``all_true(x)``: every list item (or dict value) is truthy; False for other types."""
    if type(inval) is list:
        return all(map(truthy, inval))
    if isinstance(inval, dict):
        return all(map(truthy, inval.values()))
    return False


def any_true(inval: Value) -> bool:
    """``any_true(x)``: some list item (or dict value) is truthy; False for other types."""
    if type(inval) is list:
        return any(map(truthy, inval))
    if isinstance(inval, dict):
        return any(map(truthy, inval.values()))
    return False


@needs_context
def reduce(ctx: BuiltinContext, reducer: Value, list_: Value, initial: Value = UNDEFINED) -> Value:
    """``reduce(reducer, list, initial?)``: a left fold; without ``initial`` the first
    item seeds it, and an empty list gives None."""
    if not is_function(reducer):
        raise KclRuntimeError("reduce() argument 'reducer' must be a function")
    if type(list_) is not list:
        raise KclRuntimeError("invalid list value")
    items: list[Value] = list_
    if initial is UNDEFINED:
        if not items:
            text = _non_nullable_accumulator(reducer)
            if text:
                raise KclRuntimeError(
                    "reduce() empty list with no initial value and non-nullable "
                    f"accumulator type '{text}'"
                )
            return None
        accumulator, rest = items[0], items[1:]
    else:
        accumulator, rest = initial, items
    for item in rest:
        accumulator = ctx.call(reducer, [accumulator, item], {})
    return accumulator


def _non_nullable_accumulator(function: Value) -> str:
    """The declared type of a KCL function's first parameter when it does not admit
    None ("": untyped, nullable, or a builtin)."""
    if not isinstance(function, Function | SchemaType):
        return ""
    params = function.proto.params
    accumulator = params[0].type if params else None
    if accumulator is None or admits_none(accumulator):
        return ""
    return accumulator.text or accumulator.kind


BUILTINS: Final[dict[str, Callable[..., Value]]] = {
    "print": kcl_print,
    "len": kcl_len,
    "typeof": typeof,
    "int": kcl_int,
    "float": kcl_float,
    "bool": kcl_bool,
    "str": kcl_str,
    "list": kcl_list,
    "dict": kcl_dict,
    "abs": kcl_abs,
    "round": kcl_round,
    "max": kcl_max,
    "min": kcl_min,
    "sum": kcl_sum,
    "pow": kcl_pow,
    "range": kcl_range,
    "sorted": kcl_sorted,
    "zip": kcl_zip,
    "isunique": isunique,
    "isnullish": isnullish,
    "multiplyof": multiplyof,
    "all_true": all_true,
    "any_true": any_true,
    "hex": kcl_hex,
    "oct": kcl_oct,
    "bin": kcl_bin,
    "ord": kcl_ord,
    "reduce": reduce,
}
