"""``python -m kclpy``: the same entry point as the ``kcl`` command."""

from kclpy.cli import main

raise SystemExit(main())
