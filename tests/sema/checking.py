"""Check one program given as text (the main.k of a temporary folder); its model."""

from __future__ import annotations

import os
import tempfile

from kclpy.loader import Loader
from kclpy.sema import check_program
from kclpy.sema.model import Model


def checked(source: str) -> Model:
    """The model of the program whose only file is ``source`` (it must load cleanly)."""
    with tempfile.TemporaryDirectory() as directory:
        main = os.path.join(directory, "main.k")
        with open(main, "w", encoding="utf-8") as handle:
            handle.write(source)
        program = Loader(directory).load([main])
        assert not program.has_errors
        return check_program(program)
