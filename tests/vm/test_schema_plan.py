"""Schema instances built from the per-schema plan (``kclpy.vm.objects.SchemaPlan``)
give the values and the errors the per-attribute path gave: a value of a scalar type, or one of
a union's literals, skips the type check, any other value is checked (and fails with
the same words at the same place); typed lists and dicts whose items all pass are kept;
constant defaults, overriding config entries, assignments into an attribute, the
index signature's extra keys and required attributes behave as before.

The values reach the schemas through ``f`` (a lambda returning ``any``) so that the
checker cannot judge them and the runtime checks run. The expectations were taken
from kclpy before the plan (main at 236825a)."""

from __future__ import annotations

import pytest

import kclpy
from kclpy.diag.render import render

ANY = "f = lambda x: any -> any { x }\n"


def schema(*attributes: str) -> str:
    return ANY + "schema P:\n" + "".join(f"    {line}\n" for line in attributes) + "\n"


# (program, the YAML printed, or the first error in the short format)
CASES = [
    (
        schema('tier: "a" | "b" = "a"') + 'p = P {tier = f("b")}\nq = P {}\n',
        "p:\n  tier: b\nq:\n  tier: a\n",
    ),
    (
        schema('tier: "a" | "b" = "a"') + 'q = P {tier = f("c")}\n',
        'main.k:5:5: error[E3M38]: EvaluationError: expect "a" | "b", got str',
    ),
    (schema("n: int = 1") + "p = P {n = f(2)}\n", "p:\n  'n': 2\n"),
    (
        schema("n: int = 1") + "q = P {n = f(True)}\n",
        "main.k:5:5: error[E3M38]: EvaluationError: expect int, got bool",
    ),
    (schema("n: float = 1") + "p = P {n = f(2)}\nq = P {}\n", "p:\n  'n': 2\nq:\n  'n': 1\n"),
    (
        schema("n: float = 1") + 'q = P {n = f("2")}\n',
        "main.k:5:5: error[E3M38]: EvaluationError: expect float, got str",
    ),
    (
        schema("n: bool = True") + "q = P {n = f(0)}\n",
        "main.k:5:5: error[E3M38]: EvaluationError: expect bool, got int",
    ),
    (schema("n: int | str = 1") + 'p = P {n = f("s")}\n', "p:\n  'n': s\n"),
    (
        schema("n: int | str = 1") + "q = P {n = f(1.5)}\n",
        "main.k:5:5: error[E3M38]: EvaluationError: expect int | str, got float",
    ),
    (
        schema('n: 1 | 2 | "x" = 1') + 'p = P {n = f("x")}\nr = P {n = f(2)}\n',
        "p:\n  'n': x\nr:\n  'n': 2\n",
    ),
    (
        schema('n: 1 | 2 | "x" = 1') + "q = P {n = f(True)}\n",
        'main.k:5:5: error[E3M38]: EvaluationError: expect 1 | 2 | "x", got bool',
    ),
    (schema("d: {str:int} = {}") + "p = P {d = f({a = 1})}\n", "p:\n  d:\n    a: 1\n"),
    (
        schema("d: {str:int} = {}") + 'q = P {d = f({a = "x"})}\n',
        "main.k:5:5: error[E3M38]: EvaluationError: expect {str:int}, got dict",
    ),
    (schema("l: [int] = []") + "p = P {l = f([1, 2])}\n", "p:\n  l:\n  - 1\n  - 2\n"),
    (
        schema("l: [int] = []") + 'q = P {l = f([1, "x"])}\n',
        "main.k:5:5: error[E3M38]: EvaluationError: expect [int], got list",
    ),
    (
        ANY
        + "schema Q:\n    v: int\n\n"
        + schema("l: [Q] = []")[len(ANY) :]
        + "p = P {l = f([{v = 1}])}\n",
        "p:\n  l:\n  - v: 1\n",
    ),
    (
        schema("n: int = 0", 's: str = ""', "m?: str", "o: str = f(None)") + "p = P {n = 0}\n",
        "main.k:8:1: error[E3M38]: EvaluationError: attribute 'o' of P is required and can't "
        "be None or Undefined",
    ),
    (
        schema('labels: {str:str} = {x = "1"}', 'labels.y = "2"')
        + 'p = P {labels: {z = "3"}}\nq = P {labels = {z = "3"}}\n',
        "p:\n  labels:\n    x: '1'\n    z: '3'\n    'y': '2'\nq:\n  labels:\n    z: '3'\n",
    ),
    (
        schema("[k: str]: str", 'a: str = "1"') + 'p = P {z = "z", a = "2", y = "y"}\n',
        "p:\n  a: '2'\n  'y': 'y'\n  z: z\n",
    ),
    (
        "schema B:\n    name: str\n    enabled: bool = True\n\n"
        "schema C(B):\n    n: int = len(name)\n    enabled = False\n\n"
        'c = C {name = "abc"}\nd = C {name = "x", enabled = True}\n'
        "s = [i.name for i in C.instances()]\nt = len(B.instances())\n",
        "c:\n  name: abc\n  enabled: false\n  'n': 3\nd:\n  name: x\n  enabled: true\n  'n': 1\n"
        "s:\n- abc\n- x\nt: 2\n",
    ),
    (
        schema("port: int = 80", 'endpoint: str = "{}:{}".format(name, port)', "name: str")
        + 'p = P {name = "x"}\nq = P {name = "y", port = f(81)}\n',
        "p:\n  port: 80\n  endpoint: x:80\n  name: x\n"
        "q:\n  port: 81\n  endpoint: y:81\n  name: 'y'\n",
    ),
    (
        ANY + 'k = f("{}-{}")\na = k.format(1, 2)\nb = k.format("x", [1])\n',
        "k: '{}-{}'\na: '1-2'\nb: x-[1]\n",
    ),
    (
        'a = "{}{}".format(1)\n',
        "main.k:1:5: error[E3M38]: EvaluationError: argument tuple index out of range",
    ),
]


def printed(program: str) -> str:
    result = kclpy.run(program)
    errors = [d for d in result.diagnostics if d.severity.name == "ERROR"]
    return render(errors[0], "short") if errors else result.text


@pytest.mark.parametrize(("program", "expected"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_instances_and_errors_are_unchanged(program: str, expected: str) -> None:
    assert printed(program) == expected


def test_a_check_fails_at_its_condition() -> None:
    program = schema("port: int = 80", "", "check:", '    0 < port < 65536, "port out of range"')
    result = kclpy.run(program + "p = P {port = f(70000)}\n")
    error = next(d for d in result.diagnostics if d.severity.name == "ERROR")
    text = render(error)
    assert "Instance check failed" in text
    assert "main.k:6:9" in text and "Check failed on the condition: port out of range" in text
