"""`kcl` argument handling as the real CLI's: options and files in any order, repeated
options, ``--``, ``-`` for stdin, settings files and ``kcl.yaml``, help texts, exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest
from cli_helpers import kcl, write

MAIN = 'env = option("env")\nreplicas = option("replicas")\nb = [1, 2]\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path, {"main.k": MAIN, "extra.k": "c = {d = None}\n"})


@pytest.mark.parametrize(
    "args",
    [
        ["run", "-D", "env=prod", "main.k", "-D", "replicas=3"],
        ["run", "main.k", "-D", "env=prod", "-D", "replicas=3"],
        ["run", "-D", "env=prod", "-D", "replicas=3", "main.k"],
        ["run", "--argument", "env=prod", "main.k", "--argument=replicas=3"],
        ["main.k", "-D", "env=prod", "-D", "replicas=3"],
        ["run", "-D", "env=prod", "-D", "replicas=3", "--", "main.k"],
    ],
)
def test_options_and_files_in_any_order(project: Path, args: list[str]) -> None:
    done = kcl(*args, cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "env: prod\nreplicas: 3\nb:\n- 1\n- 2\n"


def test_files_between_options_and_every_option_repeated(project: Path) -> None:
    done = kcl("run", "-S", "b", "main.k", "-n", "extra.k", "-S", "c", "-D", "env=x", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "- - 1\n  - 2\n- {}\n"  # two selectors: a list of both


def test_standard_input_is_a_file_named_dash(project: Path) -> None:
    done = kcl("run", "-", "-D", "x=7", stdin='a = option("x")\n', cwd=project)
    assert (done.returncode, done.stdout) == (0, "a: 7\n")
    assert kcl("-", stdin="a = 1\n", cwd=project).stdout == "a: 1\n"


def test_json_is_indented_like_the_real_cli(project: Path) -> None:
    done = kcl("run", "main.k", "--format", "json", "-D", "env=é", cwd=project)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        '{\n    "env": "é",\n    "replicas": null,\n    "b": [\n        1,\n        2\n    ]\n}\n'
    )
    assert json.loads(done.stdout)["b"] == [1, 2]


def test_settings_files_given_both_ways_and_kcl_yaml_found(tmp_path: Path) -> None:
    """A 2023 KusionStack konfig stack: ``kcl.yaml`` lists ``${KCL_MOD}/...`` entries
    and ``ci-test/settings.yaml`` the options; both spellings of the command work."""
    root = write(
        tmp_path,
        {
            "kcl.mod": '[package]\nname = "konfig"\nversion = "0.0.1"\n',
            "base/app.k": "schema App:\n    name: str\n    replicas: int = 1\n",
            "base/render.k": 'render = {app = app.name, env = option("env")}\n',
            "app/base.k": 'app: App {name = "demo"}\n',
            "app/dev/main.k": "app: App {replicas = 2}\n",
            "app/dev/kcl.yaml": "kcl_cli_configs:\n  file:\n    - ../../base/app.k\n"
            "    - ../base.k\n    - main.k\n    - ${KCL_MOD}/base/render.k\n",
            "app/dev/ci-test/settings.yaml": "kcl_options:\n  - key: env\n    value: dev\n",
        },
    )
    stack = root / "app" / "dev"
    expected = "app:\n  name: demo\n  replicas: 2\nrender:\n  app: demo\n  env: dev\n"
    for args in (
        ["run", "-Y", "kcl.yaml", "ci-test/settings.yaml"],
        ["run", "-Y", "kcl.yaml", "-Y", "ci-test/settings.yaml"],
        ["run", "ci-test/settings.yaml", "-Y", "kcl.yaml"],
    ):
        done = kcl(*args, cwd=stack)
        assert (done.returncode, done.stdout) == (0, expected), done.stderr
    # no -Y: ./kcl.yaml is read
    assert kcl("run", cwd=stack).stdout == expected.replace("env: dev", "env: null")


def test_every_option_has_help_and_every_command_examples_and_exit_codes() -> None:
    from kclpy.cli import command_parser, commands

    for command in commands():
        parser = command_parser(command)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):  # kcl kusion's own commands
                continue
            assert action.help, f"kcl {command.name} {action.option_strings or action.dest}"
        text = kcl(command.name, "--help").stdout
        assert "exit codes:" in text and "3  a bug in kclpy" in text
        if command.name in ("run", "fmt", "lint", "test", "vet", "doc"):
            assert "examples:" in text, command.name
    assert kcl("help", "run").stdout == kcl("run", "--help").stdout
    top = kcl("--help")
    assert top.returncode == 0 and "exit codes:" in top.stdout and "clean" in top.stdout


def test_usage_errors_exit_2_with_a_code(project: Path) -> None:
    for args in (["run", "main.k", "--bogus"], ["bogus"], ["run", "main.k", "-E", "nameonly"]):
        done = kcl(*args, cwd=project)
        assert done.returncode == 2, args
        assert "error[E9002]: UsageError" in done.stderr and "Traceback" not in done.stderr
    assert kcl(cwd=project).returncode == 2


def test_no_input_and_a_folder_without_kcl_files_are_errors(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = kcl("run", "empty", cwd=tmp_path)
    assert done.returncode == 1 and "no KCL files" in done.stderr and done.stdout == ""
    done = kcl("run", cwd=tmp_path)
    assert done.returncode == 2 and "no input file" in done.stderr


def test_quiet_prints_only_errors_and_verbose_says_what_happens(project: Path) -> None:
    quiet = kcl("run", "main.k", "-q", cwd=project)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    bad = kcl("run", "-q", "-", stdin="a = 1 +\n", cwd=project)
    assert bad.returncode == 1 and "InvalidSyntax" in bad.stderr
    verbose = kcl("run", "main.k", "-v", "-o", "out.yaml", cwd=project)
    assert verbose.returncode == 0 and verbose.stdout == ""
    assert "entry files main.k" in verbose.stderr and "wrote" in verbose.stderr
    assert (project / "out.yaml").read_text().startswith("env: null")
    formatting = kcl("fmt", "--check", "-v", "-q", ".", cwd=project)
    assert formatting.stdout == "" and "kcl: .: 2 files" in formatting.stderr


def test_version_names_the_kcl_version() -> None:
    from kclpy import KCL_VERSION, __version__

    expected = f"kclpy {__version__} (KCL {KCL_VERSION})\n"
    assert kcl("version").stdout == expected
    assert kcl("--version").stdout == expected


def test_completion_scripts_and_completing_options(tmp_path: Path) -> None:
    script = kcl("completion", "bash")
    assert script.returncode == 0 and "complete" in script.stdout and "kcl" in script.stdout
    import os
    import shutil
    import subprocess

    # what a shell asks: argcomplete's protocol (the words so far, answers on fd 8)
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "COMP_LINE": "kcl run --sort",
        "COMP_POINT": str(len("kcl run --sort")),
        "_ARGCOMPLETE_STDOUT_FILENAME": str(tmp_path / "answers"),
    }
    subprocess.run(
        [sys.executable, "-m", "kclpy"], env=env, capture_output=True, check=False, timeout=60
    )
    assert (tmp_path / "answers").read_text().split() == ["--sort_keys", "--sort-keys"]
    if shutil.which("bash"):  # the script loads in a real shell and registers kcl
        loaded = subprocess.run(
            ["bash", "-c", 'eval "$(cat)"; complete -p kcl'],
            input=script.stdout,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert loaded.returncode == 0 and "kcl" in loaded.stdout, loaded.stderr


def test_doc_generate_is_the_real_spelling(tmp_path: Path) -> None:
    write(tmp_path, {"models/app.k": 'schema App:\n    """An app."""\n    name: str\n'})
    plain = kcl("doc", "models", "-o", "-", cwd=tmp_path)
    generated = kcl("doc", "generate", "--file-path", "models", "-o", "-", cwd=tmp_path)
    assert plain.returncode == generated.returncode == 0 and plain.stdout == generated.stdout
    assert "### App" in plain.stdout
    (tmp_path / "out").mkdir()
    done = kcl("doc", "generate", "--file-path", "models", "--target", "out", cwd=tmp_path)
    assert done.returncode == 0
    assert (tmp_path / "out" / "docs" / "main.md").read_text() == plain.stdout


def test_clean_removes_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("KCLPY_CACHE_DIR", str(cache))
    write(tmp_path, {"pkg/a.k": "x = 1\n", "main.k": "import pkg\ny = pkg.x\n"})
    assert kcl("run", "main.k", cwd=tmp_path).returncode == 0
    assert cache.is_dir() and any(cache.iterdir())
    no = kcl("clean", cwd=tmp_path, stdin="n\n")
    assert no.returncode == 0 and "Aborted." in no.stdout and cache.is_dir()
    done = kcl("clean", "-y", cwd=tmp_path)
    assert done.returncode == 0 and "removed" in done.stdout and not cache.exists()
    again = kcl("clean", "-y", cwd=tmp_path)
    assert again.returncode == 0 and "nothing to clean" in again.stdout


def test_public_api_is_listed() -> None:
    import kclpy
    import kclpy.api

    names = dir(kclpy)
    assert "run" in names and "run_files" in names and "KCL_VERSION" in names
    public = [
        name
        for name, value in vars(kclpy.api).items()
        if not name.startswith("_") and getattr(value, "__module__", None) == "kclpy.api"
    ]
    assert sorted(set(public) - set(kclpy.__all__)) == []
    for name in kclpy.__all__:
        assert getattr(kclpy, name) is not None


@pytest.mark.parametrize(
    "text",
    [
        "kcl_cli_configs: [\n",
        "kcl_cli_configs:\n  files: {a: 1}\n",
        "kcl_cli_configs:\n  package_maps: [1]\n",
        "kcl_cli_configs:\n  output: [1]\n",
        "kcl_options: 3\n",
        "kcl_options:\n  - value: 1\n",
        "- just a list\n",
    ],
)
def test_malformed_settings_files_are_evaluation_errors(project: Path, text: str) -> None:
    write(project, {"bad.yaml": text})
    done = kcl("run", "main.k", "-Y", "bad.yaml", cwd=project)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        "error[E3M38]: EvaluationError\nFailed to load 'bad.yaml', invalid setting file format\n"
    )
    assert sorted(path.name for path in project.iterdir()) == ["bad.yaml", "extra.k", "main.k"]


def test_a_single_file_entry_may_be_a_string(project: Path) -> None:
    write(project, {"one.yaml": "kcl_cli_configs:\n  files: extra.k\n"})
    assert kcl("run", "-Y", "one.yaml", cwd=project).stdout == "c:\n  d: null\n"


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (["rn", "main.k"], "did you mean 'run'?"),
        (["run", "main.k", "--formt", "json"], "did you mean '--format'?"),
        (["fmt", "--chek", "."], "did you mean '--check'?"),
        (["run", "main.k", "--zzzzzz"], None),
    ],
)
def test_mistyped_commands_and_options_get_a_suggestion(
    project: Path, args: list[str], suggestion: str | None
) -> None:
    done = kcl(*args, cwd=project)
    assert done.returncode == 2 and "UsageError" in done.stderr
    if suggestion is None:
        assert "did you mean" not in done.stderr
    else:
        assert suggestion in done.stderr


@pytest.mark.parametrize(
    "args",
    [["-D", "env"], ["-D", "=prod"], ["-D", "env="], ["-O", "app"], ["-O", "a.b="]],
)
def test_malformed_arguments_and_overrides_are_usage_errors(project: Path, args: list[str]) -> None:
    done = kcl("run", "main.k", *args, cwd=project)
    assert done.returncode == 2, done.stderr
    assert "error[E9002]: UsageError" in done.stderr and done.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["-Y", "settings.yaml"],
        ["-D", "env=prod", "main.k", "-D", "replicas=3"],
        ["--argument=env=prod", "-Dreplicas=3", "main.k"],
    ],
)
def test_the_root_command_takes_run_options_as_the_real_cli(project: Path, args: list[str]) -> None:
    (project / "settings.yaml").write_text(
        "kcl_cli_configs:\n  files: [main.k]\n"
        "kcl_options:\n  - key: env\n    value: prod\n  - key: replicas\n    value: 3\n"
    )
    done = kcl(*args, cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "env: prod\nreplicas: 3\nb:\n- 1\n- 2\n"


def test_the_command_table_names_each_command_and_its_aliases() -> None:
    """`kcl` finds a command's module by the names in its table, without importing the
    others: the table agrees with the records, in the order of `kcl --help`."""
    from kclpy.cli import _NAMES, commands

    assert [(command.name, *command.aliases) for command in commands()] == list(_NAMES)


@pytest.mark.parametrize(
    "words",
    [
        ["main.k"],
        ["-D", "env=prod", "main.k", "-Dreplicas=3", "--argument=x=1", "-D=y=2"],
        ["a.k", "-E", "k=dir", "-S", "app", "-O", "a.b=1", "-Y", "s.yaml", "-o", "-", "b.k"],
        ["-f", "json", "--format=toml", "-n", "-k", "-H", "-r", "-d", "-K", "-q", "-v", "-v"],
        ["--tag", "v1", "--locked", "-V", "--error-format=short", "--no-style", "-"],
        ["--max-memory", "1G", "--timeout=2.5", "--allow-fs-read", "/", "--no-fs", "x.k"],
    ],
)
def test_common_run_lines_are_read_without_argparse_as_argparse_reads_them(
    words: list[str],
) -> None:
    from kclpy.cli import command_parser
    from kclpy.cli.fast_reader import read_fast
    from kclpy.cli.run import COMMAND, configure

    fast = read_fast(configure, words)
    assert fast is not None, words
    assert vars(fast) == vars(command_parser(COMMAND).parse_intermixed_args(words))
