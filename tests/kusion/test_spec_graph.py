"""Spec input, validation, references and the dependency graph."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kclpy.kusion.graph import apply_graph, destroy_graph, spec_graph
from kclpy.kusion.model import KUBERNETES, Resource, SpecError
from kclpy.kusion.references import UnresolvedReference, parse_reference, substitute
from kclpy.kusion.spec import load_spec, parse_text, validate

SPEC = """
resources:
- id: v1:Namespace:demo
  type: Kubernetes
  attributes: {apiVersion: v1, kind: Namespace, metadata: {name: demo}}
- id: apps/v1:Deployment:demo:web
  type: Kubernetes
  dependsOn: [v1:Namespace:demo]
  attributes: {apiVersion: apps/v1, kind: Deployment, metadata: {name: web, namespace: demo}}
- id: hashicorp:null:null_resource:seed
  type: Terraform
  attributes: {triggers: {ns: "$kusion_path.v1:Namespace:demo.metadata.name"}}
helper: ignored
"""


def test_spec_document_is_read_with_all_fields() -> None:
    spec = parse_text(SPEC)
    validate(spec)
    assert [r.id for r in spec.resources] == [
        "v1:Namespace:demo",
        "apps/v1:Deployment:demo:web",
        "hashicorp:null:null_resource:seed",
    ]
    assert spec.resources[1].depends_on == ["v1:Namespace:demo"]


def test_plain_manifests_are_wrapped_with_kusion_ids() -> None:
    text = """
apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: demo}}
"""
    spec = parse_text(text)
    assert [r.id for r in spec.resources] == [
        "v1:Namespace:demo",
        "apps/v1:Deployment:demo:web",
        "v1:ConfigMap:demo:settings",
    ]
    assert all(r.type == KUBERNETES for r in spec.resources)
    assert spec.resources[1].depends_on == ["v1:Namespace:demo"]  # implicit namespace edge
    assert spec.resources[1].extensions == {"GVK": "apps/v1, Kind=Deployment"}


def test_a_yaml_list_of_resources_and_a_stream_of_resources_are_accepted() -> None:
    listed = parse_text("- {id: a, type: Local, attributes: {path: a}}\n")
    streamed = parse_text("id: a\ntype: Local\n---\nid: b\ntype: Local\n")
    assert [r.id for r in listed.resources] == ["a"]
    assert [r.id for r in streamed.resources] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("resources: [{id: a, type: Local}, {id: a, type: Local}]", "duplicate resource id 'a'"),
        ("resources: [{id: a, type: Helm}]", "unknown type 'Helm'"),
        ("resources: [{id: a, type: Local, dependsOn: [b]}]", "depends on unknown resource 'b'"),
        (
            "resources: [{id: a, type: Local, attributes: {x: $kusion_path.b.y}}]",
            "does not name a known resource",
        ),
        (
            "resources: [{id: a, type: Local, dependsOn: [b]},"
            " {id: b, type: Local, dependsOn: [a]}]",
            "circular dependency: a -> b -> a",
        ),
    ],
)
def test_invalid_specs_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(SpecError, match="invalid spec") as error:
        validate(parse_text(text))
    assert message in str(error.value)


def test_cycle_through_a_reference_is_found() -> None:
    text = """
