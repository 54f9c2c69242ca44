"""``kcl lint``: a compile-only run plus the lint rules of :mod:`kclpy.tools.lint_rules`.

Like the reference, linting loads and type-checks the program, so every syntax and
type error is reported, then runs the rules on the files of the main package:

* W0413 import position, W0404 reimport, W0411 unused import (per file, as the
  reference: an import used only by another file of the package is unused);
* E0406 self-import, E0501 line too long, C0103 invalid name, C0104 disallowed
  name, W0612 unused ``_private`` top-level variable, W1505 use of a
  ``@deprecated`` schema or attribute. The lint codes are all warnings.

Inputs: a ``.k`` file, a package folder, or ``folder/...`` for every package below
it (a folder without ``.k`` files of its own is walked the same way). Files of one
folder form one program; each folder is linted as its own program.

Configuration: ``[lint]`` in ``kcl.mod`` (``select``, ``ignore``, ``max_line_length``,
``bad_names``); selectors are codes or code prefixes (``W04``), rule names
(``unused-import``) or ``ALL``. ``# kcl-lint: disable=W0411,E0501`` on a line
silences findings on that line.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from kclpy.diag import Code, Diagnostic
from kclpy.diag.render import render_human, to_json
from kclpy.loader import MAIN, Loader, Program, package_files
from kclpy.pipeline.queries import Database
from kclpy.sema import Model
from kclpy.source import nearest_holding
from kclpy.syntax import ast, parse_source
from kclpy.syntax.universe import SYSTEM_MODULES, is_plugin
from kclpy.tools.format import FormatError, format_code
from kclpy.tools.lint_rules import (
    DEFAULT_BAD_NAMES,
    DEFAULT_MAX_LINE_LENGTH,
    RULES,
    RULES_BY_ID,
    Edit,
    Finding,
    check_deprecated,
    check_imports,
    check_lines,
    check_names,
    check_private_variables,
)

FORMATS = ("text", "concise", "json", "github", "sarif")
_SKIPPED_DIRS = ("vendor",)
_SUPPRESS = re.compile(r"#\s*kcl-lint:\s*disable\s*=\s*([A-Za-z0-9_,\- \t]+)")
_CONFIG_KEYS = ("select", "ignore", "max_line_length", "bad_names")


class LintConfigError(ValueError):
    """A bad selector, option or ``[lint]`` section of kcl.mod."""


@attrs.define
class LintConfig:
    """Which findings to keep and the rules' settings."""

    select: list[str] | None = None  # None: everything
    ignore: list[str] = attrs.field(factory=list)
    max_line_length: int = DEFAULT_MAX_LINE_LENGTH
    bad_names: frozenset[str] = DEFAULT_BAD_NAMES

    def keeps(self, code: Code) -> bool:
        if self.select is not None and not any(matches(code, s) for s in self.select):
            return False
        return not any(matches(code, s) for s in self.ignore)


@attrs.define
class LintReport:
    """The findings of a lint run, in file and position order, and the fixable ones' edits."""

    diagnostics: list[Diagnostic] = attrs.field(factory=list)
    fixes: list[tuple[Diagnostic, Edit]] = attrs.field(factory=list)
    # the checked program of each linted folder (the language server reuses them)
    models: list[Model] = attrs.field(factory=list)

    @property
    def fixable(self) -> int:
        return len(self.fixes)


# --------------------------------------------------------------------------- selectors


def matches(code: Code, selector: str) -> bool:
    """Whether a selector (``ALL``, a code or code prefix, a rule name) covers ``code``."""
    text = selector.strip()
    if text.upper() == "ALL":
        return True
    rule = RULES_BY_ID.get(code.id)
    if rule is not None and code.is_lint and text.lower() == rule.name:
        return True
    return bool(text) and code.id.upper().startswith(text.upper())


