"""``kcl lint`` / kclpy.lint_path: the rules, suppression, configuration, --fix, output.

The programs are the chunks of ``lint_cases/*.k`` (the format of the checker's
error files, tests/sema/chunks.py): each finding must be expected by a
``# E: CODE fragment`` comment on its line, and every expectation met. The import
rules are also compared with the reference's ``lint_path`` (in a subprocess).
"""

from __future__ import annotations

import json
import os
import sys
import urllib.parse
from collections import Counter
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "sema"))

from chunks import Chunk, parse_chunks, where, write_chunk  # noqa: E402
from reference import call_reference, run_reference  # noqa: E402
from tools_helpers import HAVE_REFERENCE  # noqa: E402

import kclpy  # noqa: E402
from kclpy.cli import main  # noqa: E402
from kclpy.syntax import parse_source  # noqa: E402
from kclpy.tools import lint_rules  # noqa: E402
from kclpy.tools.format import format_code  # noqa: E402
from kclpy.tools.lint import LintConfigError, lint, repository_path  # noqa: E402

CASES = os.path.join(HERE, "lint_cases")
CHUNKS = [
    chunk
    for name in sorted(os.listdir(CASES))
    if name.endswith(".k")
    for chunk in parse_chunks(os.path.join(CASES, name))
]
IMPORT_CHUNKS = [chunk for chunk in CHUNKS if chunk.source.endswith("imports.k")]
W04 = ("W0411", "W0404", "W0413")


def _mismatches(chunk: Chunk, directory: str) -> list[str]:
    found = [(where(d, directory), d) for d in kclpy.lint_path(directory)]
    problems = [
        f"missing {e.code} '{e.fragment}' at {e.path}:{e.line}"
        for e in chunk.expectations
        if not any(
            place == (e.path, e.line) and d.code.id == e.code and e.fragment in d.message
            for place, d in found
        )
    ]
    expected = Counter((e.path, e.line, e.code) for e in chunk.expectations)
    actual = Counter((*place, d.code.id) for place, d in found)
    problems += [f"unexpected {key}" for key in actual - expected]
    return problems


@pytest.mark.parametrize("chunk", CHUNKS, ids=[chunk.name for chunk in CHUNKS])
def test_chunk(chunk: Chunk, tmp_path: Path) -> None:
    write_chunk(chunk, str(tmp_path))
    assert _mismatches(chunk, str(tmp_path)) == []


_REFERENCE_LINT = r"""
import json, sys
import kcl_lib.api as api

out = {}
for path in json.loads(sys.stdin.read()):
    try:
        out[path] = list(api.API().lint_path(api.LintPathArgs(paths=[path])).results)
    except Exception as error:
        out[path] = ["exception: " + str(error)]
sys.stdout.write(json.dumps(out))
"""


def reference_lint(paths: list[str]) -> dict[str, list[str]]:
    """The reference's lint messages for each path (one subprocess for all)."""
    result: dict[str, list[str]] = call_reference(_REFERENCE_LINT, paths, timeout=300)
    return result


def _is_w04(message: str) -> bool:
    return message == "The import stmt should be placed at the top of the module" or (
        message.startswith("Module '")
        and message.endswith(("' imported but unused", "' is reimported multiple times"))
    )


@pytest.mark.skipif(not HAVE_REFERENCE, reason="the reference (kcl_lib) is not installed")
def test_import_rules_match_the_reference(tmp_path: Path) -> None:
    folders = []
    for index, chunk in enumerate(IMPORT_CHUNKS):
        folder = tmp_path / str(index)
        folder.mkdir()
        write_chunk(chunk, str(folder))
        folders.append(str(folder))
    theirs = reference_lint(folders)
    differences = {}
    for chunk, folder in zip(IMPORT_CHUNKS, folders, strict=True):
        ours = Counter(d.message for d in kclpy.lint_path(folder, select=list(W04)))
        reference = Counter(m for m in theirs[folder] if _is_w04(m))
        if ours != reference:
            differences[chunk.name] = (ours, reference)
    assert differences == {}


# --------------------------------------------------------------------------- usage detection


def _used(text: str) -> set[str]:
    module, diagnostics = parse_source(text, "main.k")
    assert not diagnostics
    return lint_rules.used_names(module.body)


