"""Options and fixtures shared by every test folder: the golden-file switch.

``pytest --update-goldens`` makes every golden test rewrite its golden files instead
of comparing with them: the goldens of kclpy's own stages (syntax ASTs, disassembly,
importer output, the corpus verdict cache) from what kclpy produces now, and the
goldens recorded from the reference (tests/conformance ``stdout.golden``,
tests/emit/goldens) from what ``kcl_lib`` answers now. Without it a missing golden
fails. The one switch: no test folder has a script of its own.
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
