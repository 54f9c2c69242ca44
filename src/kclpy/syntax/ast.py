"""The KCL syntax tree.

Every node has a ``span`` (code-point range in its file) and an integer ``id``
unique within a process, by which later stages (sema's Model, the compiler, the
language server) key their facts. Nodes are plain slots classes: cheap to build,
never mutated after the type checker has run. ``_fields`` lists the child-bearing
and data fields in source order, for the generic walker and the dumper.

Naming: expressions end in ``Expr``, statements in ``Stmt``, types in ``Type``.
"""

from __future__ import annotations

from itertools import count

from kclpy.source import SourceFile, Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

node_ids = count(1)
"""Where every node's ``id`` comes from: ``next(node_ids)``."""
_ids = node_ids  # (its former name, which clone.py and tools/override_edits.py use)


class Node:
    """Base of all syntax nodes.

    Subclass constructors set ``span`` and ``id`` themselves, as this one does,
    rather than calling it: the parser builds a node per token or two, and the
    extra call was a third of a node's cost.

    The parser's hottest actions (names, config entries and expressions, schema
    expressions, selectors, named types, schema attributes, plain string and number
    literals) go further: they build the node, and its Span, as ``object.__new__``
    plus a store to every slot the constructor sets (``id`` from ``next(node_ids)``),
    without calling a constructor: with no Python ``__init__`` to enter, a node costs
    about a third less. Such a node is indistinguishable from a constructed one (a
    test checks that no slot is left unset)."""

    __slots__ = ("id", "span")
    _fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, span: Span) -> None:
        self.span = span
        self.id = next(node_ids)

    def __repr__(self) -> str:
        return f"{type(self).__name__}@{self.span!r}"


# --------------------------------------------------------------------------- types


class TypeNode(Node):
    """Base of type annotations."""

    __slots__ = ()


class AnyType(TypeNode):
    """``any``."""

    __slots__ = ()


class NamedType(TypeNode):
    """A builtin type (``int``, ``str``...), or a schema/alias name, maybe dotted ``pkg.S``."""

    __slots__ = ("name",)
    _fields = ("name",)

    def __init__(self, span: Span, name: str) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name