def check_selectors(selectors: Iterable[str], where: str) -> list[str]:
    """The selectors, stripped; raises LintConfigError for one that covers no code."""
    names = {rule.name for rule in RULES}
    ids = {code.id for code in Code}
    result: list[str] = []
    for selector in selectors:
        text = selector.strip()
        if not text:
            continue
        known = (
            text.upper() == "ALL"
            or text.lower() in names
            or any(code_id.startswith(text.upper()) for code_id in ids)
        )
        if not known:
            raise LintConfigError(f"{where}: unknown rule selector '{text}'")
        result.append(text)
    return result


def split_selectors(text: str | None) -> list[str] | None:
    """``"W0411, E0501"`` -> ``["W0411", "E0501"]``; None stays None."""
    if text is None:
        return None
    return [part.strip() for part in text.split(",") if part.strip()]


# --------------------------------------------------------------------------- configuration


def read_config(root: str) -> LintConfig:
    """The ``[lint]`` section of ``root/kcl.mod`` (defaults when there is none)."""
    path = os.path.join(root, "kcl.mod")
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except OSError:
        return LintConfig()
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise LintConfigError(f"{path}: invalid TOML: {error}") from None
    section = data.get("lint")
    if section is None:
        return LintConfig()
    where = f"{path} [lint]"
    if not isinstance(section, dict):
        raise LintConfigError(f"{where}: expected a table")
    for key in section:
        if key not in _CONFIG_KEYS:
            raise LintConfigError(
                f"{where}: unknown key '{key}' (known: {', '.join(_CONFIG_KEYS)})"
            )
    config = LintConfig()
    if "select" in section:
        config.select = check_selectors(_strings(section["select"], where, "select"), where)
    if "ignore" in section:
        config.ignore = check_selectors(_strings(section["ignore"], where, "ignore"), where)
    if "max_line_length" in section:
        length = section["max_line_length"]
        if isinstance(length, bool) or not isinstance(length, int) or length <= 0:
            raise LintConfigError(f"{where}: max_line_length must be a positive integer")
        config.max_line_length = length
    if "bad_names" in section:
        config.bad_names = frozenset(_strings(section["bad_names"], where, "bad_names"))
    return config


def _strings(value: Any, where: str, key: str) -> list[str]:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise LintConfigError(f"{where}: {key} must be a list of strings")


# --------------------------------------------------------------------------- inputs


def program_inputs(
    paths: Sequence[str], sources: Mapping[str, str] | None = None
) -> list[tuple[str, list[str]]]:
    """Group the inputs into programs: (work folder, files), one per folder."""
    groups: dict[str, list[str]] = {}

    def add(directory: str, files: Iterable[str]) -> None:
        group = groups.setdefault(directory, [])
        group.extend(f for f in files if f not in group)

    for item in paths:
        if sources is not None and item in sources:
            add(os.path.dirname(item), [item])
            continue
        recursive = item == "..." or item.endswith(("/...", os.sep + "..."))
        base = (item[:-3].rstrip("/" + os.sep) or ".") if recursive else item
        base = os.path.abspath(base)
        if os.path.isdir(base):
            files = package_files(base)
            if files and not recursive:
                add(base, files)
                continue
            for directory in _package_dirs(base):
                add(directory, package_files(directory))
        else:
            add(os.path.dirname(base), [base])
    return list(groups.items())


def _package_dirs(base: str) -> list[str]:
    found: list[str] = []
    for current, dirs, _ in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        if package_files(current):
            found.append(current)
    return found


# --------------------------------------------------------------------------- the run


