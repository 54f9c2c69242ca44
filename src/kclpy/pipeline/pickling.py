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
trees and files, other packages' symbols): each a call of one stand-in function (a
:data:`Link`) on plain data, which the reader does not import but resolves through
the program being checked, or refuses the entry; pickle's persistent ids are refused.
These classes are pickled as their set slots, the types' memos (a structural key, a
widened type) left out. All of it is decided in ``reducer_override``, which pickle's C
code calls once per object of a class of ours (never for plain data, nor again for
an object already written), so a pickle costs a Python call per such object and no
more.

Kept apart from ``kclpy.pipeline.cache`` so that a run that reads and writes no
entry (the cache off, or a first run until it stores) does not import ``pickle``
(about 1 ms of start-up).
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Callable, Iterable, Mapping

from kclpy.compile import code
from kclpy.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

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


class Link(Record):
    """References in a pickle (:func:`dumps_linked`): ``stand_in``, a module-level
    function that never runs, written as a global; ``reference`` names what an object
    of another owner stands for as ``stand_in``'s arguments (plain data; None: the
    object is pickled as itself); the reader's ``resolve`` is called in its place
    with those arguments and returns the object, or raises for a reference to nothing."""

    stand_in: Callable[..., object]
    reference: Callable[[object], tuple[Any, ...] | None]
    resolve: Callable[..., object]


class Unpickler(pickle.Unpickler):
    """Loads plain data and the ``admitted`` classes only (default :data:`ADMITTED`);
    a pickle naming anything else, or holding a persistent id, raises
    ``UnpicklingError`` (a corrupt entry). With ``link``, its stand-in names the
    link's ``resolve``."""

    def __init__(
        self,
        file: IO[bytes],
        admitted: frozenset[tuple[str, str]] = ADMITTED,
        link: Link | None = None,
    ) -> None:
        super().__init__(file)
        self.admitted = admitted
        self.link = None if link is None else (_name_of(link.stand_in), link.resolve)

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.admitted:
            return _BY_NAME[(module, name)]
        if self.link is not None and self.link[0] == (module, name):
            return self.link[1]
        raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a cache entry")


class Pickler(pickle.Pickler):
    """Refuses (raises ``PicklingError`` for) what :class:`Unpickler` would not load;
    with ``link``, references for the objects it names, and the classes ``slotted``
    too (an interface's), pickled as their set slots (:func:`slotted_as`): by pickle's
    own reduction (C code) for a class with no slot left out, and, with ``owned``,
    without asking ``link`` for its instances (none of them stands for a reference)."""

    def __init__(
        self,
        file: IO[bytes],
        link: Link | None = None,
        slotted: Mapping[type, Mapping[str, Any] | None] | None = None,
        owned: frozenset[type] = frozenset(),
    ) -> None:
        super().__init__(file, protocol=PROTOCOL)
        self.link = link
        self.slotted = slotted or {}
        self.owned = owned

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, type):  # a class, named by an instance's pickle: a global
            if obj in _NAMED or obj in self.slotted:
                return NotImplemented
            raise pickle.PicklingError(f"the class {obj.__qualname__} cannot be cached")
        kind = type(obj)
        if kind in PICKLED_AS or kind in _PLAIN:
            return NotImplemented
        link = self.link
        if link is not None and kind not in self.owned:
            if obj is link.stand_in:  # (written as a global, once per pickle)
                return NotImplemented
            found = link.reference(obj)
            if found is not None:
                return (link.stand_in, found)
        if kind in self.slotted:
            left_out = self.slotted[kind]
            # (None: pickle's NEWOBJ of the class, BUILD of its set slots)
            return NotImplemented if left_out is None else _slotted(obj, left_out)
        raise pickle.PicklingError(f"{kind.__qualname__} cannot be cached")


def _name_of(function: Callable[..., object]) -> tuple[str, str]:
    return (function.__module__, function.__qualname__)


def slotted_as(
    kinds: Iterable[type], left_out: Mapping[type, Mapping[str, Any]]
) -> dict[type, Mapping[str, Any] | None]:
    """``kinds`` (an interface's classes), each with the slots its pickle holds as a
    given value when set: the types' memos (None: recomputed on use) and ``left_out``'s
    (what importers' checking never reads); None for a class with none of these and
    no ``__getattr__``, which pickle's own reduction (C code: ``object.__getstate__``,
    reading every slot) pickles alike."""
    slotted: dict[type, Mapping[str, Any] | None] = {}
    for kind in kinds:
        names = {name for name, _ in _slots(kind)}
        replaced = {**_CACHES, **left_out.get(kind, {})}
        given = {name: value for name, value in replaced.items() if name in names}
        lazy = any("__getattr__" in vars(base) for base in kind.__mro__[:-1])
        slotted[kind] = given if given or lazy else None
    return slotted


def _slotted(obj: Any, left_out: Mapping[str, Any]) -> tuple[Any, ...]:
    """The reduction of an interface object: a new object of its class (pickle's
    NEWOBJ, naming the class only) given its set slots, those ``left_out`` as given."""
    state: dict[str, Any] = {}
    for name, slot in _slots(type(obj)):
        try:
            value = slot.__get__(obj)  # (not getattr: no lazy union is computed)
        except AttributeError:
            continue
        state[name] = left_out.get(name, value)
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


def dumps_once(value: Any, pickled: dict[int, tuple[Any, bytes]]) -> bytes:
    """:func:`dumps` of ``value``, once for all the entries a run writes: ``pickled``
    holds what the run pickled (the object kept alive with its bytes, by ``id``)."""
    found = pickled.get(id(value))
    if found is None or found[0] is not value:
        found = pickled[id(value)] = (value, dumps(value))
    return found[1]


def dump(value: Any, handle: IO[bytes]) -> None:
    """Write ``value`` to ``handle`` in the dialect."""
    Pickler(handle).dump(value)


def dumps_linked(
    value: Any,
    link: Link,
    slotted: Mapping[type, Mapping[str, Any] | None],
    owned: frozenset[type] = frozenset(),
) -> bytes:
    """``value`` (an interface: the classes ``slotted``, :func:`slotted_as`, those
    ``owned`` never references) pickled in the dialect, with the references of ``link``."""
    buffer = io.BytesIO()
    Pickler(buffer, link, slotted, owned).dump(value)
    return buffer.getvalue()


def load_linked(data: bytes, link: Link, admitted: frozenset[tuple[str, str]]) -> Any:
    """An interface pickled by :func:`dumps_linked` (naming the classes ``admitted``),
    its references resolved by ``link``."""
    return Unpickler(io.BytesIO(data), admitted, link).load()
