"""The cache entries' pickle dialect: what the writer emits is what the reader admits.

:data:`PICKLED_AS` is the one table: each kind of object a compiled package holds
(the classes of ``kclpy.compile.code``) with the classes its pickle names (an
instance is pickled by its class: a schema whose body no run compiled is a
``SchemaHeader``).
Plain data (None, bool, int, float, str, bytes, bytearray, tuple, list, dict, set,
frozenset) has pickle opcodes of its own and names no class. The :class:`Pickler` refuses any other
object; the :class:`Unpickler` resolves exactly the names in :data:`ADMITTED`
(:func:`load_plain`: none at all, for an entry's manifest and its table of
packages), from that table, never by importing: a pickle naming anything else
(``os.system``, ``builtins.eval``, another class of kclpy) is refused before
anything runs.

Kept apart from ``kclpy.pipeline.cache`` so that a run that reads and writes no
entry (the cache off, or a first run until it stores) does not import ``pickle``
(about 1 ms of start-up).
"""

from __future__ import annotations

import io
import pickle
from typing import IO, Any

from kclpy.compile import code

PROTOCOL = 5

PICKLED_AS: dict[type, tuple[type, ...]] = {
    code.PackageCode: (code.PackageCode,),
    code.Code: (code.Code,),
    code.TypeRef: (code.TypeRef,),
    code.NameRef: (code.NameRef,),
    code.ParamSpec: (code.ParamSpec,),
    code.FunctionProto: (code.FunctionProto,),
    code.AttrSpec: (code.AttrSpec,),
    code.IndexSignatureSpec: (code.IndexSignatureSpec,),
    code.ConfigConstant: (code.ConfigConstant,),
    code.SchemaHeader: (code.SchemaHeader,),
    code.SchemaProto: (code.SchemaProto,),
}
"""Each kind of object an entry may hold, with the classes its pickle names."""

_PLAIN = frozenset(
    {type(None), bool, int, float, str, bytes, bytearray, tuple, list, dict, set, frozenset}
)

_BY_NAME: dict[tuple[str, str], type] = {
    (kind.__module__, kind.__qualname__): kind for kinds in PICKLED_AS.values() for kind in kinds
}

_NAMED = frozenset(_BY_NAME.values())

ADMITTED = frozenset(_BY_NAME)
"""The (module, name) globals an entry's pickles may name: those the writer emits."""


class Unpickler(pickle.Unpickler):
    """Loads plain data and the ``admitted`` classes only (default :data:`ADMITTED`);
    a pickle naming anything else raises ``UnpicklingError`` (a corrupt entry)."""

    def __init__(self, file: IO[bytes], admitted: frozenset[tuple[str, str]] = ADMITTED) -> None:
        super().__init__(file)
        self.admitted = admitted

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.admitted:
            return _BY_NAME[(module, name)]
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


class Pickler(pickle.Pickler):
    """Refuses (raises ``PicklingError`` for) what :class:`Unpickler` would not load."""

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=PROTOCOL)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, type):  # a class, named by an instance's pickle: a global
            if obj in _NAMED:
                return NotImplemented
            raise pickle.PicklingError(f"the class {obj.__qualname__} cannot be cached")
        kind = type(obj)
        if kind in PICKLED_AS or kind in _PLAIN:
            return NotImplemented
        raise pickle.PicklingError(f"{kind.__qualname__} cannot be cached")


def load(handle: IO[bytes]) -> Any:
    """The next pickle of ``handle``, in the dialect."""
    return Unpickler(handle).load()


def load_plain(handle: IO[bytes]) -> Any:
    """The next pickle of ``handle``, plain data only (it may name no class)."""
    return Unpickler(handle, frozenset()).load()


def dumps(value: Any) -> bytes:
    """``value`` pickled in the dialect."""
    buffer = io.BytesIO()
    Pickler(buffer).dump(value)
    return buffer.getvalue()


def dump(value: Any, handle: IO[bytes]) -> None:
    """Write ``value`` to ``handle`` in the dialect."""
    Pickler(handle).dump(value)
