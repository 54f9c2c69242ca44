"""Options and fixtures shared by every test folder: the golden-file switch.

``pytest --update-goldens`` makes every golden test rewrite its golden files instead
of comparing with them: the goldens of kclpy's own stages (syntax ASTs, disassembly,
importer output, the corpus verdict cache) from what kclpy produces now, and the
goldens recorded from the reference (tests/conformance ``stdout.golden``,
tests/emit/goldens) from what ``kcl_lib`` answers now. Without it a missing golden
fails. The one switch: no test folder has a script of its own.

Every test process also takes Ctrl-C the way an interactive shell gives it (see
:func:`pytest_configure`).
"""

from __future__ import annotations

import signal

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Give SIGINT its default handler when the process inherited it ignored.

    A job started in the background of a non-interactive shell (``cmd &`` in a CI
    script) inherits SIGINT ignored (POSIX), and Python then leaves it ignored, in
    this process and in every ``kcl`` it starts: the tests that interrupt a run
    (tests/vm/test_depth.py in this process, tests/kusion/test_faults.py in a child)
    would wait for an interrupt that never comes.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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
