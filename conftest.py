"""Test-session settings shared by tests/ and fuzz/."""

from __future__ import annotations

import os
import tempfile

# Runs of the suite must not write the user's compiled-program cache (~/.cache/kclpy);
# subprocesses started by tests inherit this too.
os.environ.setdefault("KCLPY_CACHE_DIR", tempfile.mkdtemp(prefix="kclpy-test-cache-"))
