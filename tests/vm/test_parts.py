"""The VM's parts seen from outside: typed runtime errors, the runner's public reads,
the builtin context's services, and value access that fails as a diagnostic.

Expected outputs of the list unions are the reference's (kcl-lib 0.13.2), read once.
"""

from __future__ import annotations

import pytest

import kclpy
from kclpy.compile.stmts import PackageCompiler
from kclpy.loader import MAIN, Loader
from kclpy.sema import check_program
from kclpy.values import UNDEFINED
from kclpy.values.errors import CheckFailure, KclRuntimeError
from kclpy.vm.runner import Runner


def runner_for(code: str) -> Runner:
    """A runner over ``code`` compiled as main.k."""
    program = Loader("", {}, {"main.k": code}).load(["main.k"])
    assert not program.has_errors
    model = check_program(program)
    codes = {
        pkgpath: PackageCompiler(pkgpath, modules, model).compile()
        for pkgpath, modules in program.packages.items()
    }
    return Runner(codes, MAIN, {}, "", program.root)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("[{a = 1}] | [1]", "x:\n- 1\n"),
        ("[{a = 1}] | [None]", "x:\n- a: 1\n"),
        ("[[1]] | [None]", "x:\n- - 1\n"),
        ("[{a = 1}] | [{b = 2}]", "x:\n- a: 1\n  b: 2\n"),
        ("[[1, 2]] | [[3]]", "x:\n- - 3\n  - 2\n"),
        ("[{a = 1}] | [[1]]", 'union failure, expect "dict", got "list"'),
        ("[[1]] | [{a = 1}]", 'union failure, expect "list", got "dict"'),
    ],
)
def test_list_union_items(expression: str, expected: str) -> None:
    result = kclpy.run(f"x = {expression}\n")
    if result.ok:
        assert result.yaml == expected
    else:
        assert [d.message for d in result.diagnostics] == [expected]


def test_a_failed_check_is_reported_at_the_instance_with_the_check_as_second_label() -> None:
    code = 'schema S:\n    a: int\n    check:\n        a > 1, "too small"\n\ns = S {a = 1}\n'
    (diagnostic,) = kclpy.run(code).diagnostics
    labels = [(label.message, str(label.span)) for label in diagnostic.labels]
    assert labels == [
        ("Instance check failed", "main.k:6:5"),
        ("Check failed on the condition: too small", "main.k:4:9"),
    ]


def test_an_error_records_its_position_once_and_each_call_site_after() -> None:
    error = KclRuntimeError("boom")
    error.locate(("main.k", 4, 8))
    error.locate(("main.k", 20, 30))
    error.locate(("main.k", 20, 30))
    error.locate(("main.k", 40, 50))
    assert error.location == ("main.k", 4, 8)
    assert error.stack == [("main.k", 20, 30), ("main.k", 40, 50)]


def test_a_check_failure_keeps_the_user_message_for_runtime_catch() -> None:
    failure = CheckFailure("Check failed on the condition: small", "small")
    failure.locate(("main.k", 1, 2))
    error = failure.at_instance()
    assert (error.check_message, error.primary_label) == ("small", "Instance check failed")
    assert error.related == [(("main.k", 1, 2), "Check failed on the condition: small")]
    code = 'import runtime\nschema S:\n    a: int\n    check:\n        a > 1, "small"\n\n'
    code += "m = runtime.catch(lambda {S {a = 1}})\n"
    assert kclpy.run(code).yaml == "m: small\n"


def test_a_runtime_error_carries_the_kcl_call_stack_and_the_print_output() -> None:
    code = 'f = lambda x {\n    x.nope\n}\ng = lambda y {\n    f(y)\n}\nprint("hi")\nv = g(1)\n'
    result = kclpy.run(code)
    (diagnostic,) = result.diagnostics
    assert str(diagnostic.labels[0].span) == "main.k:2:5"
    assert [str(label.span) for label in diagnostic.stack] == [
        "main.k:5:5",
        "main.k:8:5",
        "main.k:8:1",
    ]
    assert result.log == "hi\n"


def test_the_runner_gives_its_log_after_a_failure_and_main_values_and_calls() -> None:
    runner = runner_for('print("before")\nadd = lambda a, b {a + b}\nbad = [][1]\n')
    with pytest.raises(KclRuntimeError):
        runner.run()
    assert runner.log == "before\n"
    runner = runner_for("add = lambda a, b {a + b}\nn = 2\n")
    output = runner.run()
    assert output.documents[0]["n"] == 2  # (functions are dropped by the emitter)
    assert runner.main_value("n") == 2
    assert runner.main_value("missing") is UNDEFINED
    assert runner.call(runner.main_value("add"), [1], {"b": 2}) == 3


def test_builtins_union_through_the_context_as_the_operator_does() -> None:
    code = (
        "import collection\nschema S:\n    a: int = 1\n    b: int = 2\n\n"
        "s = collection.union_all([S {b = 3}, {a = 5}])\nt = typeof(s)\nu = S {b = 3} | {a = 5}\n"
    )
    assert kclpy.run(code).yaml == "s:\n  a: 5\n  b: 3\nt: S\nu:\n  a: 5\n  b: 3\n"


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ('a = [1, 2, 3]\nb = a[:"x"]\n', "slice indices must be integers or None, not str"),
        ('i = "x"\nd = {l = [1, 2], l[i] = 3}\n', "list indices must be integers, not str"),
    ],
)
def test_bad_indexes_that_pass_without_the_checker_are_evaluation_errors(
    code: str, message: str
) -> None:
    result = kclpy.run(code, check=False)
    assert [(d.code.id, d.message) for d in result.diagnostics] == [("E3M38", message)]


def test_option_converts_to_its_declared_type() -> None:
    code = 'a = option("a", type="int")\nb = option("b", type="str")\n'
    code += 'c = option("c", type="bool")\n'
    result = kclpy.run(code, options={"a": "8", "b": 1.5, "c": 0})
    assert result.yaml == "a: 8\nb: '1.5'\nc: false\n"
    result = kclpy.run('a = option("a", type="int")\n', options={"a": "x"})
    assert [d.message for d in result.diagnostics] == ["cannot use 'x' as type 'int'"]
