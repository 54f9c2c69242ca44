"""No import circles in kclpy and kclpy_lsp, TYPE_CHECKING imports and imports inside
functions included (issue 33).

The import graph is grimp's (what import-linter reads); a circle is a strongly
connected component of more than one module. A circle is reported with its modules
and one cycle through them, each step with the line that imports. Break one by moving
the shared piece to the module that owns it, or by passing what is needed in; an
import moved into a function, or under TYPE_CHECKING, is still an import here.

"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

grimp = pytest.importorskip("grimp", reason="grimp (a dependency of import-linter) is needed")

PACKAGES = ("kclpy", "kclpy_lsp")


def circles(modules: Iterable[str], imports: Callable[[str], set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    with an explicit stack), each sorted, in sorted order."""
    index: dict[str, int] = {}
    lowest: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        index[root] = lowest[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(imports(root))))]
        while work:
            module, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = lowest[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(imports(target)))))
                elif target in on_stack:
                    lowest[module] = min(lowest[module], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowest[parent] = min(lowest[parent], lowest[module])
            if lowest[module] == index[module]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def describe(graph: grimp.ImportGraph, component: list[str]) -> str:
    """The component's modules and one cycle through its first module, with the lines."""
    members = set(component)
    first = component[0]
    after = min(graph.find_modules_directly_imported_by(first) & members)
    back = graph.find_shortest_chain(importer=after, imported=first)
    assert back is not None  # within a strongly connected component
    cycle = [first, *back]
    steps = []
    for importer, imported in itertools.pairwise(cycle):
        details = graph.get_import_details(importer=importer, imported=imported)
        where = ", ".join(f"line {d['line_number']}: {d['line_contents']}" for d in details)
        steps.append(f"    {importer} -> {imported}  ({where})")
    return f"  {len(component)} modules: {' '.join(component)}\n" + "\n".join(steps)


def unexpected(graph: grimp.ImportGraph) -> list[list[str]]:
    """The circles of ``graph`` that lie inside no allowed circle."""
    return circles(graph.modules, graph.find_modules_directly_imported_by)


def test_no_import_circles() -> None:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    found = unexpected(graph)
    report = "\n".join(describe(graph, component) for component in found)
    assert not found, f"import circles (TYPE_CHECKING and function-level imports count):\n{report}"


def test_a_circle_through_type_checking_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check sees a circle closed only by a TYPE_CHECKING import and one closed
    only by an import inside a function, and says where each import is."""
    package = tmp_path / "circled"
    package.mkdir()
    files = {
        "__init__.py": "",
        "record.py": """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from circled.render import Renderer
        """,
        "render.py": "from circled.record import Record\n",
        "alone.py": "import circled.record\n",
        "lazy.py": """
            def later():
                from circled.eager import value
                return value
        """,
        "eager.py": "from circled.lazy import later\n",
    }
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circled", cache_dir=None)
    found = unexpected(graph)
    assert found == [
        ["circled.eager", "circled.lazy"],
        ["circled.record", "circled.render"],
    ]
    text = describe(graph, found[1])
    assert "circled.record -> circled.render  (line 4: from circled.render import Renderer)" in text
    assert "circled.render -> circled.record  (line 1: from circled.record import Record)" in text