resources:
- {id: a, type: Local, attributes: {x: "$kusion_path.c.x"}}
- {id: b, type: Local, dependsOn: [a]}
- {id: c, type: Local, dependsOn: [b]}
"""
    with pytest.raises(SpecError, match="circular dependency"):
        validate(parse_text(text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("resources: [{id: a, type: Local, color: red}]", "unknown resource field 'color'"),
        ("resources: [{type: Local}]", "'id' must be a non-empty string"),
        ("just text", "expected a Kusion Spec (`resources:`"),
        ("{name: x}", "no resources found in the top-level variables (name)"),
        ("resources: [{id: a, type: Local, dependsOn: b}]", "'dependsOn' must be a list"),
        ("{apiVersion: v1, kind: ConfigMap, metadata: {}}", "without metadata.name"),
        ("a: [", "invalid YAML"),
    ],
)
def test_malformed_documents_are_clear_errors(text: str, message: str) -> None:
    with pytest.raises(SpecError) as error:
        parse_text(text)
    assert message in str(error.value)


def test_load_spec_reads_a_file_and_rejects_ambiguous_input(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(SPEC)
    assert len(load_spec(spec_file=str(path)).resources) == 3
    with pytest.raises(SpecError, match="either KCL files or --spec"):
        load_spec(["main.k"], str(path))
    with pytest.raises(SpecError, match="cannot read spec file"):
        load_spec(spec_file=str(tmp_path / "missing.yaml"))


PROGRAM = (
    'name = option("name") or "demo"\n'
    'print("compiling " + name)\n'
    "resources = [{\n"
    '    id = "local:file:" + name\n'
    '    type = "Local"\n'
    '    attributes = {path = "out/" + name, content = "hello"}\n'
    "}]\n"
)


def test_kcl_files_are_compiled_by_kcl_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "main.k"
    program.write_text(PROGRAM)
    spec = load_spec([str(program)], run_options={"options": ["name=web"]})
    assert [(r.id, r.attributes["path"]) for r in spec.resources] == [("local:file:web", "out/web")]
    assert capsys.readouterr().err == "compiling web\n"


def test_a_failed_kcl_run_is_a_spec_error_with_its_diagnostics(tmp_path: Path) -> None:
    program = tmp_path / "main.k"
    program.write_text('count: int = "three"\n')
    with pytest.raises(SpecError, match=r"kcl run failed:\n(.|\n)*main\.k:1"):
        load_spec([str(program)])


def test_cli_passes_arguments_to_kcl_run(
    tmp_path: Path, cli: Callable[..., tuple[int, str, str]]
) -> None:
    (tmp_path / "main.k").write_text(PROGRAM)
    code, out, err = cli("preview", str(tmp_path / "main.k"), "-D", "name=api")
    assert code == 0, err
    assert "local:file:api" in out
    assert "Plan: 1 to create" in out


def test_references_split_by_the_longest_known_id() -> None:
    known = ["app", "app.v2"]
    reference = parse_reference("$kusion_path.app.v2.status.url", known)
    assert (reference.target, reference.path) == ("app.v2", ("status", "url"))


def test_substitute_resolves_nested_paths_and_list_indexes() -> None:
    applied = {"db": {"endpoints": [{"host": "10.0.0.1"}], "port": 5432}}
    value = {"url": "$kusion_path.db.endpoints.0.host", "ports": ["$kusion_path.db.port"]}
    resolved = substitute(value, ["db"], applied.get, strict=True)
    assert resolved == {"url": "10.0.0.1", "ports": [5432]}


def test_substitute_keeps_unresolved_references_unless_strict() -> None:
    value = {"x": "$kusion_path.db.output"}
    assert substitute(value, ["db"], lambda _: None, strict=False) == value
    unknown = {"output": "(known after apply)"}
    assert substitute(value, ["db"], lambda _: unknown, strict=False) == value
    with pytest.raises(UnresolvedReference, match="has not been applied"):
        substitute(value, ["db"], lambda _: None, strict=True)


def test_graph_orders_dependencies_and_deletions() -> None:
    spec = parse_text(SPEC)
    graph = spec_graph(spec)
    order = graph.topological_order()
    assert order.index("v1:Namespace:demo") < order.index("apps/v1:Deployment:demo:web")
    assert order.index("v1:Namespace:demo") < order.index("hashicorp:null:null_resource:seed")
    prior = {
        "old-db": Resource("old-db", "Local"),
        "old-app": Resource("old-app", "Local", depends_on=["old-db"]),
    }
    full, deletions = apply_graph(spec, prior)
    assert deletions == ["old-db", "old-app"]
    order = full.topological_order()
    assert order.index("old-app") < order.index("old-db")  # dependents deleted first


def test_destroy_graph_reverses_dependencies() -> None:
    prior = {
        "ns": Resource("ns", "Local"),
        "app": Resource("app", "Local", depends_on=["ns"]),
        "route": Resource("route", "Local", depends_on=["app"]),
    }
    assert destroy_graph(prior).topological_order() == ["route", "app", "ns"]
