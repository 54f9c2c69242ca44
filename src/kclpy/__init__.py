"""kclpy: a Python implementation of the KCL configuration language and its toolchain.

The public Python API is :mod:`kclpy.api`, re-exported here: ``kclpy.run``,
``kclpy.run_files``, ``kclpy.format_code`` ... (``__all__`` lists them). It is
imported on first use so that ``import kclpy`` stays cheap for the command line;
type checkers see the names through the ``TYPE_CHECKING`` import below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
# the version of the KCL language kclpy implements (that of the reference kcl-lib)
KCL_VERSION = "0.13.2"

if TYPE_CHECKING:
    from kclpy.api import (
        RunResult,
        TestCaseResult,
        build,
        compile_stack,
        format_code,
        format_path,
        generate_doc,
        generate_kcl,
        get_schema_types,
        import_files,
        lint_code,
        lint_path,
        list_options,
        list_variables,
        must_run,
        override_file,
        parse_option,
        parse_program,
        run,
        run_files,
        run_pattern,
        runtime_diagnostic,
        schema_type_mapping,
        test,
        validate,
        validate_code,
    )

__all__ = [
    "KCL_VERSION",
    "RunResult",
    "TestCaseResult",
    "__version__",
    "build",
    "compile_stack",
    "format_code",
    "format_path",
    "generate_doc",
    "generate_kcl",
    "get_schema_types",
    "import_files",
    "lint_code",
    "lint_path",
    "list_options",
    "list_variables",
    "must_run",
    "override_file",
    "parse_option",
    "parse_program",
    "run",
    "run_files",
    "run_pattern",
    "runtime_diagnostic",
    "schema_type_mapping",
    "test",
    "validate",
    "validate_code",
]


def __getattr__(name: str) -> Any:
    if name.startswith("__") or name == "api":
        raise AttributeError(name)
    from kclpy import api

    try:
        return getattr(api, name)
    except AttributeError:
        raise AttributeError(f"module 'kclpy' has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
