"""The upstream override cases (kcl-lang/kcl's ``crates/query`` tests and ``crates/api``
test data), built into the git-ignored ``.corpus/override/`` and checked against an
implementation: kclpy or the reference (kcl-lib).

    python tests/tools/override_corpus.py build $KCLPY_MIRRORS/kcl-lang+kcl/repo [.corpus/override]
    python tests/tools/override_corpus.py check kclpy|reference [.corpus/override]

``build`` reads a kcl-lang/kcl git directory (bare is fine): the test files are
copied as they are, the specs, import paths and expected texts are read out of the
Rust tests (``crates/query/src/tests.rs``) into ``cases.json``. ``check`` runs every
case through one implementation (imported here: run it in the interpreter that has
the implementation, e.g. another checkout's venv) and prints one JSON object: for each
case id whether it met the upstream expectation and, for file cases, the text the
implementation left. Self-contained (no imports from the test suite), so that an older
kclpy can be measured with the same script.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

QUERY = "crates/query/src"
API = "crates/api/src/testdata"
FILES = {
    "simple.bk.k": f"{QUERY}/test_data/simple.bk.k",
    "expect.k": f"{QUERY}/test_data/expect.k",
    "config.k": f"{QUERY}/test_data/config.k",
    "import_paths.k": f"{QUERY}/test_data/import_paths.k",
    "invalid.bk.k": f"{QUERY}/test_data/invalid.bk.k",
    "main.bk.k": f"{QUERY}/test_data/test_override_file/main.bk.k",
    "insert_expect.k": f"{QUERY}/test_data/test_override_file/expect.k",
    "override_bool.k": f"{API}/override_bool.k",
    "override_dict.k": f"{API}/override_dict.k",
    "override_dict_0.k": f"{API}/override_dict_0.k",
    "override_list.k": f"{API}/override_list.k",
    "test.k": f"{API}/test.k",
}
API_CASES = {
    "override-file-bool": "override_bool.k",
    "override-file-dict": "override_dict.k",
    "override-file-dict_0": "override_dict_0.k",
    "override-file-list": "override_list.k",
    "override-file": "test.k",
}
_LITERAL = re.compile(r'r#"(.*?)"#|"((?:[^"\\]|\\.)*)"', re.S)


# --------------------------------------------------------------------------- build


def _git_show(repo: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, "show", f"HEAD:{path}"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def _strings(rust: str) -> list[str]:
    """The string literals of a piece of Rust source, unescaped."""
    found = []
    for match in _LITERAL.finditer(rust):
        if match.group(1) is not None:
            found.append(match.group(1))
        else:
            found.append(json.loads('"' + match.group(2) + '"'))
    return found


def _function(tests: str, name: str) -> str:
    start = tests.index(f"fn {name}()")
    following = tests.find("\n#[test]", start)
    return tests[start : following if following > 0 else len(tests)]


def _vec(body: str, variable: str) -> list[str]:
    match = re.search(rf"let {variable} = vec!\[(.*?)\];", body, re.S)
    return _strings(match.group(1)) if match else []


def build(repo: str, out: str) -> None:
    """Write the files and ``cases.json`` of the upstream override cases into ``out``."""
    os.makedirs(out, exist_ok=True)
    for name, path in FILES.items():
        Path(out, name).write_text(_git_show(repo, path), encoding="utf-8")
    tests = _git_show(repo, f"{QUERY}/tests.rs")
    cases: list[dict[str, Any]] = []

    def file_case(name: str, function: str, **fields: Any) -> None:
        body = _function(tests, function)
        case = {"id": f"query/{function}", "kind": "file", "specs": _vec(body, "specs")}
        case.update(import_paths=_vec(body, "import_paths"), repeat=1, input=name)
        case.update(fields)
        cases.append(case)

    file_case("simple.bk.k", "test_override_file_simple", expect="expect.k", result=True)
    file_case("import_paths.k", "test_override_file_import_paths", result=True)
    config = _function(tests, "test_override_file_config")
    expected = _strings(config[config.index("expected_code,") :])[0]
    Path(out, "config.expect.k").write_text(expected, encoding="utf-8")
    file_case("config.k", "test_override_file_config", expect="config.expect.k")
    file_case(
        "main.bk.k", "test_override_file_insert", expect="insert_expect.k", result=True, repeat=5
    )
    invalid = _function(tests, "test_overridefile_with_invalid_kcl")
    first_error = _strings(invalid[invalid.index("messages[0].message") :])[0]
    cases.append(
        {"id": "query/test_overridefile_with_invalid_kcl", "kind": "file"}
        | {"input": "invalid.bk.k", "specs": ["a=b"], "import_paths": [], "repeat": 1}
        | {"result": True, "parse_errors": 2, "first_error": [first_error, 1, 8]}
    )
    spec = _function(tests, "test_override_file_with_invalid_spec")
    cases.append(
        {"id": "query/test_override_file_with_invalid_spec", "kind": "file"}
        | {"input": "main.bk.k", "specs": _vec(spec, "specs"), "import_paths": [], "repeat": 1}
        | {"error": _strings(spec[spec.index("err.to_string()") :])[0]}
    )
    for text in _vec(_function(tests, "test_parse_override_spec_invalid"), "specs"):
        cases.append({"id": f"query/test_parse_override_spec_invalid/{text}", "kind": "bad_spec"})
        cases[-1]["spec"] = text
    paths = _function(tests, "test_parse_property_path")
    for match in re.finditer(r"parse_attribute_path\((.*?)\)\.unwrap\(\),\s*vec!\[(.*?)\]", paths):
        path = _strings(match.group(1))[0]
        cases.append({"id": f"query/test_parse_property_path/{path}", "kind": "path"})
        cases[-1].update(path=path, parts=_strings(match.group(2)))
    for match in re.finditer(r"parse_attribute_path\((.*?)\)\.is_err\(\)", paths):
        path = _strings(match.group(1))[0]
        cases.append({"id": f"query/test_parse_property_path/{path}", "kind": "path"})
        cases[-1].update(path=path, parts=None)
    for name, input_name in API_CASES.items():
        request = json.loads(_git_show(repo, f"{API}/{name}.json"))
        response = json.loads(_git_show(repo, f"{API}/{name}.response.json"))
        cases.append({"id": f"api/{name}", "kind": "file", "input": input_name, "repeat": 1})
        cases[-1].update(specs=request["specs"], import_paths=request["import_paths"])
        cases[-1].update(result=response["result"])
    Path(out, "cases.json").write_text(json.dumps(cases, indent=1), encoding="utf-8")


# --------------------------------------------------------------------------- implementations


def _kclpy_override(path: str, specs: list[str], imports: list[str]) -> dict[str, Any]:
    import kclpy
    from kclpy.tools.override import OverrideError

    try:
        if imports:
            result = kclpy.override_file(path, specs, imports)
        else:
            result = kclpy.override_file(path, specs)
    except OverrideError as error:
        return {"error": str(error)}
    except TypeError as error:  # an older kclpy without import paths
        return {"error": f"TypeError: {error}"}
    errors = [
        [d.message, *(d.span.begin_pos if d.span else (0, 0))]
        for d in getattr(result, "parse_errors", [])
    ]
    return {"result": bool(result), "parse_errors": errors}


def _reference_override(path: str, specs: list[str], imports: list[str]) -> dict[str, Any]:
    import kcl_lib.api as api

    args = api.OverrideFileArgs(file=path, specs=specs, import_paths=imports)
    try:
        result = api.API().override_file(args)
    except Exception as error:
        return {"error": str(error)}
    errors = []
    for error in result.parse_errors:
        position = error.messages[0].pos if error.messages else None
        message = error.messages[0].msg if error.messages else ""
        errors.append(
            [message, position.line if position else 0, position.column if position else 0]
        )
    return {"result": result.result, "parse_errors": errors}


def _override(impl: str, path: str, specs: list[str], imports: list[str]) -> dict[str, Any]:
    if impl == "kclpy":
        return _kclpy_override(path, specs, imports)
    return _reference_override(path, specs, imports)


# --------------------------------------------------------------------------- checks


def _file_case(impl: str, corpus: str, case: dict[str, Any], work: str) -> dict[str, Any]:
    path = os.path.join(work, case["input"])
    shutil.copyfile(os.path.join(corpus, case["input"]), path)
    answers = []
    expect = Path(corpus, case["expect"]).read_text(encoding="utf-8") if "expect" in case else None
    met = True
    for _ in range(case["repeat"]):
        answer = _override(impl, path, case["specs"], case["import_paths"])
        answer["text"] = Path(path).read_text(encoding="utf-8")
        answers.append(answer)
        if "error" in case:
            met = met and answer.get("error") == case["error"]
            continue
        if expect is not None:
            met = met and answer["text"].replace("\r\n", "\n") == expect.replace("\r\n", "\n")
        if "result" in case:
            met = met and answer.get("result") == case["result"]
        if "parse_errors" in case:
            errors = answer.get("parse_errors") or []
            met = met and len(errors) == case["parse_errors"]
            met = met and bool(errors) and errors[0] == case["first_error"]
    return {"met": met, **answers[-1]}


def _spec_applies(impl: str, spec: str, work: str) -> dict[str, Any]:
    path = os.path.join(work, "spec.k")
    Path(path).write_text("a = {x = 0}\n", encoding="utf-8")
    answer = _override(impl, path, [spec], [])
    answer["text"] = Path(path).read_text(encoding="utf-8")
    return answer


def check(impl: str, corpus: str) -> dict[str, dict[str, Any]]:
    """Run every case through ``impl``; per case id, whether it met the expectation."""
    cases = json.loads(Path(corpus, "cases.json").read_text(encoding="utf-8"))
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as work:
        for case in cases:
            if case["kind"] == "file":
                results[case["id"]] = _file_case(impl, corpus, case, work)
            elif case["kind"] == "bad_spec":
                answer = _spec_applies(impl, case["spec"], work)
                results[case["id"]] = {"met": "error" in answer, **answer}
            else:
                answer = _spec_applies(impl, case["path"] + "=1", work)
                if case["parts"] is None:
                    results[case["id"]] = {"met": "error" in answer, **answer}
                    continue
                canonical = "a" + "".join(f'["{part}"]' for part in case["parts"][1:]) + "=1"
                expected = _spec_applies(impl, canonical, work)
                met = case["parts"][0] == "a" and "error" not in answer
                results[case["id"]] = {"met": met and answer == expected, **answer}
    return results


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "build":
        build(argv[1], argv[2] if len(argv) > 2 else ".corpus/override")
        return 0
    if len(argv) >= 1 and argv[0] == "check":
        impl = argv[1] if len(argv) > 1 else "kclpy"
        corpus = argv[2] if len(argv) > 2 else ".corpus/override"
        sys.stdout.write(json.dumps(check(impl, corpus), indent=1) + "\n")
        return 0
    sys.stderr.write(__doc__ or "")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
