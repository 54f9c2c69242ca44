"""The Python API as the README shows it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import kclpy


def test_run_code_string() -> None:
    result = kclpy.run("a = 1\nb = a + 1\n")
    assert result.ok and result.text == "a: 1\nb: 2\n"
    assert result.documents == [{"a": 1, "b": 2}]


def test_run_files_with_options_and_sort_keys(tmp_path: Path) -> None:
    main = tmp_path / "main.k"
    main.write_text('env = option("env")\nreplicas = 3 if env == "prod" else 1\nb = 0\n')
    result = kclpy.run_files([str(main)], options={"env": "prod"}, sort_keys=True)
    assert result.ok
    assert result.text == "b: 0\nenv: prod\nreplicas: 3\n"
    result = kclpy.run_files([str(main)], options=["env=dev"], format="json")
    assert result.text.startswith("{")


def test_diagnostics_have_code_position_and_message() -> None:
    result = kclpy.run("a = 1\nb = [1][5]\n")
    assert not result.ok
    diagnostic = result.diagnostics[0]
    assert diagnostic.code.id == "E3M38"
    assert diagnostic.location().endswith("main.k:2:5")
    assert "out of range" in diagnostic.message


def test_concurrent_runs_do_not_interfere() -> None:
    results: dict[int, str] = {}

    def work(n: int) -> None:
        code = f"schema P:\n    count: int = {n}\n    check:\n        count >= 0\np = P {{}}\n"
        results[n] = kclpy.run(code).text

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: f"p:\n  count: {n}\n" for n in range(8)}


def test_strict_range_check_limits_arithmetic_to_32_bits() -> None:
    assert kclpy.run("a = 2147483647 + 1\n").text == "a: 2147483648\n"
    result = kclpy.run("a = 2147483647 + 1\n", strict_range_check=True)
    assert not result.ok
    assert result.diagnostics[0].message == "2147483648: A 32 bit integer overflow"
    result = kclpy.run("a = 3.4e38 * 100.0\n", strict_range_check=True)
    assert result.diagnostics[0].message == "3.4e+40: A 32-bit floating point number overflow"


def test_bad_option_text_is_an_evaluation_error() -> None:
    result = kclpy.run("a = 1\n", options=["key=value="])
    assert not result.ok
    assert result.diagnostics[0].message == "Invalid value for top level arguments"


def test_overrides_rewrite_the_program_before_checking(tmp_path: Path) -> None:
    main = tmp_path / "main.k"
    main.write_text('schema P:\n    name: str\n    age: int = 1\np = P {name = "a", age = 5}\n')
    result = kclpy.run_files([str(main)], overrides=['p.name="Bob"', "p.age-", "c=3"])
    assert result.ok, result.diagnostics
    assert result.text == "p:\n  name: Bob\n  age: 1\nc: 3\n"
    assert kclpy.override_file(str(main), ["p.age=7"])
    assert kclpy.run_files([str(main)]).text == "p:\n  name: a\n  age: 7\n"


def test_vendored_and_kcl_pkg_path_packages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = tmp_path / "app"
    (app / "vendor" / "helloworld_0.1.0").mkdir(parents=True)
    (app / "kcl.mod").write_text('[package]\nname = "app"\n')
    (app / "vendor" / "helloworld_0.1.0" / "main.k").write_text('hello = "vendored"\n')
    store = tmp_path / "store" / "greet_1.0.0"
    store.mkdir(parents=True)
    (store / "main.k").write_text('msg = "from KCL_PKG_PATH"\n')
    (app / "main.k").write_text(
        "import helloworld\nimport greet\na = helloworld.hello\nb = greet.msg\n"
    )
    monkeypatch.setenv("KCL_PKG_PATH", str(tmp_path / "store"))
    result = kclpy.run_files([str(app / "main.k")])
    assert result.ok, result.diagnostics
    assert result.text == "a: vendored\nb: from KCL_PKG_PATH\n"
