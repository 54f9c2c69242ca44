"""The modules `kcl run` imports on a tiny program, against named lists.

A structural guard for start-up time (issue 17), not a timing: a run of
``kcl run hello.k`` in a fresh interpreter, with the compiled-module cache off
(a first run) and warm (a second run), may import only the kclpy modules named
below and no third-party package.  A change that makes `kcl run` import more
fails here; shrinking the set is always fine (then trim the list).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# what kclpy needs on every run: the command line, options, loading, running, printing
# (kclpy.release and kclpy.diag.parts, like kclpy.syntax.grammar and kclpy.syntax.targets
# below, hold code split out of kclpy, diag.diagnostic, syntax.parser and sema.resolve to
# break import circles: more modules, not more code)
RUN_MODULES = frozenset(
    """
    kclpy kclpy.cli kclpy.cli.base kclpy.cli.fast_reader kclpy.cli.run
    kclpy.depth kclpy.vm.fs_policy kclpy.vm.limits kclpy.vm.host_memory
    kclpy.diag.console
    kclpy.compile kclpy.compile.code kclpy.compile.opcodes kclpy.diag
    kclpy.diag.codes kclpy.diag.diagnostic kclpy.emit kclpy.loader kclpy.settings
    kclpy.mod kclpy.mod.progress
    kclpy.pipeline kclpy.pipeline.cache kclpy.pipeline.driver kclpy.pipeline.inputs
    kclpy.pipeline.queries
    kclpy.patterns kclpy.patterntab
    kclpy.source kclpy.syntax kclpy.syntax.ast kclpy.syntax.universe kclpy.vm kclpy.vm.builtins
    kclpy.vm.builtins.adapt kclpy.vm.builtins.marks
    kclpy.vm.builtins.compare kclpy.vm.builtins.context kclpy.vm.builtins.convert
    kclpy.vm.builtins.registry kclpy.vm.access kclpy.vm.interp kclpy.vm.merge kclpy.vm.objects
    kclpy.vm.operators kclpy.vm.runner kclpy.vm.runtime kclpy.vm.schemas
    kclpy.vm.typecheck kclpy.values kclpy.values.errors kclpy.values.scalars
    kclpy.values.yaml_writer
    kclpy.release kclpy.diag.parts kclpy.records kclpy.enumeration kclpy.lazy_table
    """.split()  # noqa: SIM905
)

# what a cache miss adds: the front end, the checker and the compiler (not
# kclpy.sema.docstrings: only editors and `kcl doc` read a symbol's documentation)
COMPILE_MODULES = frozenset(
    """
    kclpy.compile.emitter kclpy.compile.exprs kclpy.compile.stmts kclpy.compile.types
    kclpy.sema kclpy.sema.annotations kclpy.sema.assign kclpy.sema.base kclpy.sema.bindings
    kclpy.sema.builtins kclpy.sema.calls kclpy.sema.checker kclpy.sema.config
    kclpy.sema.configkeys
    kclpy.sema.declare kclpy.sema.exprs kclpy.sema.model
    kclpy.sema.interface kclpy.sema.names kclpy.sema.operators
    kclpy.sema.relations kclpy.sema.resolve
    kclpy.sema.schemas kclpy.sema.stmts kclpy.sema.symbols
    kclpy.sema.types kclpy.sema.upgrade kclpy.syntax.build kclpy.syntax.driver
    kclpy.syntax.grammar_collections kclpy.syntax.grammar_expr kclpy.syntax.grammar_stmt
    kclpy.syntax.layout kclpy.syntax.lexer kclpy.syntax.literals kclpy.syntax.parser
    kclpy.syntax.parsetab kclpy.syntax.scan kclpy.syntax.tokens kclpy.syntax.grammar
    kclpy.syntax.targets
    """.split()  # noqa: SIM905
)

# interpreter start-up modules that are neither the standard library nor a dependency
# (an editable install's path finder, setuptools' shim, site customisation)
NOT_THIRD_PARTY = ("__main__", "__editable__", "_distutils_hack", "sitecustomize", "usercustomize")

# the probe watches every import statement: which modules import ``typing``, and (once
# something has imported it) every ``typing.ForwardRef`` made
PROBE = """
import builtins, json, sys
made, importers = [], []
plain_import = builtins.__import__
def record(self, *args, **kwargs):
    made.append(args[0])
def watching(name, globals=None, locals=None, fromlist=(), level=0):
    if name.partition(".")[0] in ("typing", "_typing"):
        importers.append((globals or {}).get("__name__", "?"))
    module = plain_import(name, globals, locals, fromlist, level)
    reference = getattr(sys.modules.get("typing"), "ForwardRef", None)  # (once defined)
    if reference is not None and reference.__init__ is not record:
        reference.__init__ = record
    return module
builtins.__import__ = watching
from kclpy.cli import main
code = main(["run", sys.argv[1]])
names = sorted(sys.modules)
with open(sys.argv[2], "w", encoding="utf-8") as handle:
    json.dump({"code": code, "modules": names, "forward_refs": made, "typing": importers}, handle)
