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


PROGRAM = """schema App:
    port?: int
    name: str = "web"
    _secret: str = "s"

app = App {}
gone = Undefined
memory = 1Ki
double = lambda x { x * 2 }
items = [1, None, Undefined]
"""


def test_documents_are_plain_data_as_the_output_leaves_them() -> None:
    import json

    import yaml

    from kclpy.values import UNDEFINED, SchemaInstance

    result = kclpy.run(PROGRAM)
    assert result.ok, result.diagnostics
    expected = {"app": {"name": "web"}, "memory": 1024.0, "items": [1, None]}
    assert result.documents == [expected]
    assert json.loads(json.dumps(result.documents)) == [expected]
    assert yaml.safe_load(result.text) == expected  # the same data as the YAML text
    (values,) = result.values  # the typed values, as the VM made them
    assert isinstance(values["app"], SchemaInstance) and values["gone"] is UNDEFINED
    assert values["app"]["_secret"] == "s" and callable(values["double"]) is False
    hidden = kclpy.run(PROGRAM, show_hidden=True, disable_none=True)
    assert hidden.documents == [{**expected, "app": {"name": "web", "_secret": "s"}, "items": [1]}]


def test_a_stream_of_documents_is_plain_data_too() -> None:
    code = 'import manifests\nmanifests.yaml_stream([{a = 1, _b = 2, c = None}, {d = "x"}])\n'
    result = kclpy.run(code)
    # yaml_stream keeps hidden keys unless asked (its ignore_private), as its text does
    assert result.ok and result.documents == [{"a": 1, "_b": 2, "c": None}, {"d": "x"}]
    opts = '}], opts={"ignore_none": True, "ignore_private": True})'
    quiet = kclpy.run(code.replace("}])", opts))
    assert quiet.text == "a: 1\n---\nd: x\n" and quiet.documents == [{"a": 1}, {"d": "x"}]


def test_diagnostics_print_readably_and_render_as_kcl_does() -> None:
    (diagnostic,) = kclpy.run("a = 1\nb = [1][5]\n").diagnostics
    assert isinstance(diagnostic, kclpy.Diagnostic)
    assert str(diagnostic).startswith("main.k:2:5: error[E3M38]: EvaluationError: ")
    text = diagnostic.render()
    assert text.splitlines()[:4] == [
        "error[E3M38]: EvaluationError",
        " --> main.k:2:5",
        "  |",
        "2 | b = [1][5]",
    ]
    assert "^" in text and diagnostic.render("short") == str(diagnostic)


def test_all_is_the_public_api_and_every_name_resolves() -> None:
    import pydoc

    for name in kclpy.__all__:
        assert getattr(kclpy, name) is not None, name
    assert {"run", "run_files", "RunResult", "Diagnostic", "Code"} <= set(kclpy.__all__)
    assert not {"api", "cli", "vm", "install_hint"} & set(kclpy.__all__)
    page = pydoc.render_doc(kclpy, renderer=pydoc.plaintext)
    assert "run_files(" in page and "is internal" in page
