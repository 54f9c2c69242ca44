"""The driver's stages (``kclpy.pipeline.driver``) one by one and chained."""

from __future__ import annotations

from pathlib import Path

import pytest

import kclpy
from kclpy.diag import Diagnostic
from kclpy.emit import EmitOptions
from kclpy.loader import Program
from kclpy.pipeline import driver
from kclpy.pipeline.inputs import Settings
from kclpy.pipeline.queries import Database
from kclpy.tools.override import apply_overrides

PROGRAM = """\
print("hello")

schema Box:
    size: int
    check:
        size < 10, "too big"

a = Box {size = option("size", default=1)}
"""


def _inputs(code: str, **kwargs: object) -> driver.Inputs:
    return driver.Inputs(["main.k"], sources={"main.k": code}, **kwargs)  # type: ignore[arg-type]


def test_the_stages_chained_by_hand_give_what_run_gives() -> None:
    inputs = _inputs(PROGRAM)
    program = driver.load(inputs)
    assert not program.has_errors and list(program.packages) == ["__main__"]
    model = driver.check(program)
    assert model.diagnostics == []
    diagnostics: list[Diagnostic] = []
    built = driver.compile_program(program, model, diagnostics)
    assert built is not None and set(built[0]) == {"__main__"} and diagnostics == []
    compiled = driver.Compiled(built[0], program.root, {}, "", None, built[1])
    settings = driver.RunSettings({"size": 3})
    output = driver.execute(driver.start(compiled, settings), settings)
    assert output.log == "hello\n"
    text = driver.render(output, EmitOptions(format="json"))
    assert text == '{"a": {"size": 3}}\n'
    whole = driver.run(inputs, settings, EmitOptions(format="json"))
    assert (whole.text, whole.log, whole.ok) == (text, "hello\n", True)
    through_api = kclpy.run(PROGRAM, options={"size": 3}, format="json")
    assert (through_api.text, through_api.log, through_api.ok) == (text, "hello\n", True)


@pytest.mark.parametrize(
    ("code", "expected", "line"),
    [
        ("a = 1\nb = (\n", "E1001", 2),  # load: a syntax error
        ("import nosuch\n", "E2F04", 1),  # load: a missing package
        ('a = 1\nb: int = "x"\n', "E2G22", 2),  # check: a type error
    ],
)
def test_an_error_stops_the_pipeline_with_its_code(code: str, expected: str, line: int) -> None:
    result = driver.run(_inputs(code), driver.RunSettings(), EmitOptions())
    assert not result.ok and result.text == "" and result.documents == [] and result.log == ""
    diagnostic = result.diagnostics[0]
    assert diagnostic.code.id == expected
    assert diagnostic.span is not None and diagnostic.span.begin_pos.line == line


def test_a_runtime_error_keeps_the_log_and_its_position() -> None:
    result = driver.run(
        _inputs(PROGRAM), driver.RunSettings({"size": 30}), EmitOptions(), database=None
    )
    assert not result.ok and result.log == "hello\n"
    (diagnostic,) = result.diagnostics
    assert diagnostic.code.id == "E3M38" and "too big" in diagnostic.message
    assert diagnostic.span is not None and diagnostic.span.file.path == "main.k"
    assert diagnostic.span.begin_pos.line == 8


def test_the_edit_stage_runs_between_loading_and_checking() -> None:
    seen: list[list[str]] = []

    def edit(program: Program) -> list[Diagnostic]:
        seen.append(list(program.packages))
        return []

    result = driver.run(_inputs("a = 1\n", edit=edit), driver.RunSettings(), EmitOptions())
    assert result.text == "a: 1\n" and seen == [["__main__"]]


def test_a_cache_hit_still_places_runtime_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KCLPY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KCLPY_NO_CACHE", raising=False)
    (tmp_path / "main.k").write_text(PROGRAM)
    inputs = driver.Inputs([str(tmp_path / "main.k")], str(tmp_path))
    first = driver.front_end(inputs, [])
    assert first is not None and first.files  # a miss: the loaded files
    assert first.store is not None
    first.store()  # (what a run does once it has run)
    second = driver.front_end(inputs, [])
    assert second is not None and second.files == {}  # a hit: nothing loaded
    failed = driver.run(inputs, driver.RunSettings({"size": 30}), EmitOptions())
    (diagnostic,) = failed.diagnostics
    assert diagnostic.span is not None and diagnostic.span.file.path == str(tmp_path / "main.k")


def test_option_texts_decode_as_the_reference_does() -> None:
    assert driver.options_dict(["a=1", "b=12e1", "c=True", "d=x"]) == {
        "a": 1,
        "b": "12e1",
        "c": True,
        "d": "x",
    }
    with pytest.raises(ValueError):
        driver.options_dict(["novalue"])


def test_an_edited_program_never_shares_trees_or_code(tmp_path: Path) -> None:
    (tmp_path / "main.k").write_text("a = 1\n")
    inputs = driver.Inputs([str(tmp_path / "main.k")], str(tmp_path))
    memory = Database(Settings(tool_facts=False, shared=True))

    def edit(program: Program) -> list[Diagnostic]:
        return apply_overrides(program, ["a=2"])

    edited = driver.run(inputs._replace(edit=edit), driver.RunSettings(), EmitOptions(), memory)
    plain = driver.run(inputs, driver.RunSettings(), EmitOptions(), memory)
    assert (edited.text, plain.text) == ("a: 2\n", "a: 1\n")
