"""Appending instructions to a ``Code``: constants, names, jumps and positions."""

from __future__ import annotations

from kclpy.compile.code import Code
from kclpy.compile.opcodes import Op

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Emitter:
    """Builds one ``Code``; ``span`` is the position given to the next instructions."""

    __slots__ = ("_const_index", "_name_index", "code", "position")

    def __init__(self, code: Code) -> None:
        self.code = code
        self.position: tuple[int, int] = (0, 0)
        self._const_index: dict[Any, int] = {}
        self._name_index: dict[str, int] = {}

    def emit(self, op: Op, arg: int = 0) -> int:
        """Append an instruction; returns its offset."""
        code = self.code
        pc = len(code.ops)
        code.ops.append(int(op))
        code.ops.append(arg)
        code.positions.append(self.position)
        return pc

    def here(self) -> int:
        return len(self.code.ops)

    def patch(self, pc: int, target: int | None = None) -> None:
        """Point the jump at ``pc`` to ``target`` (default: here); operand bits above
        the low 32 (FOR_ITER_LOCAL's variable) are kept."""
        ops = self.code.ops
        ops[pc + 1] = (ops[pc + 1] >> 32 << 32) | (self.here() if target is None else target)

    def const(self, value: Any) -> int:
        """The index of a constant; strings, numbers and tuples of them are shared."""
        kind = type(value)
        if kind is str or kind is int or kind is tuple:
            key: Any = value if kind is str else _typed(value)
            index = self._const_index.get(key)
            if index is None:
                index = len(self.code.consts)
                self.code.consts.append(value)
                self._const_index[key] = index
            return index
        index = len(self.code.consts)
        self.code.consts.append(value)
        return index

    def unshared(self, value: Any) -> int:
        """The index of a new constant, shared with no other (a constant too large
        to be worth comparing)."""
        self.code.consts.append(value)
        return len(self.code.consts) - 1

    def name(self, text: str) -> int:
        index = self._name_index.get(text)
        if index is None:
            index = len(self.code.names)
            self.code.names.append(text)
            self._name_index[text] = index
        return index


def _typed(value: Any) -> Any:
    """A sharing key that tells apart values Python finds equal (``1``, ``1.0`` and
    ``True``, alone or as the items of a tuple of literals)."""
    if type(value) is tuple:
        return (tuple, value, tuple(map(type, value)))
    return (type(value), value)