"""


# what reading a cache entry adds (a run with the cache off never imports ``pickle``)
CACHE_HIT_MODULES = frozenset(("kclpy.pipeline.pickling",))

# standard modules a run does without, each with its imports a ms or several of a start
# (``dataclasses`` brings ``inspect``, ``ast``, ``dis``, ``tokenize``; ``ctypes`` only
# serves interrupting a run's thread; ``argparse``, with ``gettext`` and ``locale``, is
# for help and usage errors: the fast reader, kclpy.cli.fast_reader, reads a common line)
NOT_ON_RUN = frozenset(
    """
    dataclasses inspect dis tokenize pathlib ctypes argparse gettext locale kclpy.cli.parser
    """.split()  # noqa: SIM905
)
NOT_WITHOUT_CACHE = frozenset(("pickle",))


def imported_by_run(
    tmp_path: Path, env: dict[str, str], program: Path | None = None
) -> tuple[set[str], set[str], set[str], list[str]]:
    """(kclpy modules, third-party top-level packages, every module, the modules that
    import ``typing``) of `kcl run hello.k`, or of `kcl run` of ``program`` (which prints
    ``a: 1``); the run makes no ``typing.ForwardRef`` (each is a ``compile()``, the first
    one of a process some 10 M instructions: records are ``kclpy.records.Record``)."""
    if program is None:
        program = tmp_path / "hello.k"
        program.write_text("a = 1\n", encoding="utf-8")
    report = tmp_path / "modules.json"
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, str(program), str(report)],
        env=env,
        cwd=program.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "a: 1\n"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["code"] == 0
    assert data["forward_refs"] == [], "typing.NamedTuple (or another ForwardRef maker) at start"
    modules: list[str] = data["modules"]
    ours = {name for name in modules if name == "kclpy" or name.startswith("kclpy.")}
    tops = {name.split(".")[0] for name in modules} - set(sys.stdlib_module_names) - {"kclpy"}
    third = {name for name in tops if not name.startswith(NOT_THIRD_PARTY)}
    return ours, third, set(modules), data["typing"]


@pytest.mark.parametrize("cache", ["off", "warm"])
def test_kcl_run_imports_only_the_named_modules(tmp_path: Path, cache: str) -> None:
    env = dict(os.environ)
    env["KCLPY_CACHE_DIR"] = str(tmp_path / "cache")
    if cache == "off":
        env["KCLPY_NO_CACHE"] = "1"
        allowed = RUN_MODULES | COMPILE_MODULES
        unwanted = NOT_ON_RUN | NOT_WITHOUT_CACHE
    else:
        env.pop("KCLPY_NO_CACHE", None)
        imported_by_run(tmp_path, env)  # fills the cache
        allowed = RUN_MODULES | CACHE_HIT_MODULES
        unwanted = NOT_ON_RUN
    ours, third, every, _ = imported_by_run(tmp_path, env)
    assert third == set(), f"`kcl run` imports third-party packages: {sorted(third)}"
    heavy = sorted(every & unwanted)
    if any(name.startswith("__editable__") for name in every):  # an editable install's
        heavy = [name for name in heavy if name != "pathlib"]  # path finder imports it
    assert not heavy, f"`kcl run hello.k` (cache {cache}) imports {heavy}"
    extra = sorted(ours - allowed)
    assert not extra, (
        f"`kcl run hello.k` (cache {cache}) imports modules beyond the named list: {extra}; "
        "import them where they are needed, or add them to the list deliberately"
    )


def test_kcl_run_of_a_package_with_dependencies_imports_no_third_party_package(
    tmp_path: Path,
) -> None:
    """A run with a ``kcl.mod`` reads its models (``kclpy.mod``: the manifest, the lock,
    the resolution): they stay plain classes, not attrs (or dataclasses) ones."""
    project = tmp_path / "project"
    (project / "dep").mkdir(parents=True)
    (project / "kcl.mod").write_text(
        '[package]\nname = "project"\nversion = "0.1.0"\n\n'
        '[dependencies]\ndep = { path = "dep" }\n',
        encoding="utf-8",
    )
    (project / "dep" / "kcl.mod").write_text(
        '[package]\nname = "dep"\nversion = "0.1.0"\n', encoding="utf-8"
    )
    (project / "dep" / "main.k").write_text("x = 1\n", encoding="utf-8")
    program = project / "main.k"
    program.write_text("import dep\n\na = dep.x\n", encoding="utf-8")
    env = dict(os.environ)
    env["KCLPY_CACHE_DIR"] = str(tmp_path / "cache")
    env["KCLPY_NO_CACHE"] = "1"
    ours, third, every, _ = imported_by_run(tmp_path, env, program)
    assert "kclpy.mod.manifest" in ours and "kclpy.mod.resolution" in ours
    assert third == set(), f"`kcl run` of a package imports third-party packages: {sorted(third)}"
    assert not every & {"attr", "attrs", "dataclasses", "inspect"}


@pytest.mark.parametrize("cache", ["off", "warm"])
def test_kcl_run_imports_no_typing(tmp_path: Path, cache: str) -> None:
    """``typing`` costs some 3 ms of CPU at start (``_typing`` with it): kclpy imports the
    names it uses in annotations only under ``if TYPE_CHECKING:``, a module constant
    (docs/design.md, Style), so no module on the run path imports it."""
    env = dict(os.environ)
    env["KCLPY_CACHE_DIR"] = str(tmp_path / "cache")
    if cache == "off":
        env["KCLPY_NO_CACHE"] = "1"
    else:
        env.pop("KCLPY_NO_CACHE", None)
        imported_by_run(tmp_path, env)  # fills the cache
    _, _, every, importers = imported_by_run(tmp_path, env)
    assert not importers, (
        f"`kcl run hello.k` (cache {cache}): {sorted(set(importers))} import typing"
    )
    assert not every & {"typing", "_typing"}, f"`kcl run hello.k` (cache {cache}) loads typing"
