"""Shared fixtures of the syntax tests: the golden-file switch.

Goldens are rewritten instead of compared when ``KCLPY_UPDATE_GOLDENS=1`` is set
or pytest runs with ``--update-goldens`` (registered here when this directory is
given on the command line, e.g. ``pytest tests/syntax --update-goldens``).
"""

from __future__ import annotations

import contextlib
import os

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    with contextlib.suppress(ValueError):  # already registered by another conftest
        parser.addoption(
            "--update-goldens",
            action="store_true",
            default=False,
            help="rewrite golden files instead of comparing with them",
        )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    if os.environ.get("KCLPY_UPDATE_GOLDENS") == "1":
        return True
    try:
        return bool(request.config.getoption("--update-goldens"))
    except ValueError:
        return False
