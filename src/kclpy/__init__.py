"""kclpy: a Python implementation of the KCL configuration language and its toolchain.

The public Python API is the names of ``__all__``, defined in :mod:`kclpy.api` and
re-exported here: ``kclpy.run``, ``kclpy.run_files``, ``kclpy.format_code`` ..., the
``RunResult`` they return (``documents``: plain Python data; ``values``: the typed KCL
values) and the ``Diagnostic`` records it carries (``str()``: one line;
``render()``: as ``kcl`` prints it). Two more modules are public: :mod:`kclpy.plugin`
(Python functions callable from KCL) and :mod:`kclpy.kusion.operations` (preview,
apply, destroy). Every other sub-package (``cli``, ``syntax``, ``sema``, ``compile``,
``vm``, ...) is internal and may change without notice.

The API is imported on first use so that ``import kclpy`` stays cheap for the command
line; type checkers see the names through the ``TYPE_CHECKING`` import below.
"""

from __future__ import annotations

from kclpy.release import DISTRIBUTION, KCL_VERSION, __version__
from kclpy.release import install_hint as install_hint  # public, not in __all__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kclpy.api import (
        Code,
        Diagnostic,
        DiagnosticError,
        RunResult,
        Severity,
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
    "DISTRIBUTION",
    "KCL_VERSION",
    "Code",
    "Diagnostic",
    "DiagnosticError",
    "RunResult",
    "Severity",
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
