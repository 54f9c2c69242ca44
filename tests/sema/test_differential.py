"""The error chunks agree with the reference KCL (skipped when kcl_lib is missing)."""

from __future__ import annotations

import pytest
from differential import compare
from reference import reference_available


@pytest.mark.skipif(not reference_available(), reason="kcl_lib (the reference) not installed")
def test_chunks_agree_with_the_reference() -> None:
    assert compare() == []
