"""``python -m kclpy_lsp`` (and ``kcl lsp``, which execs it): the language server over
stdio; without pygls, a coded error and exit code 2.

When the server is done the process ends at once (``os._exit``, after flushing its
output): the interpreter's own finalization of a large analysis heap takes seconds,
and nothing is left to write by then (the analysis thread has stopped or had its
grace; dependencies are downloaded into staging folders and renamed)."""

import contextlib
import os
import sys

try:
    from kclpy_lsp.server import main
except ImportError as error:
    from kclpy import install_hint
    from kclpy.diag import Code, make_error
    from kclpy.diag.render import render_all

    message = f"the language server needs pygls ({error}); {install_hint('lsp')}"
    sys.stderr.write(render_all([make_error(Code.USAGE_ERROR, message, None)], "human", False))
    raise SystemExit(2) from None

code = main()
for stream in (sys.stdout, sys.stderr):
    with contextlib.suppress(OSError, ValueError):  # closed by ``exit``; a broken pipe
        stream.flush()
os._exit(code)
