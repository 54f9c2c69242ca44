"""Schema docstrings: the summary and the per-attribute descriptions.

The convention (as ``kcl doc`` reads it): a summary paragraph, then sections
headed by a title line and a dashed underline. The ``Attributes`` section lists
``name : type, default is X, optional|required`` lines, each followed by an
indented description. Parsing is lazy (only when a tool asks), so checking
large model libraries does not pay for it.
"""

from __future__ import annotations

from functools import lru_cache

_SECTIONS = ("attributes", "examples", "see also", "notes", "references", "methods")


def _clean_lines(doc: str) -> list[str]:
    text = doc.strip().strip('"').strip("'")
    lines = text.splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()]
    cut = min(indents) if indents else 0
    return [lines[0].strip()] + [line[cut:].rstrip() for line in lines[1:]] if lines else []


def summary(doc: str) -> str:
    """The first paragraph of a docstring (before any section)."""
    out: list[str] = []
    for line in _clean_lines(doc):
        if not line.strip():
            if out:
                break
            continue
        if line.strip().lower() in _SECTIONS:
            break
        out.append(line.strip())
    return " ".join(out)


@lru_cache(maxsize=256)
def attribute_docs(doc: str) -> dict[str, str]:
    """``{attribute name: description}`` from the ``Attributes`` section."""
    lines = _clean_lines(doc)
    result: dict[str, str] = {}
    in_section = False
    current: str | None = None
    for index, line in enumerate(lines):
        stripped = line.strip()
        is_title = index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}
        if is_title:
            in_section = stripped.lower() == "attributes"
            current = None
            continue
        if not in_section or set(stripped) == {"-"}:
            continue
        if stripped and not line.startswith((" ", "\t")):
            current = stripped.split(":", 1)[0].strip().strip("$")
            result.setdefault(current, "")
        elif current is not None and (stripped or result[current]):
            previous = result[current]
            result[current] = f"{previous}\n{stripped}" if previous else stripped
    return {name: text.strip("\n") for name, text in result.items()}


def description(doc: str) -> str:
    """Every line before the first section, joined by spaces (a blank line between
    paragraphs leaves two), as ``kcl doc`` prints a schema's description."""
    lines = _clean_lines(doc)
    out: list[str] = []
    for index, line in enumerate(lines):
        if index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}:
            break
        out.append(line.strip())
    return " ".join(out).strip()
