"""The resolver: the run-time binding of every name use (``Model.resolution``).

Each program marks its lines with ``# B: name=binding ...``: every use of ``name``
on that line must have that binding. Bindings are written ``local`` (``local+1``:
one code unit out), ``global``, ``import:pkgpath``, ``builtin``, ``undefined``,
prefixed ``schema/`` when the schema's attribute is looked up first (an
``ATTRIBUTE`` binding) and ``key/`` when a sibling config key is (``CONFIG_KEY``).
"""

from __future__ import annotations

import re

import pytest

from kclpy.api import run
from kclpy.loader import Program
from kclpy.sema import Model, SymbolKind, check_program, resolve_program
from kclpy.sema.bindings import Binding, BindingKind
from kclpy.syntax import ast, parse_source
from kclpy.syntax.walk import walk

KINDS = {
    BindingKind.LOCAL: "local",
    BindingKind.GLOBAL: "global",
    BindingKind.IMPORT: "import",
    BindingKind.BUILTIN: "builtin",
    BindingKind.UNDEFINED: "undefined",
}

PROGRAMS = {
    "package": """\
import math
a = 1
b = a + len([1])  # B: a=global len=builtin
c = math.pow(b, 2)  # B: math=import:math b=global
d = nowhere  # B: nowhere=undefined
""",
    "loops": """\
x = 10
l = [x * y for x in range(3) for y in [x]]  # B: x=local y=local range=builtin
q = all x in l { x > 0 }  # B: x=local l=global
m = {k: v for k, v in {a = x}}  # B: k=local v=local x=global
after = x  # B: x=global
""",
    "config_keys": """\
a = 1
c = {a = 2, b = a}  # B: a=key/global
d = [{k = v} for k, v in {x = 1}]  # B: k=local v=local
e = {b = a, a = 3}  # B: a=global
""",
    "schema": """\
n = 1
schema S[p]:
    v: int = p + n + w  # B: p=local n=schema/global w=schema/undefined
    f = lambda y { y + p + n }  # B: y=local p=local+1 n=schema/global
    [k: str]: int = len(k)  # B: k=local
    check:
        k != "", "{}".format(v)  # B: k=local v=schema/undefined
""",
    "lambda": """\
g = 5
f = lambda x {
    z = x + g  # B: x=local g=global
    z = z + 1  # B: z=local
    h = lambda { z + x }  # B: z=local+1 x=local+1
    h()  # B: h=local
}
""",
}


def descriptor(binding: Binding) -> str:
    fallback = binding.fallback
    if binding.kind == BindingKind.CONFIG_KEY and fallback is not None:
        return "key/" + descriptor(fallback)
    if binding.kind == BindingKind.ATTRIBUTE and fallback is not None:
        return "schema/" + descriptor(fallback)
    text = KINDS[binding.kind]
    if binding.kind == BindingKind.LOCAL and binding.depth:
        text += f"+{binding.depth}"
    if binding.kind == BindingKind.IMPORT:
        text += f":{binding.pkgpath}"
    return text


