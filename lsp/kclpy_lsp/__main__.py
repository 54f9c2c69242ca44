"""``python -m kclpy_lsp``: the language server over stdio."""

from kclpy_lsp.server import main

raise SystemExit(main())
