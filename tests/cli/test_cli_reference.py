"""docs/cli.md against the parsers: its generated section is what
``python -m kclpy.cli.reference`` prints now (``pytest --update-goldens`` writes it),
every option its hand-written tables name exists, and every command, subcommand and
option has its help, examples, exit codes and the -q/-v/--no_style options the page
promises."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from kclpy.cli.base import EXIT_CODES_HELP
from kclpy.cli.reference import BEGIN, END, arguments, markdown, splice, subcommands, walk

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
# the commands whose whole output is their result: a version, shell code, the LSP
# protocol (docs/cli.md says so next to its -q, -v and --no_style paragraph)
WITHOUT_STYLE_OPTIONS = ("kcl version", "kcl completion", "kcl lsp")
STYLE_OPTIONS = ("-q", "--quiet", "-v", "--verbose", "--no_style")


def test_the_generated_section_is_current(update_goldens: bool) -> None:
    document = DOCS.read_text(encoding="utf-8")
    current = splice(document, markdown())
    if update_goldens:
        DOCS.write_text(current, encoding="utf-8")
        document = DOCS.read_text(encoding="utf-8")
    assert BEGIN in document and END in document, "run pytest --update-goldens"
    assert document == current, (
        "docs/cli.md's generated section differs from the parsers: "
        "pytest tests/cli/test_cli_reference.py --update-goldens rewrites it"
    )


def test_splice_replaces_only_the_generated_section() -> None:
    document = f"# Title\n\ntext\n\n{BEGIN}\nold\n{END}\n\n## After\n"
    spliced = splice(document, f"{BEGIN}\nnew\n{END}\n")
    assert spliced == f"# Title\n\ntext\n\n{BEGIN}\nnew\n{END}\n\n## After\n"
    assert splice("# Title\n", f"{BEGIN}\nnew\n{END}\n") == f"# Title\n\n{BEGIN}\nnew\n{END}\n"


def _problems(name: str, parser: argparse.ArgumentParser) -> list[str]:
    problems = [
        "no help: " + "/".join(action.option_strings or [action.dest])
        for action in [*arguments(parser), *subcommands(parser)]
        if not action.help
    ]
    epilog = parser.epilog or ""
    problems += [f"no {part}" for part in ("examples:", "exit codes:") if part not in epilog]
    if EXIT_CODES_HELP not in epilog:
        problems.append("not the exit codes of kclpy.cli.base")
    if not subcommands(parser) and name not in WITHOUT_STYLE_OPTIONS:
        options = parser._option_string_actions
        problems += [f"missing {option}" for option in STYLE_OPTIONS if option not in options]
    return problems


def test_every_command_and_option_has_help_examples_exit_codes_and_style_options() -> None:
    found = {name: _problems(name, parser) for name, parser, _ in walk()}
    assert {name: problems for name, problems in found.items() if problems} == {}
    # the nested subcommands are walked too
    assert {"kcl mod add", "kcl registry login", "kcl kusion apply"} <= set(found)


def test_every_subcommand_has_a_help_line() -> None:
    assert [name for name, _, help in walk() if not help] == []


def test_the_checks_find_what_is_missing() -> None:
    bare = argparse.ArgumentParser(prog="kcl bare")
    bare.add_argument("--flag")
    assert _problems("kcl bare", bare) == [
        "no help: --flag",
        "no examples:",
        "no exit codes:",
        "not the exit codes of kclpy.cli.base",
        "missing -q",
        "missing --quiet",
        "missing -v",
        "missing --verbose",
        "missing --no_style",
    ]


def test_docs_name_the_commands_without_style_options() -> None:
    text = DOCS.read_text(encoding="utf-8").split(BEGIN)[0]
    paragraph = text[text.index("`-q`, `-v` and `--no_style` are on every command") :][:300]
    for name in WITHOUT_STYLE_OPTIONS:
        assert f"`{name.split()[1]}`" in paragraph


# -- the hand-written comparison tables --------------------------------------------

_OPTION = re.compile(r"(?<![\w/-])(--?[A-Za-z][\w-]*)")


def _options_by_command() -> dict[str, set[str]]:
    """Every option of every command's parser tree (``kcl mod`` holds its subcommands')."""
    options: dict[str, set[str]] = {}
    for name, parser, _ in walk():
        command = name.split()[1]
        options.setdefault(command, set()).update(parser._option_string_actions)
    return options


def _rows(text: str) -> list[tuple[str, list[str]]]:
    """``(section title, cells)`` of every table row of the hand-written part."""
    rows, title = [], ""
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:]
        elif line.startswith("|") and not set(line) <= set("|- "):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip("|"))]
            if cells[0] not in ("real CLI",):
                rows.append((title, cells))
    return rows


def _named(cell: str) -> list[str]:
    """The options a cell says kclpy has: those in its code spans, except in the
    clauses that say what kclpy lacks (``no ...``) or what the real CLI does."""
    found: list[str] = []
    for clause in re.sub(r"\(real:[^)]*\)", "", cell).split(";"):
        if re.match(r"\s*no\b", clause) or "not accepted" in clause:
            continue
        for span in re.findall(r"`([^`]*)`", clause):
            found += _OPTION.findall(span)
    return found


def _command(title: str, cells: list[str]) -> str:
    if title.startswith("`kcl "):
        return title.split()[1]
    first = cells[1] if cells[0] == "(none)" else cells[0]
    words = re.findall(r"`([a-z]+)", first)
    return words[0] if words else ""


def test_the_options_the_comparison_tables_name_exist() -> None:
    options = _options_by_command()
    missing = []
    rows = _rows(DOCS.read_text(encoding="utf-8").split(BEGIN)[0])
    assert len(rows) > 30
    for title, (real, status, notes) in rows:
        command = _command(title, [real, status, notes])
        if command not in options:  # plugins, the top-level -v
            continue
        cells = [status, notes] if status not in ("yes",) else [real, notes]
        for option in [name for cell in cells for name in _named(cell)]:
            if option not in options[command]:
                missing.append(f"{command} {option}")
    assert missing == []


def test_the_table_check_sees_a_missing_option() -> None:
    options = _options_by_command()
    assert "--watch-timeout" in options["kusion"] and "--git" in options["mod"]
    assert _named("`--select`, `--fix`; no `--template`, `--escape-html`") == [
        "--select",
        "--fix",
    ]
    assert _named("partial (real: `--vendor`)") == []
    assert "--no-such-option" not in options["run"]


@pytest.mark.parametrize("name", ["kcl mod add", "kcl kusion apply", "kcl registry login"])
def test_nested_help_shows_examples_and_exit_codes(name: str) -> None:
    parser = {found: parser for found, parser, _ in walk()}[name]
    text = parser.format_help()
    assert text.startswith(f"usage: {name} ")
    assert "examples:\n  kcl " in text and "exit codes:\n  0  success" in text
