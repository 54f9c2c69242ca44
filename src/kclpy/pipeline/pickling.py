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

A checked package's entry (``kclpy.pipeline.interfaces``) holds its interface too: the
classes ``kclpy.pipeline.linking`` admits (:func:`admit`: symbols, declarations,
schemas, types), in pickles of their own (:func:`dumps_linked`, :func:`load_linked`)
that may also hold references to what the entry does not hold (the program's syntax
trees and files, other packages' symbols), as pickle's persistent ids: the reader
resolves each through the program being checked, or refuses the entry. These classes
are pickled as their set slots, the types' memos (a structural key, a widened type)
left out.

Kept apart from ``kclpy.pipeline.cache`` so that a run that reads and writes no
entry (the cache off, or a first run until it stores) does not import ``pickle``
(about 1 ms of start-up).
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Callable, Hashable, Iterable
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

# pickle writes a reduction by this function as its NEWOBJ opcode (no global named)
_NEW_OBJECT = copyreg.__newobj__  # type: ignore[attr-defined]
_CACHES = {"skey": None, "wide": None, "fits": None}  # a type's memos, recomputed on use

_PLAIN = frozenset(
    {type(None), bool, int, float, str, bytes, bytearray, tuple, list, dict, set, frozenset}
)

_BY_NAME: dict[tuple[str, str], type] = {
    (kind.__module__, kind.__qualname__): kind for kinds in PICKLED_AS.values() for kind in kinds
}

_NAMED = frozenset(_BY_NAME.values())

ADMITTED = frozenset(_BY_NAME)
"""The (module, name) globals an entry's pickles may name: those the writer emits."""


def admit(kinds: Iterable[type]) -> frozenset[tuple[str, str]]:
    """The names of ``kinds`` (an interface's classes, ``kclpy.pipeline.linking``),
    which an :class:`Unpickler` given them (with :data:`ADMITTED`) resolves: classes
    pickled as their set slots (:func:`dumps_linked`)."""
    names = {(kind.__module__, kind.__qualname__): kind for kind in kinds}
    _BY_NAME.update(names)
    return frozenset(names)


Resolve = Callable[[Any], object]
"""A persistent id (plain data) -> the object it stands for; raises for an unknown one."""
Reference = Callable[[object], Hashable | None]
"""An object -> the persistent id that stands for it, or None: pickled as itself."""


class Unpickler(pickle.Unpickler):
    """Loads plain data and the ``admitted`` classes only (default :data:`ADMITTED`);
    a pickle naming anything else raises ``UnpicklingError`` (a corrupt entry). A
    persistent id is resolved by ``resolve`` (none given: refused)."""

    def __init__(
        self,
        file: IO[bytes],
        admitted: frozenset[tuple[str, str]] = ADMITTED,
        resolve: Resolve | None = None,
    ) -> None:
        super().__init__(file)
        self.admitted = admitted
        self.resolve = resolve

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.admitted:
            return _BY_NAME[(module, name)]
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")

    def persistent_load(self, pid: Any) -> Any:
        if self.resolve is None:
            raise pickle.UnpicklingError("a reference is not allowed in this pickle")
        return self.resolve(pid)


class Pickler(pickle.Pickler):
    """Refuses (raises ``PicklingError`` for) what :class:`Unpickler` would not load;
    with ``reference``, references (persistent ids) for the objects it names, and the
    classes ``slotted`` too (an interface's), pickled as their set slots."""

    def __init__(
        self,
        file: IO[bytes],
        reference: Reference | None = None,
        slotted: frozenset[type] = frozenset(),
    ) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self.reference = reference
        self.slotted = slotted

    def persistent_id(self, obj: Any) -> Any:
        return None if self.reference is None else self.reference(obj)

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, type):  # a class, named by an instance's pickle: a global
            if obj in _NAMED or obj in self.slotted:
                return NotImplemented
            raise pickle.PicklingError(f"the class {obj.__qualname__} cannot be cached")
        kind = type(obj)
        if kind in PICKLED_AS or kind in _PLAIN:
            return NotImplemented
        if kind in self.slotted:
            return _slotted(obj)
        raise pickle.PicklingError(f"{kind.__qualname__} cannot be cached")


def _slotted(obj: Any) -> tuple[Any, ...]:
    """The reduction of an interface object: a new object of its class (pickle's
    NEWOBJ, naming the class only) given its set slots, without the types' memos."""
    state: dict[str, Any] = {}
    for name, slot in _slots(type(obj)):
        try:
            state[name] = slot.__get__(obj)  # (not getattr: no lazy union is computed)
        except AttributeError:
            continue
    for name in _CACHES.keys() & state.keys():
        state[name] = None
    return (_NEW_OBJECT, (type(obj),), (None, state))


_SLOTS: dict[type, list[tuple[str, Any]]] = {}


def _slots(kind: type) -> list[tuple[str, Any]]:
    """The slots of a class and its bases with their descriptors."""
    found = _SLOTS.get(kind)
    if found is None:
        found = _SLOTS[kind] = []
        for base in kind.__mro__:
            names = vars(base).get("__slots__", ())
            for name in (names,) if isinstance(names, str) else names:
                found.append((name, vars(base)[name]))
    return found


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


def dumps_linked(value: Any, reference: Reference, slotted: frozenset[type]) -> bytes:
    """``value`` (an interface: the classes ``slotted``) pickled in the dialect, with
    references."""
    buffer = io.BytesIO()
    Pickler(buffer, reference, slotted).dump(value)
    return buffer.getvalue()


def load_linked(data: bytes, resolve: Resolve, admitted: frozenset[tuple[str, str]]) -> Any:
    """An interface pickled by :func:`dumps_linked` (naming the classes ``admitted``),
    its references resolved."""
    return Unpickler(io.BytesIO(data), admitted, resolve).load()