def resolve_text(text: str, check: bool = False) -> tuple[Model, ast.Module]:
    module, diagnostics = parse_source(text, "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    for stmt in module.body:
        if isinstance(stmt, ast.ImportStmt):
            program.imports.setdefault(module.id, {})[stmt.path.split(".")[-1]] = stmt.path
    return (check_program(program) if check else resolve_program(program)), module


def expectations(text: str) -> list[tuple[int, str, str]]:
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        marker = re.search(r"# B: (.*)$", line)
        if marker:
            for item in marker.group(1).split():
                name, _, expected = item.partition("=")
                found.append((number, name, expected))
    return found


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_bindings_as_marked(name: str) -> None:
    text = PROGRAMS[name]
    model, module = resolve_text(text)
    uses: dict[tuple[int, str], list[str]] = {}
    for node in walk(module):
        if isinstance(node, ast.NameExpr) and node.id in model.resolution:
            line = node.span.file.pos(node.span.start).line
            uses.setdefault((line, node.name), []).append(descriptor(model.resolution[node.id]))
    marks = expectations(text)
    assert marks
    for line, use, expected in marks:
        assert uses.get((line, use)), f"line {line}: no use of {use} resolved"
        assert set(uses[(line, use)]) == {expected}, f"line {line}: {use}"


def positions(model: Model, module: ast.Module) -> dict[tuple[int, str], str]:
    """Each resolved name use as ``(offset, name) -> descriptor``."""
    return {
        (node.span.start, node.name): descriptor(model.resolution[node.id])
        for node in walk(module)
        if isinstance(node, ast.NameExpr) and node.id in model.resolution
    }


def test_check_program_resolves_as_resolve_program_does() -> None:
    for text in PROGRAMS.values():
        alone = positions(*resolve_text(text))
        checked = positions(*resolve_text(text, check=True))
        assert alone and alone == checked


def test_uses_that_resolve_alike_share_one_binding() -> None:
    model, module = resolve_text("a = 1\nb = [a, a, a]\n")
    uses = [node for node in walk(module) if isinstance(node, ast.NameExpr) and node.name == "a"]
    assert len(uses) == 4
    assert len({id(model.resolution[node.id]) for node in uses}) == 1


def test_without_type_checks_names_are_still_resolved() -> None:
    result = run("a = nowhere\n", check=False)
    assert [d.message for d in result.diagnostics] == ["name 'nowhere' is not defined"]
    result = run("f = lambda x {\n    y = x + 1\n    y * 2\n}\nv = f(2)\n", check=False)
    assert result.ok and result.text == "v: 6\n"


# ---------------------------------------------------------------------- the checker's reads
# The checker takes the symbol of every name it reads from the name's binding: these
# programs read names of every kind (and in every place a binding kind can point).

READS = {
    "locals": """\
schema S[p: int]:
    [k: str]: int = len(k)
    v: int = p
    check:
        k != ""
        p > 0
l = [x * y for x in range(3) for y in [x]]
q = all x in l { x > 0 }
d = {k: v for k, v in {a = 1}}
f = lambda a: int, b = 2 {
    z = a + b
    z = z + 1
    g = lambda { z + a }
    g()
}
""",
    "package": """\
import math
import units
n = later + 1
later = 2
c = math.pow(n, 2)
t: units.NumberMultiplier = 1Mi
schema P:
    name: str = "p"
p: P = P {}
m = len([n, c])
""",
    "schema": """\
n = 1
schema Base:
    inherited: int = n
schema S(Base):
    own: int = inherited + n
    local = own + 1
    copy: int = local
    [...str]: int
""",
    "configs": """\
a = "outer"
c = {a = 2, b = a, nested = {d = a}}
e = {b = a, a = 3}
""",
}

BINDING_OF_SYMBOL = {
    SymbolKind.MODULE: {BindingKind.IMPORT},
    SymbolKind.BUILTIN: {BindingKind.BUILTIN},
}


def name_reads(module: ast.Module) -> list[ast.NameExpr]:
    """The names a program reads: every ``NameExpr`` but the roots of assignment targets."""
    stores = set()
    for node in walk(module):
        if isinstance(node, ast.AssignStmt):
            stores.update(id(target) for target in node.targets)
    return [
        node for node in walk(module) if isinstance(node, ast.NameExpr) and id(node) not in stores
    ]


def wrong_symbols(model: Model, module: ast.Module) -> list[str]:
    """Reads whose checker symbol is not the one their binding names."""
    package = model.package_symbols("__main__")
    found: list[str] = []
    for node in name_reads(module):
        binding = model.resolution.get(node.id)
        if binding is None:
            continue  # a literal config key, a schema's name in its own statement
        symbol = model.symbol_of(node)
        dynamic = binding.kind == BindingKind.ATTRIBUTE
        if dynamic and binding.fallback is not None:
            binding = binding.fallback
        if binding.kind == BindingKind.CONFIG_KEY:
            ok = symbol is not None and symbol.kind == SymbolKind.CONFIG_KEY
        elif binding.kind == BindingKind.UNDEFINED:
            ok = symbol is None or dynamic
        elif binding.kind == BindingKind.LOCAL:
            declaration = binding.declaration
            ok = symbol is not None and declaration is not None
            ok = ok and symbol is declaration.symbol and symbol.node is declaration.node
        elif dynamic and symbol is not None and symbol.kind == SymbolKind.ATTRIBUTE:
            ok = True  # the schema's attribute first
        elif binding.kind == BindingKind.BUILTIN:
            ok = symbol is not None and symbol.kind == SymbolKind.BUILTIN
        else:
            ok = symbol is not None and symbol is package.get(node.name)
        if not ok:
            where = node.span.file.pos(node.span.start)
            found.append(f"{where} {node.name}: {binding!r} -> {symbol!r}")
    return found


@pytest.mark.parametrize("name", sorted(READS))
def test_each_read_takes_the_symbol_its_binding_names(name: str) -> None:
    model, module = resolve_text(READS[name], check=True)
    assert [d.message for d in model.diagnostics] == []
    assert len(name_reads(module)) > 5
    assert wrong_symbols(model, module) == []


def test_the_kinds_of_symbols_read() -> None:
    model, module = resolve_text(READS["package"], check=True)
    kinds = {
        node.name: symbol.kind
        for node in name_reads(module)
        if (symbol := model.symbol_of(node)) is not None
    }
    assert kinds["math"] == SymbolKind.MODULE and kinds["len"] == SymbolKind.BUILTIN
    assert kinds["later"] == SymbolKind.VARIABLE  # defined after its use
    model, module = resolve_text(READS["schema"], check=True)
    reads = {node.name: model.symbol_of(node) for node in name_reads(module)}
    inherited, local = reads["inherited"], reads["local"]
    assert inherited is not None and inherited.kind == SymbolKind.ATTRIBUTE
    assert local is not None and local.kind == SymbolKind.VARIABLE
    assert reads["n"] is model.package_symbols("__main__")["n"]


UNDEFINED = {
    "package": ("abcd = 1\nb = abce\n", "abce", '["abcd"]'),
    "lambda": ("f = lambda value {\n    valeu + 1\n}\n", "valeu", '["value"]'),
    "schema": ("schema S:\n    count: int = 1\n    total: int = cuont\n", "cuont", '["count"]'),
    "type": ("schema Person:\n    name?: str\np: Persn = Person {}\n", "Persn", '["Person"]'),
    "loop": ("l = [itme for item in [1]]\n", "itme", '["item"]'),
    "module": ("import math\nx = mth.log(1)\n", "mth", '["math"]'),
    "config": ("x = {alpha = 1, beta = alpah}\n", "alpah", '["alpha"]'),
    "no suggestion": ("a = zzz\n", "zzz", ""),
}


@pytest.mark.parametrize("name", sorted(UNDEFINED))
def test_an_undefined_name_is_reported_once_with_suggestions(name: str) -> None:
    text, undefined, close = UNDEFINED[name]
    model, _ = resolve_text(text, check=True)
    hint = f", did you mean '{close}'?" if close else ""
    assert [d.message for d in model.diagnostics] == [f"name '{undefined}' is not defined{hint}"]


def test_a_key_named_as_a_loop_variable_outside_its_lambda() -> None:
    # the run time takes the key literally (a KEY binding); the reference's checker,
    # and this one, type it as the loop variable
    text = "l = [lambda {\n    {k = 1}\n} for k in [1]]\n"
    model, module = resolve_text(text, check=True)
    key, loop = (n for n in walk(module) if isinstance(n, ast.NameExpr) and n.name == "k")
    binding = model.resolution[key.id]
    assert binding.kind == BindingKind.KEY and binding.declaration is not None
    assert binding.declaration.node is loop
    assert [d.message for d in model.diagnostics] == ["A attribute must be string type, got 'int'"]
    result = run(text.replace("[1]", '["a"]') + "m = [l[0]()]\n")
    assert result.ok and "- k: 1" in result.text


def test_an_import_the_loader_did_not_find_is_still_an_import() -> None:
    # the loader reports the missing package; the name means the import all the same
    module, diagnostics = parse_source("import nosuch\nx = nosuch.a\n", "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    model = check_program(program)
    assert [d.message for d in model.diagnostics] == []
    use = [n for n in walk(module) if isinstance(n, ast.NameExpr) and n.name == "nosuch"]
    assert [model.resolution[n.id].kind for n in use] == [BindingKind.IMPORT]
    symbol = model.symbol_of(use[0])
    assert symbol is not None and symbol.kind == SymbolKind.MODULE


def test_a_key_of_an_if_block_is_a_sibling_at_run_time_only() -> None:
    # the run time looks the key up in the whole literal; the checker (as the
    # reference's) sees the keys of the ``if`` block inside the block only
    text = "c = True\nx = {\n    if c:\n        a = 1\n        d = a\n    b = a\n}\n"
    model, module = resolve_text(text, check=True)
    inside, after = (
        n
        for n in walk(module)
        if isinstance(n, ast.NameExpr) and n.name == "a" and n.id in model.resolution
    )
    for read in (inside, after):
        binding = model.resolution[read.id]
        assert binding.kind == BindingKind.CONFIG_KEY
        assert binding.fallback is not None and binding.fallback.kind == BindingKind.UNDEFINED
    declaration = model.resolution[inside.id].declaration
    assert declaration is not None and declaration.symbol is not None
    assert declaration.symbol.kind == SymbolKind.CONFIG_KEY
    assert model.resolution[after.id].declaration is None
    assert [d.message for d in model.diagnostics] == ["name 'a' is not defined"]


# the suggestions are the declarations the resolver saw visible at the use that the
# checker has reached: a lambda's locals so far, the keys of the enclosing literals
# and ``if`` blocks (not a block's keys after it), loop variables, schema members
VISIBLE = {
    "lambda": (
        "f = lambda x {\n    alpha = 1\n    alphb + x\n}\nv = f(1)\n",
        ["name 'alphb' is not defined, did you mean '[\"alpha\"]'?"],
    ),
    "config blocks": (
        "c = {\n    apple = 1\n    banana = appel\n    cherry = {\n        date = bannana\n"
        "    }\n    if True:\n        elder = 1\n        fig = eldr\n    grape = eldre\n}\n",
        [
            "name 'appel' is not defined, did you mean '[\"apple\"]'?",
            "name 'bannana' is not defined, did you mean '[\"banana\"]'?",
            "name 'eldr' is not defined, did you mean '[\"elder\"]'?",
            "name 'eldre' is not defined",
        ],
    ),
    "loops": (
        "xs = [itme for item in [1, 2] if iten > 0]\nzs = all ii in [1] {ij > 0}\n",
        [
            "name 'iten' is not defined, did you mean '[\"item\"]'?",
            "name 'itme' is not defined, did you mean '[\"item\"]'?",
            "name 'ij' is not defined",
        ],
    ),
    "a key in a lambda": (
        "c = {\n    apple = 1\n    f = lambda { appel }\n}\n",
        ["name 'appel' is not defined, did you mean '[\"apple\"]'?"],
    ),
    "schema members": (
        "schema S:\n    count: int = 1\n    other = cuont\n    [key: str]: int\n"
        "    check:\n        kye\ns = S{}\n",
        ["name 'cuont' is not defined, did you mean '[\"count\"]'?", "name 'kye' is not defined"],
    ),
    "type names": (
        'schema Person:\n    name: str\np: Persn = Person{name = "a"}\n',
        ["name 'Persn' is not defined, did you mean '[\"Person\"]'?"],
    ),
}


@pytest.mark.parametrize("name", sorted(VISIBLE))
def test_suggestions_come_from_the_declarations_visible_at_the_use(name: str) -> None:
    text, messages = VISIBLE[name]
    model, _ = resolve_text(text, check=True)
    assert [d.message for d in model.diagnostics] == messages


def test_an_editor_lists_the_names_declared_around_a_position() -> None:
    text = "top = 1\nc = {\n    apple = 1\n    f = lambda x {\n        y = x\n        y\n    }\n}\n"
    module, diagnostics = parse_source(text, "main.k")
    assert not diagnostics
    program = Program("")
    program.packages["__main__"] = [module]
    model = check_program(program, keep_scopes=True)
    inside = text.index("        y\n") + 8  # in the lambda's body
    names = [(symbol.name, package) for symbol, package in model.names_at("main.k", inside)]
    local = [("x", False), ("y", False), ("apple", False), ("f", False)]
    assert names == [*local, ("top", True), ("c", True)]
    outside = text.index("top")
    assert [symbol.name for symbol, _ in model.names_at("main.k", outside)] == ["top", "c"]
    assert check_program(program).regions == {}  # (a run keeps none)
