"""The syntax stage: KCL source text to ``ast.Module`` with spans and diagnostics.

Takes text (or a file path) and returns the tree plus diagnostics; bad input
never raises. The parser (ply, with pre-generated tables) is imported on first
use, so ``import kclpy.syntax`` stays cheap. ``walk`` and ``dump`` hold the
generic traversal and the golden-test dump format.
"""

from __future__ import annotations

from kclpy.diag import Code, Diagnostic, make_error
from kclpy.source import SourceFile, Span, decode_source, read_source
from kclpy.syntax import ast

__all__ = ["ast", "parse_bytes", "parse_expr", "parse_file", "parse_source"]


def parse_source(text: str, path: str = "<string>") -> tuple[ast.Module, list[Diagnostic]]:
    """Parse the text of one file."""
    return _parse(SourceFile(path, text), [])


def parse_file(path: str) -> tuple[ast.Module, list[Diagnostic]]:
    """Read (as UTF-8) and parse one file; unreadable or invalid UTF-8 input is a diagnostic."""
    file, problem = read_source(path)
    return _parse(file, _io_diagnostics(file, problem))


def parse_region(file: SourceFile, start: int, end: int) -> tuple[ast.Module, list[Diagnostic]]:
    """Parse the statements of ``file.text[start:end]`` (starting at a line start)
    with offsets into the whole file."""
    from kclpy.syntax.parser import parse_module

    diagnostics: list[Diagnostic] = []
    try:
        module = parse_module(file, diagnostics, start, end)
    except (MemoryError, SystemError):  # memory ran out: the driver reports it (E3R01)
        raise
    except Exception as error:  # pragma: no cover - a bug in kclpy, never the input
        diagnostics.append(_internal(file, error))
        module = ast.Module(Span(file, start, end), file, [], [])
    return module, diagnostics


def parse_bytes(data: bytes, path: str = "<string>") -> tuple[ast.Module, list[Diagnostic]]:
    """Decode (UTF-8, BOM allowed) and parse one file's bytes."""
    file, problem = decode_source(path, data)
    return _parse(file, _io_diagnostics(file, problem))


def parse_expr(text: str, path: str = "<expr>") -> tuple[ast.Expr | None, list[Diagnostic]]:
    """Parse one expression (``-O`` override values); None after a syntax error."""
    from kclpy.syntax.parser import parse_fragment

    file = SourceFile(path, text)
    diagnostics: list[Diagnostic] = []
    try:
        expr = parse_fragment(file, 0, len(text), diagnostics)
    except (MemoryError, SystemError):  # memory ran out: the driver reports it (E3R01)
        raise
    except Exception as error:  # pragma: no cover - a bug in kclpy, never the input
        diagnostics.append(_internal(file, error))
        expr = None
    if any(d.is_error for d in diagnostics):
        expr = None
    return expr, diagnostics


def _parse(file: SourceFile, diagnostics: list[Diagnostic]) -> tuple[ast.Module, list[Diagnostic]]:
    from kclpy.syntax.parser import parse_module

    try:
        module = parse_module(file, diagnostics)
    except (MemoryError, SystemError):  # memory ran out: the driver reports it (E3R01)
        raise
    except Exception as error:  # pragma: no cover - a bug in kclpy, never the input
        diagnostics.append(_internal(file, error))
        module = ast.Module(Span(file, 0, len(file.text)), file, [], [])
    return module, diagnostics


def _io_diagnostics(file: SourceFile, problem: str | None) -> list[Diagnostic]:
    if problem is None:
        return []
    if problem.startswith("cannot read"):
        return [make_error(Code.IO_ERROR, problem, None)]
    offset = int(problem.rsplit(" ", 1)[-1]) if problem[-1].isdigit() else 0
    offset = _char_offset(file, offset)
    return [make_error(Code.INVALID_SYNTAX, problem, Span(file, offset, offset))]


def _char_offset(file: SourceFile, byte_offset: int) -> int:
    """The code-point offset of the first bad byte (the bytes before it decode as is)."""
    return len(file.text.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _internal(file: SourceFile, error: Exception) -> Diagnostic:
    message = f"internal error in the parser: {type(error).__name__}: {error}"
    return make_error(Code.INTERNAL_ERROR, message, Span(file, 0, 0))