def test_used_names_cover_decorators_types_and_interpolation() -> None:
    assert {"deco", "mod", "base", "mix", "host", "t1", "t2"} <= _used(
        "@deco.x\nschema A(base.B):\n    mixin [mix.M]\n    a: t1.T | {str: t2.T} = {}\n"
        "mixin M for host.P:\n    b: int = 1\nx = '${mod.y}'\n"
    )
    used = _used("f = lambda a: p1.T -> p2.R { a }\n")
    assert {"p1", "p2"} <= used and "a" not in used
    used = _used("c = {key: 1, key2.sub: 2, (computed): 3, lst[index]: 4}\n")
    assert {"computed", "index"} <= used and not {"key", "key2", "lst"} & used
    assert "x" not in _used("x = 1\ny: int = 2\n")


def test_lint_code_and_lint_path(tmp_path: Path) -> None:
    [finding] = kclpy.lint_code("import math\na = 1\n")
    assert (finding.code.id, finding.span and finding.span.begin_pos) == ("W0411", (1, 1))
    assert not finding.is_error and finding.code.is_lint
    (tmp_path / "main.k").write_text("import math\n")
    [finding] = kclpy.lint_path(str(tmp_path / "main.k"))
    assert finding.message == "Module 'math' imported but unused"
    assert kclpy.lint_code("import math\na = math.log(1)\n") == []


def test_compile_errors_are_reported_with_the_warnings() -> None:
    found = kclpy.lint_code("import json\na: int = 'x'\nb = c +\n")
    codes = [d.code.id for d in found]
    assert "W0411" in codes and "E1001" in codes


def test_select_and_ignore() -> None:
    code = "import math\nimport math\nfoo = 1\n"
    assert [d.code.id for d in kclpy.lint_code(code, select=["W0404"])] == ["W0404"]
    assert {d.code.id for d in kclpy.lint_code(code, select=["W04"])} == {"W0404", "W0411"}
    assert {d.code.id for d in kclpy.lint_code(code, ignore=["unused-import"])} == {
        "W0404",
        "C0104",
    }
    assert kclpy.lint_code(code, select=["ALL"], ignore=["W", "C"]) == []
    with pytest.raises(LintConfigError, match="unknown rule selector 'X99'"):
        kclpy.lint_code(code, select=["X99"])


@pytest.mark.parametrize(
    "section",
    [
        "[lint]\nmax_line_length = 0\n",
        "[lint]\nmax_line_length = 'long'\n",
        "[lint]\nselect = ['NOPE']\n",
        "[lint]\nignore = 3\n",
        "[lint]\nunknown = 1\n",
        "lint = 1\n",
        "[lint\n",
    ],
)
def test_bad_lint_config_is_an_error(tmp_path: Path, section: str) -> None:
    (tmp_path / "kcl.mod").write_text(section + '[package]\nname = "x"\n')
    (tmp_path / "main.k").write_text("a = 1\n")
    with pytest.raises(LintConfigError):
        lint([str(tmp_path)])


