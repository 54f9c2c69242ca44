"""The expected texts recorded from the reference (``goldens/*.json``): loading and
writing them (``pytest --update-goldens`` rewrites them from the reference)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOLDENS = Path(__file__).resolve().parent / "goldens"


def load(name: str) -> dict[str, Any]:
    """The golden file ``name`` (id -> expected text, or ``{"error": message}``)."""
    data: dict[str, Any] = json.loads((GOLDENS / name).read_text(encoding="utf-8"))
    return data


def write(name: str, data: object) -> None:
    """Rewrite the golden file ``name``."""
    GOLDENS.mkdir(exist_ok=True)
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    (GOLDENS / name).write_text(text, encoding="utf-8")