class ListType(TypeNode):
    """``[T]``; ``[]`` has ``elem`` None (a list of any)."""

    __slots__ = ("elem",)
    _fields = ("elem",)

    def __init__(self, span: Span, elem: TypeNode | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.elem = elem


class DictType(TypeNode):
    """``{K:V}``; ``{:}``, ``{str:}`` leave parts None (any)."""

    __slots__ = ("key", "value")
    _fields = ("key", "value")

    def __init__(self, span: Span, key: TypeNode | None, value: TypeNode | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.key = key
        self.value = value


class UnionType(TypeNode):
    """``A | B | C``."""

    __slots__ = ("types",)
    _fields = ("types",)

    def __init__(self, span: Span, types: list[TypeNode]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.types = types


class LiteralType(TypeNode):
    """A literal type: ``"TCP"``, ``80``, ``1.5``, ``True``, ``None``, ``1Gi``."""

    __slots__ = ("suffix", "value")
    _fields = ("value", "suffix")

    def __init__(
        self, span: Span, value: str | int | float | bool | None, suffix: str | None = None
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.suffix = suffix


class FunctionType(TypeNode):
    """``(A, B) -> R``; ``ret`` None means any."""

    __slots__ = ("params", "ret")
    _fields = ("params", "ret")

    def __init__(self, span: Span, params: list[TypeNode], ret: TypeNode | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.params = params
        self.ret = ret


# --------------------------------------------------------------------------- expressions


class Expr(Node):
    """Base of expressions."""

    __slots__ = ()


class NameExpr(Expr):
    """An identifier; ``$if`` is stored as ``if``."""

    __slots__ = ("name",)
    _fields = ("name",)

    def __init__(self, span: Span, name: str) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name


class ConstExpr(Expr):
    """``True``, ``False``, ``None`` or ``Undefined`` (value is the string ``"Undefined"``)."""

    __slots__ = ("value",)
    _fields = ("value",)

    def __init__(self, span: Span, value: bool | str | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value


class NumberExpr(Expr):
    """An int or float literal, with an optional unit suffix (``1Ki``)."""

    __slots__ = ("suffix", "value")
    _fields = ("value", "suffix")

    def __init__(self, span: Span, value: int | float, suffix: str | None = None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.suffix = suffix


class StringExpr(Expr):
    """A string literal without interpolation (escapes already processed)."""

    __slots__ = ("raw", "value")
    _fields = ("value",)

    def __init__(self, span: Span, value: str, raw: str = "") -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.raw = raw  # the literal as written, quotes and prefix included


class FormattedValue(Expr):
    """One ``${expr}`` or ``${expr: #json}`` part of an interpolated string."""

    __slots__ = ("format_spec", "value")
    _fields = ("value", "format_spec")

    def __init__(self, span: Span, value: Expr, format_spec: str | None = None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.format_spec = format_spec


class JoinedStringExpr(Expr):
    """An interpolated string: literal text (``str``) and ``FormattedValue`` parts."""

    __slots__ = ("parts", "raw")
    _fields = ("parts",)

    def __init__(self, span: Span, parts: list[str | FormattedValue], raw: str = "") -> None:
        self.span = span
        self.id = next(node_ids)
        self.parts = parts
        self.raw = raw


class ParenExpr(Expr):
    """``( expr )``, kept for config keys (``(k) = v`` is computed) and the formatter."""

    __slots__ = ("value",)
    _fields = ("value",)

    def __init__(self, span: Span, value: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value


class SelectorExpr(Expr):
    """``value.attr`` or ``value?.attr``."""

    __slots__ = ("attr", "optional", "value")
    _fields = ("value", "attr", "optional")

    def __init__(self, span: Span, value: Expr, attr: str, optional: bool = False) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.attr = attr
        self.optional = optional


class SubscriptExpr(Expr):
    """``value[index]``, ``value?[index]`` or a slice ``value[lower:upper:step]``."""

    __slots__ = ("index", "is_slice", "lower", "optional", "step", "upper", "value")
    _fields = ("value", "index", "lower", "upper", "step", "is_slice", "optional")

    def __init__(
        self,
        span: Span,
        value: Expr,
        index: Expr | None,
        *,
        lower: Expr | None = None,
        upper: Expr | None = None,
        step: Expr | None = None,
        is_slice: bool = False,
        optional: bool = False,
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.index = index
        self.lower = lower
        self.upper = upper
        self.step = step
        self.is_slice = is_slice
        self.optional = optional


class Keyword(Node):
    """``name = value`` in a call."""

    __slots__ = ("name", "value")
    _fields = ("name", "value")

    def __init__(self, span: Span, name: str, value: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.value = value


class CallExpr(Expr):
    """``func(args, name = value)``."""

    __slots__ = ("args", "func", "keywords")
    _fields = ("func", "args", "keywords")

    def __init__(self, span: Span, func: Expr, args: list[Expr], keywords: list[Keyword]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.func = func
        self.args = args
        self.keywords = keywords


class UnaryExpr(Expr):
    """``+x``, ``-x``, ``~x``, ``not x`` (op is the operator text)."""

    __slots__ = ("op", "operand")
    _fields = ("op", "operand")

    def __init__(self, span: Span, op: str, operand: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.op = op
        self.operand = operand


class BinaryExpr(Expr):
    """``left op right`` for arithmetic, bitwise, ``and`` and ``or`` (op is the text)."""

    __slots__ = ("left", "op", "right")
    _fields = ("op", "left", "right")

    def __init__(self, span: Span, op: str, left: Expr, right: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.op = op
        self.left = left
        self.right = right


class CompareExpr(Expr):
    """A comparison chain ``a < b <= c``; ops are ``== != < <= > >= in not in is is not``."""

    __slots__ = ("comparators", "left", "ops")
    _fields = ("left", "ops", "comparators")

    def __init__(self, span: Span, left: Expr, ops: list[str], comparators: list[Expr]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.left = left
        self.ops = ops
        self.comparators = comparators


class IfExpr(Expr):
    """``body if cond else orelse``."""

    __slots__ = ("body", "cond", "orelse")
    _fields = ("body", "cond", "orelse")

    def __init__(self, span: Span, body: Expr, cond: Expr, orelse: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.body = body
        self.cond = cond
        self.orelse = orelse


class AsExpr(Expr):
    """``value as T``."""

    __slots__ = ("type", "value")
    _fields = ("value", "type")

    def __init__(self, span: Span, value: Expr, type: TypeNode) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value
        self.type = type


class StarredExpr(Expr):
    """``*value`` in a list or call arguments."""

    __slots__ = ("value",)
    _fields = ("value",)

    def __init__(self, span: Span, value: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value


class DoubleStarredExpr(Expr):
    """``**value`` in call arguments (in configs it is a ``ConfigEntry`` with no key)."""

    __slots__ = ("value",)
    _fields = ("value",)

    def __init__(self, span: Span, value: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.value = value


class ListIfItem(Expr):
    """``if cond: items`` inside a list literal; ``orelse`` is an elif item or else items."""

    __slots__ = ("cond", "items", "orelse")
    _fields = ("cond", "items", "orelse")

    def __init__(
        self,
        span: Span,
        cond: Expr,
        items: list[Expr],
        orelse: ListIfItem | list[Expr] | None = None,
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.cond = cond
        self.items = items
        self.orelse = orelse


class ListExpr(Expr):
    """``[a, *b, if c: d]``."""

    __slots__ = ("items",)
    _fields = ("items",)

    def __init__(self, span: Span, items: list[Expr]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.items = items


OP_UNION = ":"
OP_OVERRIDE = "="
OP_INSERT = "+="


class ConfigEntry(Node):
    """``key: value``, ``key = value``, ``key += value`` or ``**value`` (key None).

    ``key`` is a ``NameExpr`` or ``SelectorExpr`` chain for bare (dotted) names,
    which are literal string keys; a ``StringExpr``/``JoinedStringExpr`` for quoted
    keys; a ``ParenExpr`` for computed keys; a ``SubscriptExpr`` for ``l[0] = v``.
    """

    __slots__ = ("key", "op", "value")
    _fields = ("key", "op", "value")

    def __init__(self, span: Span, key: Expr | None, op: str, value: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.key = key
        self.op = op
        self.value = value


class ConfigIfEntry(Node):
    """``if cond: entries`` inside a config; ``orelse`` is an elif entry or else entries."""

    __slots__ = ("cond", "entries", "orelse")
    _fields = ("cond", "entries", "orelse")

    def __init__(
        self,
        span: Span,
        cond: Expr,
        entries: list[ConfigEntry | ConfigIfEntry],
        orelse: ConfigIfEntry | list[ConfigEntry | ConfigIfEntry] | None = None,
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.cond = cond
        self.entries = entries
        self.orelse = orelse


class ConfigExpr(Expr):
    """``{ entries }``, a dict literal or the body of a schema expression."""

    __slots__ = ("entries",)
    _fields = ("entries",)

    def __init__(self, span: Span, entries: list[ConfigEntry | ConfigIfEntry]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.entries = entries


class SchemaExpr(Expr):
    """``Name {...}``, ``Name(args) {...}``, ``pkg.Name {...}`` or ``inst {...}``."""

    __slots__ = ("args", "config", "keywords", "name")
    _fields = ("name", "args", "keywords", "config")

    def __init__(
        self,
        span: Span,
        name: Expr,
        args: list[Expr],
        keywords: list[Keyword],
        config: ConfigExpr,
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.args = args
        self.keywords = keywords
        self.config = config


class CompClause(Node):
    """``for a, b in iter if c if d`` of a comprehension."""

    __slots__ = ("ifs", "iter", "targets")
    _fields = ("targets", "iter", "ifs")

    def __init__(self, span: Span, targets: list[NameExpr], iter: Expr, ifs: list[Expr]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.targets = targets
        self.iter = iter
        self.ifs = ifs


class ListCompExpr(Expr):
    """``[elt for ...]``."""

    __slots__ = ("elt", "generators")
    _fields = ("elt", "generators")

    def __init__(self, span: Span, elt: Expr, generators: list[CompClause]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.elt = elt
        self.generators = generators


class DictCompExpr(Expr):
    """``{key: value for ...}`` (the entry may use ``:``, ``=`` or ``**``)."""

    __slots__ = ("entry", "generators")
    _fields = ("entry", "generators")

    def __init__(self, span: Span, entry: ConfigEntry, generators: list[CompClause]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.entry = entry
        self.generators = generators


class QuantExpr(Expr):
    """``all|any|map|filter [k,] v in target { test [if cond] }``."""

    __slots__ = ("cond", "op", "target", "test", "variables")
    _fields = ("op", "variables", "target", "test", "cond")

    def __init__(
        self,
        span: Span,
        op: str,
        variables: list[NameExpr],
        target: Expr,
        test: Expr,
        cond: Expr | None,
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.op = op
        self.variables = variables
        self.target = target
        self.test = test
        self.cond = cond


class Param(Node):
    """A lambda, schema or rule parameter ``name[: T][ = default]``."""

    __slots__ = ("default", "name", "type")
    _fields = ("name", "type", "default")

    def __init__(self, span: Span, name: str, type: TypeNode | None, default: Expr | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.type = type
        self.default = default


class LambdaExpr(Expr):
    """``lambda params [-> T] { body }``."""

    __slots__ = ("body", "params", "return_type")
    _fields = ("params", "return_type", "body")

    def __init__(
        self, span: Span, params: list[Param], return_type: TypeNode | None, body: list[Stmt]
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.params = params
        self.return_type = return_type
        self.body = body


# --------------------------------------------------------------------------- statements


class Stmt(Node):
    """Base of statements."""

    __slots__ = ()


class ExprStmt(Stmt):
    """A bare expression."""

    __slots__ = ("expr",)
    _fields = ("expr",)

    def __init__(self, span: Span, expr: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.expr = expr


class AssignStmt(Stmt):
    """``t1 = t2 = value`` or ``t: T = value``; targets are names or selector/index chains."""

    __slots__ = ("targets", "type", "value")
    _fields = ("targets", "type", "value")

    def __init__(
        self, span: Span, targets: list[Expr], value: Expr, type: TypeNode | None = None
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.targets = targets
        self.value = value
        self.type = type


class AugAssignStmt(Stmt):
    """``target op= value`` (op is the binary operator text, e.g. ``+``)."""

    __slots__ = ("op", "target", "value")
    _fields = ("target", "op", "value")

    def __init__(self, span: Span, target: Expr, op: str, value: Expr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.target = target
        self.op = op
        self.value = value


class UnificationStmt(Stmt):
    """``name: Schema {...}``."""

    __slots__ = ("target", "value")
    _fields = ("target", "value")

    def __init__(self, span: Span, target: NameExpr, value: SchemaExpr) -> None:
        self.span = span
        self.id = next(node_ids)
        self.target = target
        self.value = value


class TypeAliasStmt(Stmt):
    """``type Name = T``."""

    __slots__ = ("name", "type")
    _fields = ("name", "type")

    def __init__(self, span: Span, name: NameExpr, type: TypeNode) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.type = type


class IfStmt(Stmt):
    """``if cond: body`` with ``elif`` as a nested IfStmt in ``orelse``."""

    __slots__ = ("body", "cond", "orelse")
    _fields = ("cond", "body", "orelse")

    def __init__(self, span: Span, cond: Expr, body: list[Stmt], orelse: list[Stmt]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.cond = cond
        self.body = body
        self.orelse = orelse


class AssertStmt(Stmt):
    """``assert test [if cond] [, msg]``."""

    __slots__ = ("cond", "msg", "test")
    _fields = ("test", "cond", "msg")

    def __init__(self, span: Span, test: Expr, cond: Expr | None, msg: Expr | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.test = test
        self.cond = cond
        self.msg = msg


class ImportStmt(Stmt):
    """``import path [as alias]``; ``path`` keeps leading dots of relative imports."""

    __slots__ = ("alias", "path")
    _fields = ("path", "alias")

    def __init__(self, span: Span, path: str, alias: str | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.path = path
        self.alias = alias

    @property
    def name(self) -> str:
        """The local name the import binds."""
        return self.alias or self.path.rsplit(".", 1)[-1]


class Decorator(Node):
    """``@name`` or ``@name(args)``."""

    __slots__ = ("args", "keywords", "name")
    _fields = ("name", "args", "keywords")

    def __init__(self, span: Span, name: str, args: list[Expr], keywords: list[Keyword]) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.args = args
        self.keywords = keywords


class SchemaAttr(Stmt):
    """``[decorators] name[?]: T [= value]`` in a schema body (op ``=`` or a union ``|=``)."""

    __slots__ = ("decorators", "doc", "name", "name_span", "op", "optional", "type", "value")
    _fields = ("decorators", "name", "optional", "type", "op", "value")

    def __init__(
        self,
        span: Span,
        name: str,
        name_span: Span,
        type: TypeNode,
        value: Expr | None,
        *,
        optional: bool = False,
        op: str = "=",
        decorators: list[Decorator] | None = None,
        doc: str = "",
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.name_span = name_span
        self.type = type
        self.value = value
        self.optional = optional
        self.op = op
        self.decorators = decorators or []
        self.doc = doc


class IndexSignature(Node):
    """``[key_name: K]: V = value`` or ``[...K]: V`` (``any_other``)."""

    __slots__ = ("any_other", "key_name", "key_type", "value", "value_type")
    _fields = ("key_name", "any_other", "key_type", "value_type", "value")

    def __init__(
        self,
        span: Span,
        key_name: str | None,
        key_type: TypeNode,
        value_type: TypeNode,
        value: Expr | None,
        any_other: bool = False,
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.key_name = key_name
        self.key_type = key_type
        self.value_type = value_type
        self.value = value
        self.any_other = any_other


class CheckExpr(Node):
    """One line of a ``check:`` block or a rule: ``test [if cond] [, msg]``."""

    __slots__ = ("cond", "msg", "test")
    _fields = ("test", "cond", "msg")

    def __init__(self, span: Span, test: Expr, cond: Expr | None, msg: Expr | None) -> None:
        self.span = span
        self.id = next(node_ids)
        self.test = test
        self.cond = cond
        self.msg = msg


class SchemaStmt(Stmt):
    """``schema``/``mixin``/``protocol`` definitions (``kind`` says which)."""

    __slots__ = (
        "body",
        "checks",
        "decorators",
        "doc",
        "for_host",
        "index_signature",
        "kind",
        "mixins",
        "name",
        "name_span",
        "params",
        "parent",
    )
    _fields = (
        "decorators",
        "kind",
        "name",
        "params",
        "parent",
        "for_host",
        "mixins",
        "index_signature",
        "body",
        "checks",
    )

    def __init__(
        self,
        span: Span,
        kind: str,
        name: str,
        name_span: Span,
        *,
        params: list[Param] | None = None,
        parent: Expr | None = None,
        for_host: Expr | None = None,
        mixins: list[Expr] | None = None,
        index_signature: IndexSignature | None = None,
        body: list[Stmt] | None = None,
        checks: list[CheckExpr] | None = None,
        decorators: list[Decorator] | None = None,
        doc: str = "",
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.kind = kind  # "schema" | "mixin" | "protocol"
        self.name = name
        self.name_span = name_span
        self.params = params or []
        self.parent = parent
        self.for_host = for_host
        self.mixins = mixins or []
        self.index_signature = index_signature
        self.body = body or []
        self.checks = checks or []
        self.decorators = decorators or []
        self.doc = doc


class RuleStmt(Stmt):
    """``rule Name[params](Parents) for Host: checks``."""

    __slots__ = (
        "checks",
        "decorators",
        "doc",
        "for_host",
        "name",
        "name_span",
        "params",
        "parents",
    )
    _fields = ("decorators", "name", "params", "parents", "for_host", "checks")

    def __init__(
        self,
        span: Span,
        name: str,
        name_span: Span,
        *,
        params: list[Param] | None = None,
        parents: list[Expr] | None = None,
        for_host: Expr | None = None,
        checks: list[CheckExpr] | None = None,
        decorators: list[Decorator] | None = None,
        doc: str = "",
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.name = name
        self.name_span = name_span
        self.params = params or []
        self.parents = parents or []
        self.for_host = for_host
        self.checks = checks or []
        self.decorators = decorators or []
        self.doc = doc


class Comment:
    """A ``# ...`` comment, kept beside the tree for the formatter."""

    __slots__ = ("span", "text")

    def __init__(self, span: Span, text: str) -> None:
        self.span = span
        self.text = text

    def __repr__(self) -> str:
        return f"Comment({self.text!r})"


class Module(Node):
    """One parsed file."""

    __slots__ = ("body", "comments", "doc", "file")
    _fields = ("body",)

    def __init__(
        self, span: Span, file: SourceFile, body: list[Stmt], comments: list[Comment], doc: str = ""
    ) -> None:
        self.span = span
        self.id = next(node_ids)
        self.file = file
        self.body = body
        self.comments = comments
        self.doc = doc


AnyNode = Node | Comment


# --------------------------------------------------------------------------- literals

NOT_LITERAL: Any = object()
"""What :func:`plain_literal` gives for any other node."""


def plain_literal(node: Node) -> Any:
    """The value of a literal that is its value and nothing more: a number without a
    unit suffix, a string without interpolation, True, False or None (not Undefined);
    else ``NOT_LITERAL``. The compiler makes constants of them; the checker types
    them by their value."""
    if isinstance(node, NumberExpr):
        return NOT_LITERAL if node.suffix else node.value
    if isinstance(node, StringExpr):
        return node.value
    if isinstance(node, ConstExpr) and not isinstance(node.value, str):  # "Undefined"
        return node.value
    return NOT_LITERAL


def plain_literals(items: list[Expr]) -> tuple[Any, ...] | None:
    """The values of ``items`` when every one is a :func:`plain_literal`; else None."""
    values: list[Any] = []
    for item in items:
        value = plain_literal(item)
        if value is NOT_LITERAL:
            return None
        values.append(value)
    return tuple(values)