def lint(
    paths: Sequence[str],
    *,
    select: Sequence[str] | None = None,
    ignore: Sequence[str] | None = None,
    max_line_length: int | None = None,
    external_pkgs: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> LintReport:
    """Lint ``paths`` (files, package folders, ``folder/...``); raises LintConfigError for
    an unknown selector or a bad ``[lint]`` section. ``select``/``ignore`` given here
    replace / extend the kcl.mod ones."""
    chosen = check_selectors(select, "select") if select is not None else None
    ignored = check_selectors(ignore or [], "ignore")
    if max_line_length is not None and max_line_length <= 0:
        raise LintConfigError("max_line_length must be a positive integer")
    database = Database()  # the programs of one run share their parsed files
    configs: dict[str, LintConfig] = {}
    report = LintReport()
    seen: set[tuple[str, str, str, int]] = set()
    for work_dir, files in program_inputs(paths, sources):
        program, loader = database.program(files, work_dir, external_pkgs, sources)
        config = configs.get(program.root)
        if config is None:
            config = configs[program.root] = read_config(program.root)
            if chosen is not None:
                config.select = chosen
            config.ignore = [*config.ignore, *ignored]
            if max_line_length is not None:
                config.max_line_length = max_line_length
        findings, model = lint_program(program, loader, config, database)
        report.models.append(model)
        for finding in findings:
            diagnostic = finding.diagnostic
            span = diagnostic.span
            key = (
                diagnostic.code.id,
                diagnostic.message,
                span.file.path if span is not None else "",
                span.start if span is not None else -1,
            )
            if key in seen:
                continue
            seen.add(key)
            report.diagnostics.append(diagnostic)
            if finding.edit is not None:
                report.fixes.append((diagnostic, finding.edit))
    report.diagnostics.sort(key=_position)
    return report


def lint_program(
    program: Program, loader: Loader, config: LintConfig, database: Database
) -> tuple[list[Finding], Model]:
    """The findings of one loaded program (``database``'s program query) that
    ``config`` keeps and no ``# kcl-lint: disable`` comment suppresses, with its
    checked model (``database``'s checked query: the language server's keeps the
    nested scopes for completion)."""
    findings, model = _findings(program, loader, config, database)
    kept = [
        finding
        for finding in findings
        if config.keeps(finding.diagnostic.code) and not _suppressed(finding.diagnostic)
    ]
    return kept, model


def _findings(
    program: Program, loader: Loader, config: LintConfig, database: Database
) -> tuple[list[Finding], Model]:
    findings = [Finding(d) for d in program.diagnostics]
    model = database.checked_program(program)
    for diagnostic in model.diagnostics:
        # a checker failure on a tree the parser already rejected adds nothing
        if diagnostic.code != Code.INTERNAL_ERROR or not program.has_errors:
            findings.append(Finding(diagnostic))
    modules = program.packages.get(MAIN, [])
    for module in modules:
        targets = program.imports_of(module)
        findings.extend(check_imports(module, targets, _self_import_test(loader, module)))
        findings.extend(check_lines(module, config.max_line_length))
        findings.extend(check_names(module, config.bad_names))
    findings.extend(check_private_variables(modules))
    findings.extend(check_deprecated(model, {module.file.path for module in modules}))
    return findings, model


def _self_import_test(loader: Loader, module: ast.Module) -> Callable[[ast.ImportStmt], bool]:
    own = os.path.abspath(module.file.path)

    def is_self_import(stmt: ast.ImportStmt) -> bool:
        if stmt.path in SYSTEM_MODULES or is_plugin(stmt.path):
            return False
        found = loader.locate(MAIN, module, stmt.path)
        return found is not None and own in {os.path.abspath(path) for path in found[1]}

    return is_self_import


def _position(diagnostic: Diagnostic) -> tuple[str, int, str]:
    span = diagnostic.span
    if span is None:
        return ("", -1, diagnostic.code.id)
    return (span.file.path, span.start, diagnostic.code.id)


def _suppressed(diagnostic: Diagnostic) -> bool:
    """Whether the diagnostic's line says ``# kcl-lint: disable=...`` for its code."""
    span = diagnostic.span
    if span is None:
        return False
    line = span.file.line_text(span.begin_pos.line)
    if "kcl-lint" not in line:
        return False
    for match in _SUPPRESS.finditer(line):
        for selector in match.group(1).split(","):
            if selector.strip() and matches(diagnostic.code, selector):
                return True
    return False


# --------------------------------------------------------------------------- fixes


def fixed_texts(report: LintReport) -> tuple[dict[str, str], int]:
    """The new text of every file with fixes, formatted as ``kcl fmt`` formats it (a
    removed import leaves no blank lines behind), and how many findings they fix.

    A file is left alone when it does not parse cleanly before or after the edits.
    """
    by_path: dict[str, tuple[str, list[Edit]]] = {}
    for diagnostic, edit in report.fixes:
        span = diagnostic.span
        if span is None:
            continue
        entry = by_path.setdefault(edit.path, (span.file.text, []))
        entry[1].append(edit)
    texts: dict[str, str] = {}
    count = 0
    for path, (text, edits) in by_path.items():
        if _has_syntax_errors(text, path):
            continue
        new_text = text
        last = len(text) + 1
        for edit in sorted(set(edits), key=lambda e: (e.start, e.end), reverse=True):
            if edit.end > last:
                continue
            new_text = new_text[: edit.start] + edit.text + new_text[edit.end :]
            last = edit.start
        try:
            texts[path] = format_code(new_text, filename=path)
        except FormatError:  # the edits broke the syntax: the file stays as it is
            continue
        count += sum(1 for _, edit in report.fixes if edit.path == path)
    return texts, count


def _has_syntax_errors(text: str, path: str) -> bool:
    _, diagnostics = parse_source(text, path)
    return any(d.is_error for d in diagnostics)


# --------------------------------------------------------------------------- output


def render_report(report: LintReport, format: str = "text", colour: bool = False) -> str:
    """The findings as ``text`` (rustc-like, with a summary), ``concise``
    (``path:line:col: CODE message``), ``json``, ``github`` (workflow annotations) or
    ``sarif`` (SARIF 2.1.0, for code-scanning services)."""
    diagnostics = report.diagnostics
    fixable = {id(diagnostic) for diagnostic, _ in report.fixes}
    if format == "json":
        items = []
        for diagnostic in diagnostics:
            item = to_json(diagnostic)
            rule = RULES_BY_ID.get(diagnostic.code.id) if diagnostic.code.is_lint else None
            item["rule"] = rule.name if rule is not None else diagnostic.code.kind
            item["fixable"] = id(diagnostic) in fixable
            items.append(item)
        return json.dumps(items, ensure_ascii=False, indent=2) + "\n"
    if format == "github":
        roots: dict[str, str] = {}
        return "".join(_github(diagnostic, roots) + "\n" for diagnostic in diagnostics)
    if format == "sarif":
        return json.dumps(sarif_log(diagnostics), ensure_ascii=False, indent=2) + "\n"
    if format == "concise":
        body = "".join(_concise(diagnostic) + "\n" for diagnostic in diagnostics)
    else:
        body = "".join(render_human(d, colour) + "\n\n" for d in diagnostics)
    return body + _summary(report)


def _concise(diagnostic: Diagnostic) -> str:
    location = diagnostic.location()
    prefix = f"{location}: " if location else ""
    return f"{prefix}{diagnostic.code.id} {diagnostic.message}"


def _summary(report: LintReport) -> str:
    total = len(report.diagnostics)
    if not total:
        return "All checks passed!\n"
    errors = sum(1 for d in report.diagnostics if d.is_error)
    noun = "problem" if total == 1 else "problems"
    warnings = total - errors
    text = f"Found {total} {noun} ({_plural(errors, 'error')}, {_plural(warnings, 'warning')}).\n"
    if report.fixable:
        text += f"[*] {report.fixable} fixable with the `--fix` option.\n"
    return text


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def sarif_log(diagnostics: list[Diagnostic]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of the findings: one run, a rule per code that occurs.
    Files are named relative to the root of their repository (as the ``github``
    format names them): ``uri`` relative, ``uriBaseId`` naming the root, whose
    absolute ``file:`` URI the run's ``originalUriBaseIds`` holds (``SRCROOT``,
    then ``SRCROOT2``... when the files lie in more than one work tree)."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    roots: dict[str, str] = {}
    base_ids: dict[str, str] = {}  # root -> its uriBaseId
    for diagnostic in diagnostics:
        code = diagnostic.code
        rule = RULES_BY_ID.get(code.id) if code.is_lint else None
        rules.setdefault(
            code.id,
            {
                "id": code.id,
                "name": rule.name if rule is not None else code.kind,
                "shortDescription": {"text": rule.summary if rule is not None else code.kind},
            },
        )
        result: dict[str, Any] = {
            "ruleId": code.id,
            "level": "error" if diagnostic.is_error else "warning",
            "message": {"text": diagnostic.message},
        }
        span = diagnostic.span
        if span is not None:
            (line, col), (end_line, end_col) = span.begin_pos, span.end_pos
            region = {"startLine": line, "startColumn": col, "endLine": end_line}
            region["endColumn"] = end_col
            artifact = _sarif_artifact(span.file.path, roots, base_ids)
            physical = {"artifactLocation": artifact, "region": region}
            result["locations"] = [{"physicalLocation": physical}]
        results.append(result)
    driver = {
        "name": "kclpy lint",
        "informationUri": "https://kcl-lang.io",
        "rules": list(rules.values()),
    }
    run: dict[str, Any] = {"tool": {"driver": driver}}
    if base_ids:
        run["originalUriBaseIds"] = {
            base_id: {"uri": _file_uri(root) + "/"} for root, base_id in base_ids.items()
        }
    run["results"] = results
    return {
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [run],
    }


def _sarif_artifact(path: str, roots: dict[str, str], base_ids: dict[str, str]) -> dict[str, str]:
    """The ``artifactLocation`` of ``path``: relative to its repository root, which
    gets a ``uriBaseId`` of its own the first time it is seen (a file outside the
    current folder and every work tree: its absolute URI)."""
    root, relative = _repository_place(path, roots)
    if relative == ".." or relative.startswith("../"):
        return {"uri": _file_uri(os.path.abspath(path))}
    base_id = base_ids.setdefault(root, "SRCROOT" + (str(len(base_ids) + 1) if base_ids else ""))
    return {"uri": urllib.parse.quote(relative), "uriBaseId": base_id}


def _file_uri(folder: str) -> str:
    """The ``file:`` URI of an absolute folder (``/`` separators, percent-encoded)."""
    posix = folder.replace(os.sep, "/")
    return "file://" + urllib.parse.quote(posix if posix.startswith("/") else "/" + posix)


def _github(diagnostic: Diagnostic, roots: dict[str, str]) -> str:
    """A workflow annotation; its file relative to the repository (see
    :func:`repository_path`; ``roots``: the work tree of each folder, found once)."""
    level = "error" if diagnostic.is_error else "warning"
    properties = [f"title={_escape_property(f'kcl lint ({diagnostic.code.id})')}"]
    span = diagnostic.span
    if span is not None:
        line, col = span.begin_pos
        end_line, end_col = span.end_pos
        properties[:0] = [
            f"file={_escape_property(repository_path(span.file.path, roots))}",
            f"line={line}",
            f"col={col}",
            f"endLine={end_line}",
            f"endColumn={end_col}",
        ]
    message = f"{diagnostic.code.id} {diagnostic.message}"
    return f"::{level} {','.join(properties)}::{_escape_data(message)}"


def repository_path(path: str, roots: dict[str, str] | None = None) -> str:
    """``path`` relative to the root of the git work tree holding it (the nearest folder
    above it with a ``.git`` folder or file), else to the current folder, with ``/``
    separators: GitHub matches annotations to files by their path in the repository."""
    return _repository_place(path, roots if roots is not None else {})[1]


def _repository_place(path: str, roots: dict[str, str]) -> tuple[str, str]:
    """The root ``path`` is named from (its work tree, else the current folder) and
    the name (``/`` separators); ``roots`` caches the root of each folder."""
    absolute = os.path.abspath(path)
    folder = os.path.dirname(absolute)
    root = roots.get(folder)
    if root is None:
        root = roots[folder] = nearest_holding(folder, ".git", os.path.lexists) or os.getcwd()
    relative = os.path.relpath(absolute, root)
    return root, relative.replace(os.sep, "/")


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
