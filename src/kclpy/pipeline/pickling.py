"""The cache entries' pickle dialect: only plain data and the classes of
``kclpy.compile.code`` go in, and only they come out.

Kept apart from ``kclpy.pipeline.cache`` so that a run that reads and writes no
entry (the cache off, or a first run until it stores) does not import ``pickle``
(about 1 ms of start-up).
"""

from __future__ import annotations

import io
import pickle
from typing import IO, Any

from kclpy.compile import code as code_module

PROTOCOL = 5

_CODE_MODULE = "kclpy.compile.code"
_SAFE_BUILTINS = frozenset({"set", "frozenset", "complex", "slice", "bytearray"})


class Unpickler(pickle.Unpickler):
    """Loads only plain data and the classes of ``kclpy.compile.code``.

    An entry holding anything else (an AST node, a source file, a foreign
    object) is treated as corrupt.
    """

    def find_class(self, module: str, name: str) -> Any:
        if module == _CODE_MODULE and isinstance(getattr(code_module, name, None), type):
            return getattr(code_module, name)
        if module == "builtins" and name in _SAFE_BUILTINS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


class Pickler(pickle.Pickler):
    """Refuses (raises ``PicklingError`` for) what :class:`Unpickler` would not load."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=PROTOCOL)

    def reducer_override(self, obj: Any) -> Any:
        kind = obj if isinstance(obj, type) else type(obj)  # a class is pickled by name
        if kind.__module__ == _CODE_MODULE or (
            kind.__module__ == "builtins" and kind.__name__ in _SAFE_BUILTINS
        ):
            return NotImplemented
        if kind in (type(None), bool, int, float, str, bytes, tuple, list, dict):
            return NotImplemented
        raise pickle.PicklingError(f"{kind.__qualname__} cannot be cached")


def load(handle: IO[bytes]) -> Any:
    """The next pickle of ``handle``, in the dialect."""
    return Unpickler(handle).load()


def dumps(value: Any) -> bytes:
    """``value`` pickled in the dialect."""
    buffer = io.BytesIO()
    Pickler(buffer).dump(value)
    return buffer.getvalue()


def dump(value: Any, handle: IO[bytes]) -> None:
    """Write ``value`` to ``handle`` in the dialect."""
    Pickler(handle).dump(value)
