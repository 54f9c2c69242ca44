"""The ``manifests`` system module: ``yaml_stream(values, opts={})``.

``yaml_stream`` replaces the program's whole output by a YAML stream of ``values``
(one document per item; the last call wins, and normal variables are then not
printed). Options: ``sort_keys`` (False), ``ignore_private``, ``ignore_none`` (False)
and ``sep`` (``"---"``; documents are joined by ``"\\n" + sep + "\\n"``). Unknown option
keys are ignored. ``ignore_private`` defaults to True, as documented, when an ``opts``
dict is passed (even ``{}``), but to False when ``opts`` is left out: the reference
prints private keys only then. The writing itself belongs to the emitter, which receives the
values and the normalised options through the BuiltinContext.
"""

from __future__ import annotations

from kclpy.values import Value
from kclpy.values.errors import KclRuntimeError
from kclpy.vm.builtins.marks import needs_context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from kclpy.vm.builtins.context import BuiltinContext

DEFAULT_OPTIONS: Final[dict[str, Value]] = {
    "sort_keys": False,
    "ignore_private": False,
    "ignore_none": False,
    "sep": "---",
}


def stream_options(opts: dict[str, Value] | None) -> dict[str, Value]:
    """``opts`` completed with the defaults (unknown keys dropped; None: no ``opts``)."""
    from kclpy.vm.builtins.convert import truthy

    options = dict(DEFAULT_OPTIONS)
    if opts is not None:
        options["ignore_private"] = True
        for key in ("sort_keys", "ignore_private", "ignore_none"):
            if key in opts and opts[key] is not None:
                options[key] = truthy(opts[key])
        sep = opts.get("sep")
        if isinstance(sep, str):
            options["sep"] = sep
    return options


class _NoOptions:
    """The default of ``opts``: left out (which differs from ``{}`` and from None)."""

    __slots__ = ()


_NO_OPTIONS: Final = _NoOptions()


@needs_context
def yaml_stream(ctx: BuiltinContext, values: Value, opts: Value | _NoOptions = _NO_OPTIONS) -> None:
    """Make ``values`` the program output, as a YAML stream."""
    if not isinstance(values, list):
        raise KclRuntimeError("invalid list value")
    if isinstance(opts, _NoOptions):
        given = None
    elif isinstance(opts, dict):
        given = opts
    else:
        from kclpy.vm.builtins.convert import type_name

        raise KclRuntimeError(
            f"Invalid options arguments in yaml_stream(): expect config, got {type_name(opts)}"
        )
    ctx.set_output_stream(list(values), stream_options(given))


MEMBERS: Final[dict[str, object]] = {"yaml_stream": yaml_stream}
