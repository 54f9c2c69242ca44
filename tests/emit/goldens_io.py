"""Loading the expected texts recorded from the reference (``goldens/*.json``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

GOLDENS = Path(__file__).resolve().parent / "goldens"


def load(name: str) -> dict[str, Any]:
    """The golden file ``name`` (id -> expected text, or ``{"error": message}``)."""
    data: dict[str, Any] = json.loads((GOLDENS / name).read_text(encoding="utf-8"))
    return data
