"""Symbols, scopes and schema definitions: what names mean.

A :class:`Symbol` is one definition (a variable, a schema, an attribute, a
parameter, a loop variable, an import...); its uses are the nodes whose binding's
declaration it decorates (or that the checker completed with it: ``sema.model``),
so tools go from a use to its definition and back. A :class:`Declaration` is one
name the resolver found declared (``sema.bindings``: what bindings point at); the
checker decorates it with its symbol. There are no scopes: what a name means is its
binding's declaration. A :class:`SchemaInfo` is the semantic form of a
``schema``/``mixin``/``protocol``/``rule`` statement: its base, mixins, protocol,
attributes (as symbols), parameters and index signature; a :class:`SchemaType` (a
schema definition or an instance of it, a ``Type``) points at its ``SchemaInfo``,
which may still be filling when the type is made. The module
builds on ``sema.types`` alone; ``sema.relations`` builds on both.
"""

from __future__ import annotations

from collections.abc import Sequence

from kclpy.sema.types import ANY, SCHEMA, DictType, FuncType, Param, Type
from kclpy.source import Span
from kclpy.syntax import ast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

MAIN = "__main__"


class SymbolKind:
    """The kinds of definitions (plain strings, cheap to compare and print)."""

    VARIABLE = "variable"
    ATTRIBUTE = "attribute"
    SCHEMA = "schema"
    RULE = "rule"
    PARAMETER = "parameter"
    LOOP_VARIABLE = "loop variable"
    TYPE_ALIAS = "type alias"
    MODULE = "module"
    BUILTIN = "builtin"
    CONFIG_KEY = "config key"
    INDEX_KEY = "index signature key"


class Symbol:
    """One definition of a name, with its type."""

    __slots__ = (
        "decorators",
        "doc",
        "has_default",
        "kind",
        "name",
        "node",
        "optional",
        "owner",
        "pkgpath",
        "span",
        "type",
    )

    def __init__(
        self,
        name: str,
        kind: str,
        type: Type = ANY,
        span: Span | None = None,
        pkgpath: str = "",
        node: ast.Node | None = None,
    ) -> None:
        self.name = name
        self.kind = kind
        self.type = type
        self.span = span
        self.pkgpath = pkgpath
        self.node = node
        self.owner: SchemaInfo | None = None
        self.doc = ""
        self.optional = False
        self.has_default = False
        # an empty tuple until set: most symbols (config keys, variables) never get any
        self.decorators: Sequence[ast.Decorator] = ()

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name}: {self.type.ty_str()}>"


class DeclarationKind:
    """The kinds of declarations (plain strings, cheap to compare and print)."""

    PARAMETER: Final = "parameter"
    LOOP_VARIABLE: Final = "loop variable"
    LAMBDA_LOCAL: Final = "lambda local"
    INDEX_KEY: Final = "index signature key"
    PACKAGE: Final = "package name"
    BUILTIN: Final = "builtin"
    MEMBER: Final = "schema member"
    CONFIG_KEY: Final = "config key"


class Declaration:
    """One declared name: its kind, the node that declares it (None for package names,
    builtins and schema members, which many statements may set), the nesting depth of
    the code unit it belongs to (lambdas nest) and the checker's symbol for it (None
    until the checker reaches the declaration). A local's slot is the compiler's, keyed
    by the declaring node."""

    __slots__ = ("depth", "kind", "name", "node", "symbol")

    def __init__(self, kind: str, name: str, node: ast.Node | None = None, depth: int = 0) -> None:
        self.kind = kind
        self.name = name
        self.node = node
        self.depth = depth
        self.symbol: Symbol | None = None

    def __repr__(self) -> str:
        return f"<declaration {self.kind} {self.name}>"


class IndexSignatureInfo:
    """``[key_name: K]: V`` of a schema."""

    __slots__ = ("any_other", "key_name", "key_type", "node", "val_type")

    def __init__(
        self,
        key_name: str | None,
        key_type: Type,
        val_type: Type,
        any_other: bool,
        node: ast.IndexSignature,
    ) -> None:
        self.key_name = key_name
        self.key_type = key_type
        self.val_type = val_type
        self.any_other = any_other
        self.node = node

    def ty_str(self) -> str:
        head = f"[{self.key_name}: " if self.key_name else "["
        rest = "..." if self.any_other else ""
        return f"{head}{rest}{self.key_type.ty_str()}]: {self.val_type.ty_str()}"


