"""`kcl test`, `kcl vet` and `kcl fmt` from the command line: folders given from a parent
folder, ``./...``, data errors at the data file's line and column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import kcl, write

SCHEMA = (
    "schema User:\n    name: str\n    age: int = 1\n    tags?: [str]\n"
    '    check:\n        age >= 0, "age must not be negative"\n'
)


@pytest.fixture
def packages(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        {
            "sub/math.k": "add = lambda x, y { x + y }\n",
            "sub/math_test.k": "test_add = lambda { assert add(1, 2) == 3 }\n",
            "sub/deep/more_test.k": 'test_fails = lambda { assert 1 == 2, "boom" }\n',
            ".hidden/skip_test.k": "test_hidden = lambda { assert False }\n",
        },
    )


@pytest.mark.parametrize("target", ["sub", "./sub", "sub/"])
def test_a_package_below_the_current_folder(packages: Path, target: str) -> None:
    done = kcl("test", target, cwd=packages)
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines()[0].startswith("test_add: PASS")
    assert done.stdout.endswith("PASS: 1/1\n")


def test_recursive_packages_skip_hidden_folders(packages: Path) -> None:
    for target in ("./...", "...", "sub/..."):
        done = kcl("test", target, cwd=packages)
        assert done.returncode == 1, target
        assert "test_add: PASS" in done.stdout and "test_fails: FAIL" in done.stdout
        assert "boom" in done.stdout and "test_hidden" not in done.stdout
        assert done.stdout.endswith("FAIL: 1/2\n")
    assert kcl("test", "sub", "--run", "nothing", cwd=packages).stdout == "no test files\n"
    missing = kcl("test", "nowhere", cwd=packages)
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_vet_points_into_json_data(tmp_path: Path) -> None:
    write(tmp_path, {"user.k": SCHEMA, "data.json": '{\n  "name": "a",\n  "extra": 1\n}\n'})
    done = kcl("vet", "data.json", "user.k", "--no_style", cwd=tmp_path)
    assert done.returncode == 1
    assert " --> data.json:3:3\n" in done.stderr and '"extra": 1' in done.stderr
    assert "Cannot add member 'extra'" in done.stderr


def test_vet_reads_yaml_by_extension_and_points_into_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"user.k": SCHEMA, "ok.yml": "name: a\n", "bad.yaml": "name: a\ntags:\n  - x\nage: x\n"},
    )
    assert kcl("vet", "ok.yml", "user.k", cwd=tmp_path).stdout == "Validate success!\n"
    done = kcl("vet", "bad.yaml", "user.k", "--no_style", cwd=tmp_path)
    assert done.returncode == 1 and " --> bad.yaml:4:" in done.stderr
    assert "expected int" in done.stderr
    report = kcl("vet", "bad.yaml", "user.k", "--output", "json", cwd=tmp_path)
    document = json.loads(report.stdout)
    assert report.returncode == 1 and document["success"] is False
    assert document["errors"][0]["labels"][0]["file"] == "bad.yaml"
    assert document["errors"][0]["labels"][0]["line"] == 4


def test_vet_check_failures_point_at_the_data_and_the_check(tmp_path: Path) -> None:
    write(tmp_path, {"user.k": SCHEMA, "data.json": '{"name": "a", "age": -1}'})
    done = kcl("vet", "data.json", "user.k", "--no_style", cwd=tmp_path)
    assert done.returncode == 1
    assert " --> data.json:1:1\n" in done.stderr and " --> user.k:6:9\n" in done.stderr
    assert "user.k:8" not in done.stderr  # the generated program's lines are not shown


def test_vet_unreadable_files_are_io_errors(tmp_path: Path) -> None:
    write(tmp_path, {"user.k": SCHEMA})
    done = kcl("vet", "none.json", "user.k", cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("error[E9001]: IOError\n")
    piped = kcl("vet", "-", "user.k", "--format", "yaml", stdin="name: b\n", cwd=tmp_path)
    assert piped.stdout == "Validate success!\n"


def test_test_and_vet_take_the_runner_options(tmp_path: Path) -> None:
    """As the real CLI: ``kcl test -D/-E/-Y``, ``kcl vet -E``."""
    write(
        tmp_path,
        {
            "lib/names.k": "schema Name:\n    value: str\n    check:\n        len(value) > 1\n",
            "pkg/main.k": 'import names\nwanted = option("wanted")\n',
            "pkg/main_test.k": 'test_wanted = lambda { assert wanted == "yes" }\n',
            "settings.yaml": "kcl_options:\n  - key: wanted\n    value: 'yes'\n",
            "schema.k": "import names\n\nschema User:\n    name: names.Name\n",
            "user.json": '{"name": {"value": "x"}}',
        },
    )
    assert kcl("test", "pkg", "-E", "names=lib", cwd=tmp_path).returncode == 1
    assert kcl("test", "pkg", "-D", "wanted=yes", "-E", "names=lib", cwd=tmp_path).returncode == 0
    done = kcl("test", "-Y", "settings.yaml", "pkg", "-E", "names=lib", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.endswith("PASS: 1/1\n")
    bad = kcl("test", "pkg", "-D", "wanted", "-E", "names=lib", cwd=tmp_path)
    assert bad.returncode == 2 and "UsageError" in bad.stderr  # -D without '='
    assert "did you mean" not in bad.stderr and "expected NAME=VALUE" in bad.stderr
    vet = kcl("vet", "user.json", "schema.k", "-s", "User", "-E", "names=lib", cwd=tmp_path)
    assert vet.returncode == 1 and " --> user.json:1:" in vet.stderr, vet.stderr
    assert "Check failed on the condition" in vet.stderr


def test_vet_positions_for_tab_indented_json_and_yaml_merge_keys(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "user.k": SCHEMA,
            "tabs.json": '{\n\t"name": 1,\n\t"age": 3\n}\n',
            "merged.yaml": "name: 1\n<<: {age: 2}\n",  # keys do not match: the whole data
        },
    )
    tabs = kcl("vet", "tabs.json", "user.k", "--no_style", cwd=tmp_path)
    assert tabs.returncode == 1 and " --> tabs.json:2:2\n" in tabs.stderr
    merged = kcl("vet", "merged.yaml", "user.k", "--no_style", cwd=tmp_path)
    assert merged.returncode == 1 and " --> merged.yaml:1:1\n" in merged.stderr
    assert "user.k:8" not in merged.stderr
