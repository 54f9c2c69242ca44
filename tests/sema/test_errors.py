"""The chunked error files: each chunk's errors (its missing modules' loading errors
included) must be exactly its ``# E:`` lines."""

from __future__ import annotations

import pytest
from chunks import Chunk, all_chunks, check_chunk, mismatches

CHUNKS = list(all_chunks())


@pytest.mark.parametrize("chunk", CHUNKS, ids=[chunk.name for chunk in CHUNKS])
def test_chunk(chunk: Chunk) -> None:
    model, load_errors, directory = check_chunk(chunk)
    assert model is not None, f"the chunk does not load: {load_errors}"
    assert mismatches(chunk, [*load_errors, *model.errors], directory) == []
