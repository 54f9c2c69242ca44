"""``kcl import`` bounded against hostile and huge inputs: alias bombs, deep nesting
(JSON, YAML, TOML), inputs past ``--max-input-size``, ``--max-memory`` and
``--timeout``. Each gets exit 1 and a coded diagnostic at the place in the input
(through the installed command), quickly because the bound stops the work early;
ordinary anchors and nesting still import as before."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from import_helpers import kcl

from kclpy.source import SourceFile
from kclpy.tools.importer.bounds import ImportLimits, deep_offset
from kclpy.tools.importer.convert import ImportOptions, convert
from kclpy.tools.importer.failures import ImportFailure
from kclpy.tools.importer.kclgen import HEADER

HEADED = HEADER + "\n\n"  # the reference's header, then the data

BOMB = "\n".join(
    ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    + [f"{name}: &{name} [" + ",".join([f"*{previous}"] * 9) + "]" for previous, name in
       zip("abcdefgh", "bcdefghi", strict=True)]
) + "\n"  # fmt: skip


def refused(tmp_path: Path, name: str, text: str | bytes, *options: str) -> str:
    """Import ``text`` as the file ``name``; assert exit 1 and return standard error."""
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    done = kcl("import", "-o", "-", *options, name, cwd=tmp_path)
    assert done.returncode == 1, (done.returncode, done.stderr[-2000:])
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    return done.stderr


def test_alias_bomb_is_refused_at_the_collection_that_explodes(tmp_path: Path) -> None:
    # 342 bytes that stand for 387 million strings once the aliases are expanded
    stderr = refused(tmp_path, "bomb.yaml", BOMB, "-m", "yaml")
    assert stderr.startswith("error[E9010]: ImportError\n --> bomb.yaml:6:4\n")
    assert "this collection stands for 597,871 nodes once its aliases are expanded" in stderr
    assert "more than the 100,000 allowed for this input" in stderr


def test_alias_cycle_is_refused(tmp_path: Path) -> None:
    stderr = refused(tmp_path, "cycle.yaml", "a: 1\nb: &b [1, {c: *b}]\n", "-m", "yaml")
    assert " --> cycle.yaml:2:4\n" in stderr  # the collection (its anchor)
    assert "an alias names a collection that contains it" in stderr


def test_merge_key_bomb_is_refused(tmp_path: Path) -> None:
    lines = ["m0: &m0 {k0: 1, k1: 2}"] + [
        f"m{index}: &m{index} {{<<: [*m{index - 1}, *m{index - 1}], z{index}: 1}}"
        for index in range(1, 40)
    ]
    stderr = refused(tmp_path, "merge.yaml", "\n".join(lines) + "\n", "-m", "yaml")
    assert "error[E9010]" in stderr and "once its aliases are expanded" in stderr


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "1:1006"),  # 1,000 levels: root + 999
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "1:5001"),  # the 600 KB case of the issue
        ('{"a":' * 300_000 + "1" + "}" * 300_000, "1:5001"),  # past the interpreter's budget
        ('{"a": ' + "[" * 2_000 + "]" * 2_000 + "}", "1:1006"),
    ],
    ids=["lists-100000", "objects-100000", "objects-300000", "lists-2000"],
)
def test_deep_json_is_refused_at_the_first_bracket_too_deep(
    tmp_path: Path, text: str, where: str
) -> None:
    stderr = refused(tmp_path, "deep.json", text)
    assert stderr.startswith(f"error[E9010]: ImportError\n --> deep.json:{where}\n")
    assert "the input is nested too deeply (more than 1000 levels)" in stderr


def test_deep_json_schema_is_refused(tmp_path: Path) -> None:
    nested = '{"properties": {"a": ' * 600 + '{"type": "string"}' + "}}" * 600
    text = '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "x": '
    stderr = refused(tmp_path, "deep.schema.json", text + nested + "}", "-m", "jsonschema")
    assert "error[E9010]" in stderr and "nested too deeply" in stderr
    assert " --> deep.schema.json:1:" in stderr


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "1:1003"),  # flow: libyaml's limit
        ("".join(" " * depth + "a:\n" for depth in range(1_500)) + " " * 1_500 + "b: 1\n", "1000:"),
    ],
    ids=["flow-100000", "block-1500"],
)
def test_deep_yaml_is_refused(tmp_path: Path, text: str, where: str) -> None:
    stderr = refused(tmp_path, "deep.yaml", text, "-m", "yaml")
    assert f" --> deep.yaml:{where}" in stderr
    assert "error[E9010]" in stderr and "nesting depth" in stderr


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a = " + "[" * 5_000 + "]" * 5_000 + "\n", "1:1005"),
        ("[" + ".".join(["t"] * 3_000) + "]\nx = 1\n", "1:1"),  # tables: found as written
    ],
    ids=["arrays", "tables"],
)
def test_deep_toml_is_refused(tmp_path: Path, text: str, where: str) -> None:
    stderr = refused(tmp_path, "deep.toml", text)
    assert stderr.startswith(f"error[E9010]: ImportError\n --> deep.toml:{where}\n")
    assert "nested too deeply" in stderr


def test_input_past_the_size_limit_is_refused(tmp_path: Path) -> None:
    text = json.dumps({"items": [{"name": f"item-{index}"} for index in range(200)]})
    stderr = refused(tmp_path, "big.json", text, "--max-input-size", "1K")
    assert stderr.startswith("error[E9010]: ImportError\n --> big.json:1:1\n")
    assert "the input is larger than the limit of 1.0 KiB" in stderr
    assert "--max-input-size" in stderr
    done = kcl("import", "-o", "-", "--max-input-size", "0", "big.json", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(HEADED + "items = [\n")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_an_endless_input_is_read_only_up_to_the_limit(tmp_path: Path) -> None:
    options = ("-m", "json", "--max-input-size", "64K", "-o", "-")
    done = kcl("import", *options, "/dev/zero", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith("error[E9010]: ImportError\n --> /dev/zero:1:1\n")


def test_memory_limit_of_kcl_run_applies(tmp_path: Path) -> None:
    text = json.dumps({"items": [{"name": f"item-{index}", "n": index} for index in range(50_000)]})
    stderr = refused(tmp_path, "big.json", text, "--max-memory", "1M")
    assert stderr.startswith("error[E3R01]: ResourceLimitError\n")
    assert "memory limit of" in stderr and "--max-memory" in stderr


def test_time_limit_of_kcl_run_applies(tmp_path: Path) -> None:
    # tens of thousands of nested values take far longer than the 1 ms allowed
    items = [{"name": f"item-{index}", "n": [index]} for index in range(60_000)]
    text = json.dumps({"items": items})
    stderr = refused(tmp_path, "slow.json", text, "--timeout", "0.001")
    assert stderr.startswith("error[E3R01]: ResourceLimitError\n")
    assert "time limit of 0.001s" in stderr and "note: while importing slow.json" in stderr


@pytest.mark.parametrize("option", ["--max-memory", "--max-input-size", "--timeout"])
def test_bad_limit_values_are_usage_errors(tmp_path: Path, option: str) -> None:
    (tmp_path / "a.json").write_text('{"a": 1}')
    done = kcl("import", option, "12Q", "a.json", cwd=tmp_path)
    assert done.returncode == 2 and "invalid" in done.stderr


@pytest.mark.parametrize(
    ("text", "message", "where"),
    [
        ('{"a": 18446744073709551616}', "no literal for the integer", "1:2"),
        ('{"a": "\\ud800"}', "lone surrogate", "1:8"),
        ('{"a": ' + "1" * 5_000 + "}", "invalid JSON", "1:7"),
    ],
    ids=["integer-past-64-bits", "lone-surrogate", "too-many-digits"],
)
def test_values_kcl_cannot_hold_are_located(
    tmp_path: Path, text: str, message: str, where: str
) -> None:
    stderr = refused(tmp_path, "value.json", text)
    assert stderr.startswith(f"error[E9010]: ImportError\n --> value.json:{where}\n")
    assert message in stderr


@pytest.mark.parametrize(
    "text",
    ["a: !!int x\n", "a: !!timestamp x\n", "a: !!float y\n"],
)
def test_odd_yaml_tags_are_located(tmp_path: Path, text: str) -> None:
    stderr = refused(tmp_path, "tags.yaml", text, "-m", "yaml")
    assert stderr.startswith("error[E9010]: ImportError\n --> tags.yaml:1:")


def test_ordinary_anchors_still_expand(tmp_path: Path) -> None:
    base = "base: &base {image: nginx, ports: [80, 443], env: {A: '1', B: '2'}}\n"
    uses = "".join(f"app{index}: *base\n" for index in range(50))
    (tmp_path / "apps.yaml").write_text(base + uses)
    done = kcl("import", "-m", "yaml", "-o", "-", "apps.yaml", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count('image = "nginx"') == 51
    assert done.stdout.startswith(HEADED + 'base = {\n    image = "nginx"\n    ports = [80, 443]\n')


def convert_text(name: str, text: str, limits: ImportLimits) -> dict[str, str]:
    mode = "auto" if not name.endswith(".yaml") else "yaml"
    return convert(SourceFile(name, text), ImportOptions(mode, limits=limits))


def test_depth_limit_is_exact() -> None:
    limits = ImportLimits(max_depth=3)
    assert convert_text("ok.json", '{"a": {"b": [1]}}', limits)  # 3 levels
    for name, text in [
        ("deep.json", '{"a": {"b": [[1]]}}'),
        ("deep.yaml", "a:\n  b:\n  - [1]\n"),
        ("deep.toml", "[a.b]\nc = [1]\n"),
    ]:
        with pytest.raises(ImportFailure, match="more than 3 levels"):
            convert_text(name, text, limits)


def test_alias_budget_follows_the_input_size() -> None:
    text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\nb: [*a, *a, *a, *a, *a, *a, *a, *a]\n"
    generous = ImportLimits(alias_floor=0, alias_ratio=10)  # 10 x 69 characters
    assert "b = [\n" in convert_text("a.yaml", text, generous)["a.k"]
    strict = ImportLimits(alias_floor=0, alias_ratio=1)  # 70 nodes: b's list alone is 81
    with pytest.raises(ImportFailure) as failure:
        convert_text("a.yaml", text, strict)
    diagnostic = failure.value.diagnostics[0]
    assert "stands for 81 nodes once its aliases are expanded, more than the 70" in (
        diagnostic.message
    )
    assert diagnostic.span is not None and diagnostic.span.file.pos(diagnostic.span.start) == (2, 4)


def test_deep_offset_skips_strings() -> None:
    assert deep_offset('["[[[", [[1]]]', 2) == 9
    assert deep_offset('["\\"[[[", {}]', 2) is None
    assert deep_offset("[" * 10, 9) == 9
    assert deep_offset("[" * 9 + "]" * 9, 9) is None
