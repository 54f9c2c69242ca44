"""A module that cannot be found: checking goes on, as in the reference.

The loader stands an empty package in for the module (``Loader.stand_in``), named as
the reference names it; the driver checks the program after its loading errors, so a
use of the module's members is the reference's TypeError, and the run stops before the
VM. The errors per program (kind, line, column, message) are pinned here, and compared
with the reference's ``kcl run`` where ``kcl_lib`` is installed (the per-chunk kinds
and lines are in ``tests/sema/errors/missing_modules.k``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))

from reference import reference_available, run_reference

from kclpy.emit import EmitOptions
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database

Error = tuple[str, int, int, str]  # kind, line, column, message

KCL_MOD = '[package]\nname = "app"\nversion = "0.0.1"\n'

# name -> (files, entry, the errors of `kcl run entry` in order, each once)
CASES: dict[str, tuple[dict[str, str], str, list[Error]]] = {
    "unused": (
        {"main.k": "import nothere\n\na = 1\n"},
        "main.k",
        [
            ("CannotFindModule", 1, 1, "pkgpath nothere not found in the program"),
            ("CannotFindModule", 1, 1, "Cannot find the module nothere from {root}/nothere"),
        ],
    ),
    "members": (
        {
            "main.k": "import nothere as n\n\nschema S(n.Base):\n    a: n.T\n\n"
            "s = S {a = 1}\nx: n.Y = n.f(1)\nprint('ran')\n"
        },
        "main.k",
        [
            ("CannotFindModule", 1, 1, "pkgpath nothere not found in the program"),
            ("CannotFindModule", 1, 1, "Cannot find the module nothere from {root}/nothere"),
            ("TypeError", 7, 4, "attribute 'Y' not found in 'module 'nothere''"),
            ("TypeError", 3, 10, "attribute 'Base' not found in 'module 'nothere''"),
            (
                "IllegalInheritError",
                3,
                10,
                "invalid schema inherit object type, expect schema, got 'any'",
            ),
            ("TypeError", 4, 8, "attribute 'T' not found in 'module 'nothere''"),
            ("TypeError", 7, 10, "attribute 'f' not found in 'module 'nothere''"),
        ],
    ),
    "relative with a syntax error": (
        {
            "kcl.mod": KCL_MOD,
            "app-main/main.k": "import .some0..pkg1 as some00\n\nName1 = some00.Name\n",
        },
        "app-main/main.k",
        [
            ("InvalidSyntax", 1, 15, 'expected one of ["identifier"] got .'),
            ("CannotFindModule", 1, 1, "pkgpath app-main.some0..pkg1 not found in the program"),
            (
                "CannotFindModule",
                1,
                1,
                "Cannot find the module .some0..pkg1 from {root}/app-main/some0/pkg1",
            ),
            ("TypeError", 3, 9, "attribute 'Name' not found in 'module 'app-main.some0..pkg1''"),
        ],
    ),
    "in an imported package": (
        {
            "kcl.mod": KCL_MOD,
            "main.k": "import sub\n\nb = sub.v\n",
            "sub/sub.k": "import nothere\n\nv = nothere.X\n",
        },
        "main.k",
        [
            ("CannotFindModule", 1, 1, "pkgpath nothere not found in the program"),
            ("CannotFindModule", 1, 1, "Cannot find the module nothere from {root}/nothere"),
            ("TypeError", 3, 5, "attribute 'X' not found in 'module 'nothere''"),
        ],
    ),
    "two missing imports": (
        {"main.k": "import first\nimport .second.inner\n\na = first.A\nb = inner.B\n"},
        "main.k",
        [
            ("CannotFindModule", 1, 1, "pkgpath first not found in the program"),
            ("CannotFindModule", 2, 1, "pkgpath second.inner not found in the program"),
            ("CannotFindModule", 1, 1, "Cannot find the module first from {root}/first"),
            (
                "CannotFindModule",
                2,
                1,
                "Cannot find the module .second.inner from {root}/second/inner",
            ),
            ("TypeError", 4, 5, "attribute 'A' not found in 'module 'first''"),
            ("TypeError", 5, 5, "attribute 'B' not found in 'module 'second.inner''"),
        ],
    ),
    "dots above the root": (
        {"kcl.mod": KCL_MOD, "app/main.k": "import ...lib\n\nx = lib.v\n", "lib/lib.k": "v = 1\n"},
        "app/main.k",
        [
            (
                "CannotFindModule",
                1,
                1,
                "Failed to import the module ...lib from {root}/. No KCL files found in the "
                "specified folder",
            ),
            ("TypeError", 3, 5, "attribute 'v' not found in 'module '''"),
        ],
    ),
    "a folder without .k files": (
        {"main.k": "import empty\n\na = empty.X\n", "empty/notes.txt": "none\n"},
        "main.k",
        [("TypeError", 3, 5, "attribute 'X' not found in 'module 'empty''")],
    ),
}

_HEADER = re.compile(r"^(?:error|warning)\[\w+\]: (\w+)$")
_ARROW = re.compile(r"^\s*--> .*:(\d+):(\d+)$")


def errors_of(stderr: str) -> list[Error]:
    """The errors of a `kcl run` error output: kind, line, column and the message under
    the caret (the first line of it)."""
    found: list[Error] = []
    kind, line, column = "", 0, 0
    for text in re.sub(r"\x1b\[[0-9;]*m", "", stderr).splitlines():
        header = _HEADER.match(text)
        arrow = _ARROW.match(text)
        if header:
            kind, line, column = header.group(1), 0, 0
        elif arrow and kind:
            line, column = int(arrow.group(1)), int(arrow.group(2))
        elif kind and "^" in text and text.lstrip(" 0123456789").startswith("|"):
            found.append((kind, line, column, text.split("^")[-1].strip().lstrip("^ ")))
            kind = ""
    return found


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")


def _kcl_run(folder: Path, entry: str) -> subprocess.CompletedProcess[str]:
    where = (folder / entry).parent
    return subprocess.run(
        [sys.executable, "-m", "kclpy", "run", Path(entry).name],
        cwd=where, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_kcl_run_reports_every_error_once_and_fails(name: str, tmp_path: Path) -> None:
    files, entry, expected = CASES[name]
    _write(tmp_path, files)
    ran = _kcl_run(tmp_path, entry)
    assert ran.returncode == 1, ran.stderr
    assert ran.stdout == ""  # the VM never ran (`print('ran')` of "members")
    root = str(tmp_path)
    assert errors_of(ran.stderr) == [
        (kind, line, column, message.format(root=root)) for kind, line, column, message in expected
    ]


@pytest.mark.skipif(not reference_available(), reason="the reference (kcl_lib) is not installed")
@pytest.mark.parametrize("name", list(CASES))
def test_the_errors_are_the_references(name: str, tmp_path: Path) -> None:
    """The reference's errors, each once (it prints a syntax error twice): the same
    set, and no error of ours it does not print."""
    files, entry, _ = CASES[name]
    _write(tmp_path, files)
    ours = _kcl_run(tmp_path, entry)
    where = (tmp_path / entry).parent
    theirs = run_reference(files=[Path(entry).name], cwd=where)
    assert ours.returncode == theirs.returncode == 1
    assert sorted(set(errors_of(ours.stderr))) == sorted(set(errors_of(theirs.stderr)))


def test_the_missing_module_stands_as_an_empty_package() -> None:
    inputs = driver.Inputs(["main.k"], sources={"main.k": "import nothere\n\na = nothere.X\n"})
    program = driver.load(inputs)
    assert program.missing == {"nothere"} and program.packages["nothere"] == []
    (module,) = program.packages["__main__"]
    assert program.imports_of(module) == {"nothere": "nothere"}
    result = driver.run(inputs, driver.RunSettings(), EmitOptions())
    assert [d.code.id for d in result.diagnostics] == ["E2F04", "E2F04", "E2G22"]
    assert not result.ok and result.text == "" and result.log == ""


def test_a_shared_database_checks_the_module_once_it_is_there(tmp_path: Path) -> None:
    """A program checked while its module was missing is checked again, with the
    module's members, once the module is written (the empty package's product is not
    reused for it)."""
    (tmp_path / "main.k").write_text("import lib\n\na = lib.X\n", encoding="utf-8")
    database = Database(Settings(shared=True, keyed=True))
    inputs = driver.Inputs([str(tmp_path / "main.k")], str(tmp_path))
    before = driver.check(driver.load(inputs, database), database)
    assert [d.code.id for d in before.errors] == ["E2G22"]
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "lib.k").write_text("X = 1\n", encoding="utf-8")
    program = driver.load(inputs, database)
    assert not program.has_errors and program.missing == set()
    assert driver.check(program, database).errors == []


def test_an_unused_folder_without_k_files_runs(tmp_path: Path) -> None:
    """As the reference (``a: 1``): the folder is an empty package, nothing is missing."""
    _write(tmp_path, {"main.k": "import empty\n\na = 1\n", "empty/notes.txt": "none\n"})
    ran = _kcl_run(tmp_path, "main.k")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "a: 1\n", "")
