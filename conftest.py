"""Test-session settings shared by tests/ and fuzz/."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile

# Runs of the suite must not write the user's compiled-program cache (~/.cache/kclpy);
# subprocesses started by tests inherit this too. The process that makes the folder
# removes it as it ends.
if "KCLPY_CACHE_DIR" not in os.environ:
    os.environ["KCLPY_CACHE_DIR"] = tempfile.mkdtemp(prefix="kclpy-test-cache-")
    atexit.register(
        functools.partial(shutil.rmtree, os.environ["KCLPY_CACHE_DIR"], ignore_errors=True)
    )
