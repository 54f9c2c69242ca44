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


def _is_section_start(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]`` is a section title: the next line underlines it with
    at least as many dashes (or equal signs)."""
    if index + 1 >= len(lines):
        return False
    title, rule = lines[index].strip(), lines[index + 1].strip()
    return rule.startswith("-" * len(title)) or rule.startswith("=" * len(title))


def _next_section(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines from ``start`` (past blank lines) up to the next section title: its
    paragraphs, one blank line between them; and where the next section begins."""
    index = start
    out: list[str] = []
    while True:
        while index < len(lines) and not lines[index].strip():
            index += 1
        if index >= len(lines) or (out and _is_section_start(lines, index)):
            return out, index
        if out:
            out.append("")
        while index < len(lines) and lines[index].strip():
            out.append(lines[index])
            index += 1


@lru_cache(maxsize=256)
def example(doc: str) -> str | None:
    """The docstring's example (its third part after the summary and the attributes,
    whatever their titles, without its title and underline), as kcl-lib reads it;
    None when the docstring has no third part."""
    lines = _clean_lines(doc.replace("\t", "    "))
    while lines and not lines[-1].strip():
        lines.pop()
    index = 0
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index < len(lines) and not _is_section_start(lines, index):
        _, index = _next_section(lines, index)  # the summary
    _, index = _next_section(lines, index)  # the attributes
    section, index = _next_section(lines, index)
    if not section:
        return None
    return "\n".join(section[2:])
