"""LazyTable: a read-only mapping whose values are made on their first lookup.

Takes the names (any collection: it answers ``in``, iterates and counts) and a function
making a name's value; each value is made once, when first looked up. For the tables a
run reads a few entries of: the checker's types of string methods, decorators and
schema members (:mod:`kclpy.sema.builtins`: reading a signature is the cost), the VM's
adapters of builtins, string methods and system module members
(:mod:`kclpy.vm.builtins.registry`: making an adapter reads its function's signature).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    Value = TypeVar("Value")


class LazyTable(Mapping[str, "Value"]):
    """The values of ``names``, each ``make(name)`` on its first lookup."""

    __slots__ = ("_made", "_make", "_names")

    def __init__(self, names: Collection[str], make: Callable[[str], Value]) -> None:
        self._names = names
        self._made: dict[str, Value] = {}
        self._make = make

    def __getitem__(self, name: str) -> Value:
        made = self._made.get(name)
        if made is None:
            if name not in self._names:
                raise KeyError(name)
            made = self._made[name] = self._make(name)
        return made

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
