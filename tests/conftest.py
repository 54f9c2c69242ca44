"""Options and fixtures shared by every test folder: the golden-file switch.

``pytest --update-goldens`` makes every golden test (syntax ASTs, disassembly,
importer output, the corpus verdict cache) rewrite its golden files from what kclpy
produces now instead of comparing with them; without it a missing golden fails.
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite golden files instead of comparing with them",
    )


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite golden files (``--update-goldens``)."""
    return bool(request.config.getoption("--update-goldens"))
