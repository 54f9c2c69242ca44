"""The semantic stage (L3): name resolution, static types, the Model.

``check_program(program) -> Model`` runs between loading and compiling;
``resolve_program(program) -> Model`` only binds names (``check=False``). The
model's ``diagnostics`` are the reference's compile-time errors (TypeError,
CompileError, ImmutableError, UniqueKeyError, ...); any error stops the run.
Tools query the model: ``type_of``, ``symbol_of``, ``symbol_at``,
``references``, ``members``, ``doc``. The checker is a shared checking context
and cooperating parts (declarations, schemas, statements, expressions, configs,
calls, names, annotations, assignability, operators); ``checker`` builds them.
"""

from kclpy.sema.checker import check_program
from kclpy.sema.model import Model
from kclpy.sema.resolve import resolve_program
from kclpy.sema.symbols import Declaration, SchemaInfo, Symbol, SymbolKind
from kclpy.sema.types import Type

__all__ = [
    "Declaration",
    "Model",
    "SchemaInfo",
    "Symbol",
    "SymbolKind",
    "Type",
    "check_program",
    "resolve_program",
]