class SchemaInfo:
    """The semantic view of one schema, mixin, protocol or rule definition."""

    __slots__ = (
        "attrs",
        "base",
        "body_types",
        "built",
        "doc",
        "file",
        "func",
        "index_signature",
        "is_mixin",
        "is_protocol",
        "is_rule",
        "mixins",
        "name",
        "node",
        "parents",
        "pkgpath",
        "protocol",
        "symbol",
    )

    def __init__(
        self,
        name: str,
        pkgpath: str,
        node: ast.SchemaStmt | ast.RuleStmt,
        file: str,
    ) -> None:
        self.name = name
        self.pkgpath = pkgpath
        self.node = node
        self.file = file
        self.doc = node.doc
        is_schema = isinstance(node, ast.SchemaStmt)
        kind = node.kind if isinstance(node, ast.SchemaStmt) else "rule"
        self.is_mixin = is_schema and (kind == "mixin" or name.endswith("Mixin"))
        self.is_protocol = (
            is_schema and not self.is_mixin and (kind == "protocol" or name.endswith("Protocol"))
        )
        self.is_rule = not is_schema
        self.base: SchemaInfo | None = None
        self.protocol: SchemaInfo | None = None
        self.mixins: list[SchemaInfo] = []
        self.parents: list[SchemaInfo] = []  # rules only
        self.attrs: dict[str, Symbol] = {}
        self.body_types: dict[str, Type] = {}  # untyped body assignments, inferred while walking
        self.func = FuncType([], ANY)
        self.index_signature: IndexSignatureInfo | None = None
        self.symbol: Symbol | None = None
        self.built = False

    @property
    def full_name(self) -> str:
        if not self.pkgpath or self.pkgpath == MAIN:
            return self.name
        return f"{self.pkgpath}.{self.name}"

    @property
    def params(self) -> list[Param]:
        return self.func.params

    def get_attr(self, name: str) -> Symbol | None:
        """An attribute declared here, in a base schema, or in the protocol."""
        info: SchemaInfo | None = self
        seen = 0
        while info is not None and seen < 64:
            symbol = info.attrs.get(name)
            if symbol is not None:
                return symbol
            if info.base is None and info.protocol is not None:
                return info.protocol.attrs.get(name)
            info = info.base
            seen += 1
        return None

    def all_attrs(self) -> dict[str, Symbol]:
        """Every attribute, base attributes first (the instance's output order)."""
        chain: list[SchemaInfo] = []
        info: SchemaInfo | None = self
        while info is not None and info not in chain:
            chain.append(info)
            info = info.base
        merged: dict[str, Symbol] = {}
        for item in reversed(chain):
            for name, symbol in item.attrs.items():
                if name not in merged or item is self:
                    merged[name] = symbol
        return merged

    def is_sub_schema_of(self, other: SchemaInfo) -> bool:
        info: SchemaInfo | None = self
        seen = 0
        while info is not None and seen < 64:
            if info is other or info.full_name == other.full_name:
                return True
            info = info.base
            seen += 1
        return False

    def def_type(self) -> SchemaType:
        return SchemaType(self, False)

    def __repr__(self) -> str:
        return f"<schema {self.full_name}>"


class SchemaType(Type):
    """A schema: the definition itself (``instance`` False) or an instance of it."""

    __slots__ = ("info", "instance")

    def __init__(self, info: SchemaInfo, instance: bool) -> None:
        super().__init__(SCHEMA)
        self.info = info
        self.instance = instance

    def ty_str(self) -> str:
        return self.info.name


def schema_val_type(info: SchemaInfo) -> Type:
    """The value type of a schema seen as a mapping (its index signature's, else any)."""
    signature = info.index_signature
    return signature.val_type if signature is not None else ANY


def config_val_type(t: Type) -> Type:
    if isinstance(t, DictType):
        return t.val
    if isinstance(t, SchemaType):
        return schema_val_type(t.info)
    return ANY