def test_arguments_override_the_config(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "x"\n[lint]\nselect = "C0104"\n')
    (tmp_path / "main.k").write_text("import math\nfoo = 1\n")
    assert [d.code.id for d in kclpy.lint_path(str(tmp_path))] == ["C0104"]
    assert [d.code.id for d in kclpy.lint_path(str(tmp_path), select=["W"])] == ["W0411"]
    assert kclpy.lint_path(str(tmp_path), ignore=["C0104"]) == []


def test_folders_and_recursion(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "x"\n')
    for name in ("a", "b", "a/c", ".hidden"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.k").write_text("import math\n")
    found = {
        os.path.relpath(os.path.dirname(d.location()), tmp_path)
        for d in lint([str(tmp_path)]).diagnostics
    }
    assert found == {"a", "b", os.path.join("a", "c")}
    found_a = lint([str(tmp_path / "a")]).diagnostics
    assert [os.path.dirname(d.location()) for d in found_a] == [str(tmp_path / "a")]
    assert len(lint([str(tmp_path / "a") + "/..."]).diagnostics) == 2


def test_bad_input_is_a_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_bytes(b"\xff\xfe import \x00 math\n")
    assert any(d.is_error for d in kclpy.lint_path(str(tmp_path / "main.k")))
    missing = kclpy.lint_path(str(tmp_path / "missing.k"))
    assert missing and "Cannot find" in missing[0].message


# --------------------------------------------------------------------------- the command


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["lint", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "main.k").write_text("a = 1\n")
    assert _cli([str(clean)], capsys) == (0, "All checks passed!\n", "")
    (clean / "main.k").write_text("import math\n")
    code, out, _ = _cli([str(clean)], capsys)
    assert code == 1 and "Found 1 problem (0 errors, 1 warning)." in out
    assert _cli([str(tmp_path / "missing")], capsys)[0] == 2
    code, _, err = _cli(["--select", "NOPE", str(clean)], capsys)
    assert code == 2 and "unknown rule selector" in err
    with pytest.raises(SystemExit) as stop:
        main(["lint", "--format", "xml"])
    assert stop.value.code == 2


def test_cli_default_is_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "main.k").write_text("import math\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = _cli(["--format", "concise"], capsys)
    assert code == 1 and ":1:1: W0411 Module 'math' imported but unused\n" in out


def test_cli_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no git work tree: github paths are relative to here
    main_k = tmp_path / "main.k"
    main_k.write_text("import math\nimport math\na = math.log(1)\n")
    path = str(main_k)
    _, out, _ = _cli(["--format", "concise", path], capsys)
    assert out.splitlines() == [
        f"{path}:2:1: W0404 Module 'math' is reimported multiple times",
        "Found 1 problem (0 errors, 1 warning).",
        "[*] 1 fixable with the `--fix` option.",
    ]
    _, out, _ = _cli(["--format", "json", path], capsys)
    [item] = json.loads(out)
    assert item["code"] == "W0404" and item["rule"] == "reimport" and item["fixable"]
    assert item["severity"] == "warning" and item["labels"][0]["line"] == 2
    _, out, _ = _cli(["--format", "github", path], capsys)
    assert out == (
        "::warning file=main.k,line=2,col=1,endLine=2,endColumn=12,"
        "title=kcl lint (W0404)::W0404 Module 'math' is reimported multiple times\n"
    )
    _, out, _ = _cli(["--format", "sarif", path], capsys)
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == ["W0404"]
    [result] = run["results"]
    assert result["ruleId"] == "W0404" and result["level"] == "warning"
    location = result["locations"][0]["physicalLocation"]
    # named as the github format names it, from the root the run declares
    assert location["artifactLocation"] == {"uri": "main.k", "uriBaseId": "SRCROOT"}
    root_uri = run["originalUriBaseIds"]["SRCROOT"]["uri"]
    assert root_uri.startswith("file:///") and root_uri.endswith("/")
    assert os.path.samefile(urllib.parse.unquote(root_uri[len("file://") :]), tmp_path)
    assert location["region"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 12}
    _, out, _ = _cli(["--no_style", path], capsys)
    assert out.startswith("warning[W0404]: Reimport\n") and "2 | import math\n" in out
    assert "^^^^^^^^^^^ Module 'math' is reimported multiple times" in out


def test_cli_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main_k = tmp_path / "main.k"
    main_k.write_text(
        "import math  # trailing comment\nimport json\nimport json\nimport yaml as y\n"
        "import yaml\nimport units  # kcl-lint: disable=W0411\n\na = json.encode(y.encode(1))\n"
    )
    other = tmp_path / "other.k"
    other.write_text("import json\nb = 1 +\n")  # a syntax error: left alone
    code, out, err = _cli(["--fix", "--format", "concise", str(tmp_path)], capsys)
    assert "Fixed 3 findings." in err
    text = main_k.read_text()
    assert text == (  # formatted as kcl fmt formats it (one space before a comment)
        "import json\nimport yaml as y\nimport units # kcl-lint: disable=W0411\n\n"
        "a = json.encode(y.encode(1))\n"
    )
    assert parse_source(text, "main.k")[1] == []
    assert other.read_text() == "import json\nb = 1 +\n"
    assert code == 1 and "other.k" in out and "main.k" not in out
    other.unlink()
    assert _cli(["--fix", str(tmp_path)], capsys)[:2] == (0, "All checks passed!\n")


def test_cli_fix_keeps_a_used_alias(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main_k = tmp_path / "main.k"
    main_k.write_text("import math\nimport math as m\na = m.log(1)\n")
    code, out, _ = _cli(["--fix", "--format", "concise", str(main_k)], capsys)
    assert main_k.read_text() == "import math as m\n\na = m.log(1)\n"
    assert code == 0, out


def test_run_prints_no_lint_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "main.k").write_text("import math\na = 1\n")
    assert main(["run", str(tmp_path / "main.k")]) == 0
    out, err = capsys.readouterr()
    assert out == "a: 1\n" and err == ""


# (original text, text after --fix): formatted, so that `kcl fmt --check` accepts it
FIX_CASES = [
    (  # the imports above a schema: no blank line left at the top
        "import math\nimport json\nimport yaml\n\nschema A:\n    x: int = 1\n\na = A {}\n",
        "schema A:\n    x: int = 1\n\na = A {}\n",
    ),
    (  # blank lines between imports: one blank line after the imports that stay
        "import json\n\nimport math\n\nimport yaml\n\nb = json.encode(1)\n",
        "import json\n\nb = json.encode(1)\n",
    ),
    (  # an import after code (W0413, W0411): the code closes up
        "a = 1\nimport math\nb = 2\n",
        "a = 1\nb = 2\n",
    ),
    (  # a comment above the imports stays; kcl fmt joins it to the first import, as
        # the reference's formatter does (no blank line between a comment and its statement)
        "# the app\n\nimport math\nimport regex\n\nr = regex.match('a', 'a')\n",
        "# the app\nimport regex\n\nr = regex.match('a', 'a')\n",
    ),
    (  # every import unused: the file starts with its code
        "import math\nimport json\n\n\n\nconfig = {\n    name = 'x'\n}\n",
        "config = {\n    name = 'x'\n}\n",
    ),
    (  # a reimport removed, the alias used
        "import math\nimport math as m\n\na = m.log(1)\n",
        "import math as m\n\na = m.log(1)\n",
    ),
]


@pytest.mark.parametrize(("before", "after"), FIX_CASES)
def test_fix_leaves_formatted_files(
    before: str, after: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main_k = tmp_path / "main.k"
    main_k.write_text(before)
    code, out, _ = _cli(["--fix", "--format", "concise", str(main_k)], capsys)
    assert (code, main_k.read_text()) == (0, after), out
    assert format_code(after) == after
    assert main(["fmt", "--check", str(main_k)]) == 0
    capsys.readouterr()


def test_github_paths_are_relative_to_the_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repository = tmp_path / "repository"
    (repository / "apps" / "web").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True, timeout=60)
    main_k = repository / "apps" / "web" / "main.k"
    main_k.write_text("import math\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "main.k").write_text("import json\n")
    monkeypatch.chdir(outside)  # the current folder is neither the file's nor the root
    _, out, _ = _cli(["--format", "github", str(main_k), str(outside / "main.k")], capsys)
    files = [line.split(",")[0].split("file=")[1] for line in out.splitlines()]
    assert sorted(files) == ["apps/web/main.k", "main.k"]
    assert repository_path(str(main_k)) == "apps/web/main.k"
    monkeypatch.chdir(repository / "apps")  # from a folder inside it: still from the root
    assert repository_path("web/main.k") == "apps/web/main.k"


def test_sarif_paths_are_relative_to_their_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each file is a relative ``uri`` with the ``uriBaseId`` of its repository (or of
    the current folder outside one), whose absolute URI the run declares; a file
    outside both is an absolute URI."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repository = tmp_path / "my repo"  # a space: percent-encoded in URIs
    (repository / "apps").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True, timeout=60)
    (repository / "apps" / "main.k").write_text("import math\n")
    here = tmp_path / "here"
    here.mkdir()
    (here / "b.k").write_text("import json\n")
    stray = tmp_path / "stray"
    stray.mkdir()
    (stray / "c.k").write_text("import yaml\n")
    monkeypatch.chdir(here)
    files = [str(repository / "apps" / "main.k"), "b.k", str(stray / "c.k")]
    _, out, _ = _cli(["--format", "sarif", *files], capsys)
    [run] = json.loads(out)["runs"]
    locations = {
        result["message"]["text"].split("'")[1]: result["locations"][0]["physicalLocation"]
        for result in run["results"]
    }
    artifacts = {module: location["artifactLocation"] for module, location in locations.items()}
    bases = {key: value["uri"] for key, value in run["originalUriBaseIds"].items()}
    assert artifacts["math"]["uri"] == "apps/main.k"
    assert bases[artifacts["math"]["uriBaseId"]].endswith("/my%20repo/")
    assert artifacts["json"]["uri"] == "b.k"
    assert bases[artifacts["json"]["uriBaseId"]].endswith("/here/")
    assert len(bases) == 2 and artifacts["math"]["uriBaseId"] != artifacts["json"]["uriBaseId"]
    assert "uriBaseId" not in artifacts["yaml"]
    assert artifacts["yaml"]["uri"].startswith("file:///")
    assert urllib.parse.unquote(artifacts["yaml"]["uri"]).endswith("/stray/c.k")


# --------------------------------------------------------------------------- missing modules

MISSING = "import k8s.api.core.v1 as core\n\np = core.Pod {}\n"


def _flat(diagnostics: list[kclpy.Diagnostic]) -> list[str]:
    """Each diagnostic's message then its notes, as the reference's lint_path lists them."""
    return [text for d in diagnostics for text in (d.message, *d.notes)]


def test_a_missing_module_has_both_messages_and_suggestions(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_text(MISSING)
    found = kclpy.lint_path(str(tmp_path / "main.k"))
    assert [d.code.id for d in found] == ["E2F04", "E2F04", "E2G22"]
    suggestions = [
        "try 'kcl mod add k8s' to download the missing package",
        "browse more packages at 'https://artifacthub.io'",
    ]
    assert _flat(found) == [
        "pkgpath k8s.api.core.v1 not found in the program",
        *suggestions,
        f"Cannot find the module k8s.api.core.v1 from {tmp_path}/k8s/api/core/v1",
        *suggestions,
        # as the reference: checking goes on, the module an empty package
        "attribute 'Pod' not found in 'module 'k8s.api.core.v1''",
    ]
    rendered = found[0].render()
    assert "suggestion: try 'kcl mod add k8s'" in rendered and "note:" not in rendered


def test_a_missing_relative_module_is_named_from_the_root(tmp_path: Path) -> None:
    (tmp_path / "kcl.mod").write_text('[package]\nname = "app"\nversion = "0.0.1"\n')
    (tmp_path / "app-main").mkdir()
    (tmp_path / "app-main" / "main.k").write_text("import .some0.pkg1 as some00\n")
    found = kclpy.lint_path(str(tmp_path / "app-main" / "main.k"), select=["E2F04"])
    assert [d.message for d in found] == [
        "pkgpath app-main.some0.pkg1 not found in the program",
        f"Cannot find the module .some0.pkg1 from {tmp_path}/app-main/some0/pkg1",
    ]
    assert found[0].notes[0] == "try 'kcl mod add app-main' to download the missing package"


def test_a_given_package_without_the_module_says_so(tmp_path: Path) -> None:
    (tmp_path / "k8s" / "api").mkdir(parents=True)
    (tmp_path / "k8s" / "api" / "apps.k").write_text("schema Deployment:\n    name: str\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "main.k").write_text(MISSING)
    found = lint([str(tmp_path / "app")], external_pkgs={"k8s": str(tmp_path / "k8s")}).diagnostics
    assert [d.code.id for d in found] == ["E2F04", "E2F04", "E2G22"]  # (core.Pod: not found)
    assert found[0].notes == [
        f"the package 'k8s' (at {tmp_path / 'k8s'}) has no module 'api.core.v1'"
    ]
    assert found[1].message.endswith(f"from {tmp_path}/k8s/api/core/v1")


@pytest.mark.skipif(not HAVE_REFERENCE, reason="the reference (kcl_lib) is not installed")
def test_missing_module_messages_match_the_reference(tmp_path: Path) -> None:
    """lint_path's messages in order, and `kcl run`'s errors and suggestions."""
    cases = {"absolute": ("main.k", MISSING), "relative": ("app-main/main.k", "import .a.b as c\n")}
    for name, (entry, code) in cases.items():
        folder = tmp_path / name
        (folder / entry).parent.mkdir(parents=True)
        (folder / "kcl.mod").write_text('[package]\nname = "app"\nversion = "0.0.1"\n')
        (folder / entry).write_text(code)
    paths = [str(tmp_path / name / entry) for name, (entry, _) in cases.items()]
    theirs = reference_lint(paths)
    for path in paths:
        ours = list(dict.fromkeys(_flat(kclpy.lint_path(path, select=["E2F04"]))))  # unique
        assert theirs[path][: len(ours)] == ours, path
        reference = run_reference(files=[os.path.basename(path)], cwd=os.path.dirname(path))
        run = kcl_run([path])
        assert run[0] == reference.returncode == 1
        assert _module_errors(run[1]) == _module_errors(reference.stderr)


def kcl_run(arguments: list[str]) -> tuple[int, str]:
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "run", *arguments],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    return done.returncode, done.stderr


def _module_errors(stderr: str) -> list[str]:
    """The E2F04 errors of a `kcl run` error output: each header, the message under its
    caret and its suggestions (blank lines and the source lines left out)."""
    import re

    found: list[str] = []
    inside = False
    for line in re.sub(r"\x1b\[[0-9;]*m", "", stderr).splitlines():
        if line.startswith(("error[", "warning[")):
            inside = line.startswith("error[E2F04]")
            if inside:
                found.append(line)
        elif inside and "^" in line:
            found.append(line.split("^")[-1].strip())
        elif inside and line.startswith("suggestion: "):
            found.append(line)
    return found
