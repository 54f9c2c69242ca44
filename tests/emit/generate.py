"""Seeded random KCL values for the reference tests (plain ``random``, no hypothesis).

The strings are built from pieces that hit the emitter's corner cases: YAML words,
numbers, indicators, spaces, control and non-ASCII characters, line breaks.
"""

from __future__ import annotations

import random
from typing import Any

from kclpy.values import NumberMultiplier

from .oracle import schema_instance

PIECES = [
    "a", "b", "yes", "No", "null", "nil", "1", "0x1", "1e3", ".5", "-", "- ", "#", " #",
    ": ", ":", "?", "'", '"', "\\", "\n", "\n\n", " ", "\t", "\u2028", "\x85", "é", "日本",
    "\U0001f600", "\xa0", "\u3000", "|", ">", "---", "...", "~", "{", "[", ",", "&", "*",
    "!", "%", "@", "`", "x" * 130, "\r", "\x00", "\x7f", "\ufeff", "true", "on", "_", "$",
    "${", "}",
]  # fmt: skip
LETTERS = "abcXYZ019 .-_:/"
IDENTIFIERS = ["a", "b", "name", "_p", "_q", "x1", "spec", "kind"]


class Generator:
    """Random values: ``value()`` for any value, ``document()`` for a top-level dict."""

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.schemas = 0

    def string(self) -> str:
        pick = self.random
        return "".join(
            pick.choice(PIECES) if pick.random() < 0.5 else pick.choice(LETTERS)
            for _ in range(pick.randint(0, 5))
        )

    def number(self) -> Any:
        pick = self.random
        return pick.choice(
            [
                lambda: pick.randint(-(10**12), 10**12),
                lambda: pick.choice([0.0, 1.0, -2.5, 1e16, 1e-5, 1.5e-7, 123456789.125]),
                lambda: pick.uniform(-1, 1) * 10 ** pick.randint(-30, 30),
                lambda: 2.0 ** pick.randint(-60, 60),
                lambda: float("inf"),
                lambda: NumberMultiplier(pick.randint(0, 9), pick.choice(["Ki", "M", "m"])),
            ]
        )()

    def scalar(self) -> Any:
        pick = self.random
        kind = pick.random()
        if kind < 0.6:
            return self.string()
        if kind < 0.85:
            return self.number()
        return pick.choice([True, False, None])

    def value(self, depth: int = 0) -> Any:
        pick = self.random
        kind = pick.random()
        if depth > 3 or kind < 0.45:
            return self.scalar()
        if kind < 0.7:
            return [self.value(depth + 1) for _ in range(pick.randint(0, 4))]
        if kind < 0.9:
            return {self.string(): self.value(depth + 1) for _ in range(pick.randint(0, 4))}
        self.schemas += 1
        keys = pick.sample(IDENTIFIERS, pick.randint(0, 3))
        return schema_instance(f"S{self.schemas}", {key: self.value(depth + 1) for key in keys})

    def document(self, size: int = 3) -> dict[str, Any]:
        names = ["v", "_hidden", "w", "x"]
        return {
            f"{self.random.choice(names)}{index}": self.value()
            for index in range(self.random.randint(1, size))
        }
