"""``python -m kclpy``: the same entry point as the ``kcl`` command."""

from kclpy.entry import main

raise SystemExit(main())
