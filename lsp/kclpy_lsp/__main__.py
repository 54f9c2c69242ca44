"""``python -m kclpy_lsp`` (and ``kcl lsp``, which execs it): the language server over
stdio; without pygls, a coded error and exit code 2."""

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

raise SystemExit(main())
