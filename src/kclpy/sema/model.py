"""The semantic model of a checked program: what tools query.

``check_program`` returns a :class:`Model`. It keeps, keyed by AST node id, the
type of every expression, (``resolution``) the binding of every name use and
(``type_resolution``) what every type name denotes, both filled by
``sema.resolve``; the declarations the bindings point at (``declarations`` by
declaring node, ``package_names`` per package, ``schema_members`` per schema,
``builtin_names``), which the checker decorates with its symbols; (``completed``)
the uses only the checker can bind: an attribute selection, a config key matched to
a schema attribute, a type name, a name the checker found elsewhere than its
binding's declaration (a base's or a mixin's attribute) or left undefined, and the
symbol each definition statement makes; and (``visible``) the declarations visible
at the uses of undefined names (for suggestions) and, for editors
(``keep_scopes``), around each region (``regions``: ``names_at``); the schemas by
full name; the checked modules by file (of a file two packages hold, its home
package's tree: ``Program.homes``); and the diagnostics.

A use is a node: its symbol is the checker's completion, else its binding's
declaration's (``symbol_of``). The positions of a file's definitions and uses
(``occurrences``, ``symbol_at``) and a symbol's uses in the program
(``references``) are read off the modules' nodes when first asked, not recorded
while checking. The language server, lint and ``kcl doc`` are built on it: a
package's names are its declarations the checker decorated (``package_symbols``),
the names around a position the resolver's declarations there (``names_at``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Mapping

from kclpy.diag import Diagnostic
from kclpy.sema.bindings import Binding, TypeBinding
from kclpy.sema.builtins import BUILTIN_FUNCTIONS
from kclpy.sema.symbols import (
    MAIN,
    Declaration,
    DeclarationKind,
    SchemaInfo,
    SchemaType,
    Symbol,
    SymbolKind,
)
from kclpy.sema.types import Type
from kclpy.sema.upgrade import upgrade_dict_to_schema
from kclpy.source import Pos, SourceFile, Span

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kclpy.syntax import ast


class Model:
    """Bindings, types, scopes, schemas and diagnostics of one checked program."""

    def __init__(self, keep_scopes: bool = False, tool_facts: bool = True) -> None:
        self.diagnostics: list[Diagnostic] = []
        # with tool_facts False (a run), the checker completes no uses: only editors
        # and tools ask for them
        self.tool_facts = tool_facts
        self.types: dict[int, Type] = {}
        # per dict or list expression walked under an expected type, that type: the
        # expression's type is the dict upgraded to the schema, worked out when asked
        self.expected: dict[int, Type] = {}
        # per use the resolver's binding does not name (see the module docstring), the
        # checker's symbol of it (None: the checker found the name undefined there)
        self.completed: dict[int, Symbol | None] = {}
        # per name use, where its value lives at run time (filled by sema.resolve)
        self.resolution: dict[int, Binding] = {}
        # per type name use, what it denotes (filled by sema.resolve)
        self.type_resolution: dict[int, TypeBinding] = {}
        # the declarations bindings point at: by declaring node (locals, config keys),
        # per package (its names), per schema node (its members), the builtins
        self.declarations: dict[int, Declaration] = {}
        self.packages_names: dict[str, dict[str, Declaration]] = {}
        self.schema_members: dict[int, dict[str, Declaration]] = {}
        # per schema node, each name its body sets and the node first setting it (the
        # resolver's ``left_identifiers``, once; the checker reads it)
        self.schema_assigned: dict[int, dict[str, ast.Node]] = {}
        self.builtin_names = {
            name: Declaration(DeclarationKind.BUILTIN, name) for name in BUILTIN_FUNCTIONS
        }
        # per use of an undefined name (and per name of a schema parameter's default),
        # the declarations visible there but the package's and the builtins' (config
        # keys by name): what the checker suggests
        self.visible: dict[int, list[Declaration | str]] = {}
        # for editors (keep_scopes), per package: each region's node and declarations
        self.regions: dict[str, list[tuple[ast.Node, list[Declaration]]]] = {}
        self.schemas: dict[str, SchemaInfo] = {}
        self.keep_scopes = keep_scopes
        # the packages whose declarations a store of checked packages holds (stored or
        # reused: sema.interface), shared with other programs: never cleared here
        self.shared: set[str] = set()
        # the checked modules, by file path, with their files and packages: of a file
        # two packages hold, its home's (``homes``: ``Program.homes``) tree only
        self.files: dict[str, SourceFile] = {}
        self.modules: dict[str, ast.Module] = {}
        self.owners: dict[str, str] = {}
        self.homes: Mapping[str, str] = {}
        # per file, when first asked: its definitions and uses, and their starts
        self._sorted: dict[str, list[tuple[int, int, Symbol]]] = {}
        self._starts: dict[str, list[int]] = {}

    # ------------------------------------------------------------------ filling

    def package_names(self, pkgpath: str) -> dict[str, Declaration]:
        """The declarations of a package's names (variables, definitions, imports)."""
        names = self.packages_names.get(pkgpath)
        if names is None:
            names = self.packages_names[pkgpath] = {}
        return names

    def hold(self, pkgpath: str, modules: Iterable[ast.Module]) -> None:
        """Take a package's modules (checked, or reused from a store) as the trees of
        their files, but a file whose home is another package."""
        homes = self.homes
        for module in modules:
            path = module.file.path
            if homes and homes.get(path, pkgpath) != pkgpath:
                continue
            self.files[path] = module.file
            self.modules[path] = module
            self.owners[path] = pkgpath

    def drop_tool_facts(self) -> None:
        """Forget, in place, what only tools query: per-node types, the checker's
        completed uses, the symbols of the declarations and the schemas. A run does
        this once checked, before compiling: the compiler reads only ``resolution``
        and ``type_resolution``, and on big inputs these tables were a third of the
        peak memory."""
        self.types.clear()
        self.expected.clear()
        self.completed.clear()
        if not self.shared:  # (else a store keeps the symbols anyway)
            tables: list[dict[Any, Declaration]] = [self.declarations, self.builtin_names]
            tables.extend(self.packages_names.values())
            tables.extend(self.schema_members.values())
            for table in tables:
                for declaration in table.values():
                    declaration.symbol = None
        self.visible.clear()
        self.schema_assigned.clear()
        self.schemas.clear()
        self.modules.clear()
        self._sorted.clear()
        self._starts.clear()

    # ------------------------------------------------------------------ queries

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.diagnostics)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]

    def type_of(self, node: ast.Node) -> Type | None:
        """The type the checker inferred for an expression (None if never reached); a
        dict walked where a schema is expected has the schema's type."""
        found = self.types.get(node.id)
        expected = self.expected.get(node.id)
        if found is None or expected is None:
            return found
        return upgrade_dict_to_schema(found, expected)

    def symbol_of(self, node: ast.Node) -> Symbol | None:
        """The symbol a use (a name, an attribute selection, a config key, a type name)
        refers to, or a definition statement makes: the checker's completion, else its
        binding's declaration's, else the declaration the node makes."""
        completed = self.completed
        if node.id in completed:
            return completed[node.id]
        return self.resolved_symbol(node)

    def resolved_symbol(self, node: ast.Node) -> Symbol | None:
        """The symbol the resolver's facts give a node: a type name's declaration (of a
        one-part name), a name use's binding's, the declaration the node makes."""
        key = node.id
        typed = self.type_resolution.get(key)
        if typed is not None:  # (the declaration of its first part: ``k8s`` of ``k8s.Pod``)
            declaration = typed.declaration if "." not in typed.name else None
            return declaration.symbol if declaration is not None else None
        binding = self.resolution.get(key)
        if binding is not None:
            return binding.symbol()
        declaration = self.declarations.get(key)
        return declaration.symbol if declaration is not None else None

    def symbol_at(self, path: str, pos: Pos | tuple[int, int]) -> Symbol | None:
        """The symbol defined or used at a 1-based ``(line, col)`` of a file."""
        items = self._sorted_occurrences(path)
        if not items:
            return None
        offset = self._offset(path, pos)
        if offset is None:
            return None
        starts = self._starts[path]
        index = bisect_right(starts, offset) - 1
        best: Symbol | None = None
        best_width = -1
        while index >= 0:
            start, end, symbol = items[index]
            if start <= offset < max(end, start + 1):
                width = end - start
                if best is None or width < best_width:
                    best, best_width = symbol, width
            if offset - start > 4096:
                break
            index -= 1
        return best

    def references(self, symbol: Symbol, include_definition: bool = True) -> list[Span]:
        """Where the symbol is used (and defined) in this program: the uses whose
        symbol it is, file by file in checking order (its own package before the
        packages above it), each file's in source order. Only files spelling its name
        are read (a use spells the name it uses)."""
        spans: list[Span] = []
        own = symbol.span
        if include_definition and own is not None:
            spans.append(own)
        name = symbol.name
        for path, module in self.modules.items():
            if name not in module.file.text:
                continue
            file = module.file
            for start, end, found in self._sorted_occurrences(path):
                if found is symbol and (
                    own is None or start != own.start or end != own.end or file is not own.file
                ):
                    spans.append(Span(file, start, end))
        return spans

    def schema(self, name: str, pkgpath: str = MAIN) -> SchemaInfo | None:
        """A schema by name in a package (``pkg.Name`` full names work too)."""
        if pkgpath == MAIN:
            found = self.schemas.get(name)
            if found is not None:
                return found
        return self.schemas.get(f"{pkgpath}.{name}")

    def members(self, target: str | SchemaInfo | Type) -> dict[str, Symbol]:
        """Every attribute of a schema (base attributes first, mixin attributes included)."""
        info = self._info(target)
        return info.all_attrs() if info is not None else {}

    def doc(self, symbol: Symbol) -> str:
        """The documentation of a symbol: a schema's summary, an attribute's description
        (editors and ``kcl doc`` ask; a run never does, so docstrings load here)."""
        if symbol.doc:
            return symbol.doc
        from kclpy.sema.docstrings import attribute_docs, summary

        owner = symbol.owner
        if symbol.kind == SymbolKind.ATTRIBUTE and owner is not None:
            return attribute_docs(owner.doc).get(symbol.name, "")
        if symbol.kind in (SymbolKind.SCHEMA, SymbolKind.RULE):
            node = symbol.node
            text = getattr(node, "doc", "") if node is not None else ""
            return summary(text if isinstance(text, str) else "")
        return ""

    def occurrences(self, path: str) -> list[tuple[int, int, Symbol]]:
        """Every definition and use in a file as ``(start, end, symbol)``, in order."""
        return list(self._sorted_occurrences(path))

    def packages(self) -> list[str]:
        """The checked packages' paths (``__main__`` and the packages in the order the
        reference starts checking them, then the others)."""
        return list(self.packages_names)

    def package_symbols(self, pkgpath: str = MAIN) -> dict[str, Symbol]:
        """A package's names the checker defined, with their symbols."""
        names = self.packages_names.get(pkgpath)
        if names is None:
            return {}
        return {name: found.symbol for name, found in names.items() if found.symbol is not None}

    def names_at(self, path: str, offset: int, pkgpath: str = MAIN) -> list[tuple[Symbol, bool]]:
        """The names visible at an offset of a file of a package, innermost first, each
        with whether it is the package's (regions only when checked with
        ``keep_scopes``): the declarations of the regions around the offset the checker
        decorated, then the package's names; no builtins."""
        around: list[tuple[int, list[Declaration]]] = []
        for node, declared in self.regions.get(pkgpath, ()):
            span = node.span
            if span.file.path == path and span.start <= offset <= span.end:
                around.append((span.end - span.start, declared))
        around.sort(key=lambda item: item[0])
        found: list[tuple[Symbol, bool]] = []
        for _width, declared in around:
            found.extend((d.symbol, False) for d in declared if d.symbol is not None)
        found.extend((symbol, True) for symbol in self.package_symbols(pkgpath).values())
        return found

    # ------------------------------------------------------------------ helpers

    def _info(self, target: str | SchemaInfo | Type) -> SchemaInfo | None:
        if isinstance(target, SchemaInfo):
            return target
        if isinstance(target, SchemaType):
            return target.info
        if isinstance(target, str):
            return self.schemas.get(target)
        return None

    def _sorted_occurrences(self, path: str) -> list[tuple[int, int, Symbol]]:
        items = self._sorted.get(path)
        if items is None:
            module = self.modules.get(path)
            found = file_occurrences(self, module) if module is not None else []
            items = sorted(set(found), key=lambda item: (item[0], -item[1]))
            self._sorted[path] = items
            self._starts[path] = [item[0] for item in items]
        return items

    def _offset(self, path: str, pos: Pos | tuple[int, int]) -> int | None:
        file = self.files.get(path)
        if file is None:
            return None
        line, col = pos
        return file.offset(line, col)


def file_occurrences(model: Model, module: ast.Module) -> list[tuple[int, int, Symbol]]:
    """Every definition and use in a module as ``(start, end, symbol)``: each node's
    symbol (``Model.symbol_of``) at the symbol's own span when the node holds it (a
    definition), else at the node's (a selection's at its attribute name)."""
    from kclpy.syntax import ast  # (not at import: ``kcl run`` never asks)
    from kclpy.syntax.walk import walk

    found: list[tuple[int, int, Symbol]] = []
    for node in walk(module):
        symbol = model.symbol_of(node)
        if symbol is None:
            continue
        span = node.span
        own = symbol.span
        if (
            own is not None
            and own.file is span.file
            and span.start <= own.start <= own.end <= span.end
        ):
            found.append((own.start, own.end, symbol))
        elif type(node) is ast.SelectorExpr and span.end - span.start > len(node.attr):
            found.append((span.end - len(node.attr), span.end, symbol))
        else:
            found.append((span.start, span.end, symbol))
    return found
