"""What a spec may look like, and how every problem in it is reported.

- a KCL program may emit its manifests as top-level variables (each a resource,
  in order), as a YAML stream, or build the Kusion Spec (``resources:``, which
  then wins over other top-level variables); anything else names the shapes;
- every problem of a spec is reported at once, each a diagnostic at its line
  and column of ``--spec FILE`` (exit 1);
- what a runtime's apply would refuse is refused by preview (and by apply
  before it touches anything), located the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kclpy.kusion.engine import Options
from kclpy.kusion.model import KUBERNETES, Resource, SpecError
from kclpy.kusion.operations import Context, preview
from kclpy.kusion.runtimes.base import Rejection, Runtimes
from kclpy.kusion.spec import load_spec, parse_text
from kclpy.kusion.state.sqlite import SqliteStateBackend

from .support import FAKE, FakeRuntime, requires_terraform

Cli = Callable[..., tuple[int, str, str]]

NAMESPACE = 'ns = {apiVersion = "v1", kind = "Namespace", metadata.name = "demo"}\n'
CONFIG_MAP = """\
settings = {
    apiVersion = "v1"
    kind = "ConfigMap"
    metadata = {name = "settings", namespace = "demo"}
    data.mode = "fast"
}
"""
WORKLOADS = """\
workloads = [
    {apiVersion = "v1", kind = "Service", metadata = {name = "web", namespace = "demo"}}
    {apiVersion = "v1", kind = "Secret", metadata = {name = "db", namespace = "demo"}}
]
"""
SHAPES = (
    "a Kusion Spec (`resources:`",
    "a YAML stream of Kubernetes manifests",
    "top-level variables that are Kubernetes manifests",
)


def program(tmp_path: Path, text: str) -> str:
    path = tmp_path / "main.k"
    path.write_text(text, encoding="utf-8")
    return str(path)


def locations(err: str) -> list[str]:
    """The ``--> file:line:col`` of every diagnostic printed."""
    return re.findall(r"--> (\S+:\d+:\d+)", err)


# -- the shapes of the input --------------------------------------------------------


def test_top_level_manifests_of_a_program_become_resources_in_order(tmp_path: Path) -> None:
    text = 'replicas = 2\nlabels = {app = "web"}\n' + NAMESPACE + CONFIG_MAP + WORKLOADS
    spec = load_spec([program(tmp_path, text)])
    assert [resource.id for resource in spec.resources] == [
        "v1:Namespace:demo",
        "v1:ConfigMap:demo:settings",
        "v1:Service:demo:web",
        "v1:Secret:demo:db",
    ]
    assert all(resource.type == KUBERNETES for resource in spec.resources)
    assert spec.resources[1].attributes["data"] == {"mode": "fast"}
    assert spec.resources[1].depends_on == ["v1:Namespace:demo"]


def test_a_yaml_stream_of_manifests_is_accepted_as_before(tmp_path: Path) -> None:
    text = (
        "import manifests\n"
        + NAMESPACE.replace("ns =", "_ns =")
        + CONFIG_MAP.replace("settings =", "_settings =")
        + "manifests.yaml_stream([_ns, _settings])\n"
    )
    spec = load_spec([program(tmp_path, text)])
    assert [r.id for r in spec.resources] == ["v1:Namespace:demo", "v1:ConfigMap:demo:settings"]


def test_a_spec_with_resources_ignores_its_other_top_level_manifests(tmp_path: Path) -> None:
    text = NAMESPACE + (
        'resources = [{id = "v1:Namespace:demo", type = "Kubernetes", attributes = ns}]\n'
    )
    spec = load_spec([program(tmp_path, text)])
    assert [resource.id for resource in spec.resources] == ["v1:Namespace:demo"]


def test_a_program_without_resources_names_the_accepted_shapes(cli: Cli, tmp_path: Path) -> None:
    code, out, err = cli("preview", program(tmp_path, 'name = "demo"\nreplicas = 2\n'))
    assert code == 1, out + err
    assert (
        "E9202" in err and "no resources found in the top-level variables (name, replicas)" in err
    )
    for shape in SHAPES:
        assert shape in err
    assert "Traceback" not in err


def test_a_top_level_list_mixing_manifests_and_other_values_is_an_error(tmp_path: Path) -> None:
    text = "things:\n- {apiVersion: v1, kind: Namespace, metadata: {name: a}}\n- 3\n"
    with pytest.raises(SpecError, match="'things' mixes Kubernetes manifests with other values"):
        parse_text(text)


# -- every problem, located -----------------------------------------------------------

SPEC = """\
resources:
- id: a
  type: Local
  dependsOn: [b]
  attributes: {path: a, content: x}
- id: b
  type: Local
  dependsOn: [a, ghost]
  attributes: {path: b, content: y}
- id: b
  type: Local
  attributes: {path: b2}
- id: c
  type: Helm
  attributes: {x: "$kusion_path.nothere.x"}
- id: d
  type: Local
  colour: red
- id: e
  type: Local
  dependsOn: [d]
  extensions: {sensitive: 5}
"""


def test_every_problem_of_a_spec_is_reported_together_each_at_its_place(
    cli: Cli, tmp_path: Path
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC, encoding="utf-8")
    code, out, err = cli("preview", "--spec", str(spec))
    assert code == 1, out + err
    expected = {
        "duplicate resource id 'b'": "spec.yaml:10:7",
        "unknown type 'Helm'": "spec.yaml:14:9",
        "depends on unknown resource 'ghost'": "spec.yaml:8:18",
        "'$kusion_path.nothere.x' does not name a known resource": "spec.yaml:15:19",
        "circular dependency: a -> b -> a": "spec.yaml:4:15",
        "unknown resource field 'colour'": "spec.yaml:18:3",
        "extensions.sensitive must be a list of paths": "spec.yaml:22:27",
    }
    found = locations(err)
    assert len(found) == len(expected), err
    for message, location in expected.items():
        assert message in err, message
        assert any(place.endswith(location) for place in found), (message, err)
    assert "unknown resource 'd'" not in err  # d is malformed, not missing
    assert not (tmp_path / ".kusion" / "state.db").exists() or "Create" not in out


def test_each_independent_cycle_and_a_self_dependency_are_reported() -> None:
    text = """
resources:
- {id: a, type: Local, dependsOn: [b]}
- {id: b, type: Local, attributes: {x: "$kusion_path.a.path"}}
- {id: c, type: Local, dependsOn: [d]}
- {id: d, type: Local, dependsOn: [e]}
- {id: e, type: Local, dependsOn: [c]}
- {id: f, type: Local, dependsOn: [f]}
"""
    with pytest.raises(SpecError) as error:
        load_spec_text(text)
    message = str(error.value)
    assert "circular dependency: a -> b -> a" in message
    assert "circular dependency: c -> d -> e -> c" in message
    assert "circular dependency: f -> f" in message
    assert len(error.value.diagnostics()) == 3


def load_spec_text(text: str) -> None:
    from kclpy.kusion.validation import validate

    validate(parse_text(text))


def test_problems_of_a_program_are_all_reported_without_positions(cli: Cli, tmp_path: Path) -> None:
    text = """\
resources = [
    {id = "a", type = "Local", dependsOn = ["b", "zz"]}
    {id = "b", type = "Local", dependsOn = ["a"]}
]
"""
    code, out, err = cli("preview", program(tmp_path, text))
    assert code == 1, out + err
    assert "depends on unknown resource 'zz'" in err
    assert "circular dependency: a -> b -> a" in err
    assert err.count("error[E9202]") == 2


# -- what apply would refuse, preview refuses --------------------------------------


def test_preview_refuses_what_the_local_runtime_would_refuse(cli: Cli, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    resources = [
        {"id": "ok", "type": "Local", "attributes": {"path": "ok.txt", "content": "fine"}},
        {"id": "number", "type": "Local", "attributes": {"path": "n.txt", "content": 42}},
        {"id": "out", "type": "Local", "attributes": {"path": "../out.txt", "content": "x"}},
        {"id": "extra", "type": "Local", "attributes": {"path": "e.txt", "mode": "0644"}},
    ]
    spec.write_text(yaml.safe_dump({"resources": resources}, sort_keys=False), encoding="utf-8")
    code, out, err = cli("preview", "--spec", str(spec))
    assert code == 1, out + err
    assert "Create" not in out
    assert "'number': Local resource attribute 'content' must be a string" in err
    assert "'out': Local path '../out.txt'" in err and "--allow-local-path" in err
    assert "'extra': Local resource has unknown attribute 'mode'" in err
    assert len(locations(err)) == 3
    code, out, err = cli("apply", "--spec", str(spec), "--yes")
    assert code == 1, out + err
    assert not (tmp_path / "ok.txt").exists()  # refused before anything was touched
    assert not (tmp_path.parent / "out.txt").exists()


def test_a_path_known_only_from_a_reference_is_checked_once_resolved(
    cli: Cli, tmp_path: Path
) -> None:
    source = {"id": "source", "type": "Local", "attributes": {"path": "s", "content": "../x"}}
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": [source]}), encoding="utf-8")
    assert cli("apply", "--spec", str(spec), "--yes")[0] == 0
    target = {
        "id": "target",
        "type": "Local",
        "attributes": {"path": "$kusion_path.source.content"},
    }
    spec.write_text(yaml.safe_dump({"resources": [source, target]}), encoding="utf-8")
    code, out, err = cli("preview", "--spec", str(spec))
    assert code == 1 and "target: Local path '../x'" in err, out + err


@requires_terraform
def test_preview_refuses_what_the_terraform_runtime_would_refuse(cli: Cli, tmp_path: Path) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "resources:\n"
        "- id: seed\n"
        "  type: Terraform\n"
        "  attributes: {input: x}\n"
        "- id: a:b:c:d\n"
        "  type: Terraform\n"
        "  extensions: {provider: registry.terraform.io/hashicorp/random}\n",
        encoding="utf-8",
    )
    code, out, err = cli("preview", "--spec", str(spec))
    assert code == 1, out + err
    assert "expected an id 'providerNamespace:providerName:resourceType:resourceName'" in err
    assert "extensions.provider must look like" in err
    assert [place.split(":", 1)[1] for place in locations(err)] == ["2:7", "7:26"]
    assert not (tmp_path / ".kusion" / "terraform").exists() or not any(
        (tmp_path / ".kusion" / "terraform").rglob("main.tf.json")
    )


def test_preview_refuses_a_malformed_kubernetes_resource_before_any_cluster(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("kubernetes", reason="the kusion extra is not installed")
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "no-such-kubeconfig"))
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "resources:\n"
        "- id: v1:ConfigMap:a\n"
        "  type: Kubernetes\n"
        "  attributes: {apiVersion: v1, kind: ConfigMap, metadata: {name: 5}}\n"
        "- id: v1:List:b\n"
        "  type: Kubernetes\n"
        "  attributes: {apiVersion: v1, kind: List, metadata: {name: b}}\n",
        encoding="utf-8",
    )
    code, out, err = cli("preview", "--spec", str(spec))
    assert code == 1, out + err
    assert "metadata.name of a Kubernetes manifest must be a non-empty string" in err
    assert "a kind: List is not a resource" in err
    assert "kubeconfig" not in err  # refused before connecting


class CheckedRuntime(FakeRuntime):
    """A runtime of one's own with a ``check``: sizes above 10 are refused."""

    def check(self, resource: Resource) -> list[Rejection]:
        size = resource.attributes.get("size", 0)
        return [Rejection("size above 10", ("attributes", "size"))] if size > 10 else []


def test_a_custom_runtime_check_is_run_by_preview(tmp_path: Path) -> None:
    runtime = CheckedRuntime()
    backend = SqliteStateBackend(tmp_path / "state.db")
    context = Context(backend, Runtimes({FAKE: lambda: runtime}), "demo")
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(
        "resources:\n- id: big\n  type: Fake\n  attributes: {size: 11}\n", encoding="utf-8"
    )
    spec = load_spec(spec_file=str(spec_file), known_types=[FAKE])
    try:
        with pytest.raises(SpecError) as error:
            preview(context, spec, Options())
    finally:
        backend.close()
    (diagnostic,) = error.value.diagnostics()
    assert diagnostic.message == "resource 'big': size above 10"
    assert diagnostic.location().endswith("spec.yaml:4:22")
    assert runtime.calls == []  # nothing was read


# -- hostile YAML ---------------------------------------------------------------------


def laughs(levels: int) -> str:
    """A "billion laughs": each level aliases the previous one ten times."""
    lines = ['a0: &a0 ["lol"]']
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 10)}]")
    return "\n".join(lines) + "\nresources: []\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: " + "[" * 50_000 + "]" * 50_000 + "\n", "the YAML is nested deeper than 200"),
        (laughs(9), "the YAML is more than 2,000,000 values"),
    ],
    ids=["deep", "laughs"],
)
def test_hostile_yaml_is_refused_before_it_is_built(
    cli: Cli, tmp_path: Path, text: str, message: str
) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(text, encoding="utf-8")
    code, out, err = cli("preview", "--spec", str(spec))
    assert code == 1, out + err[:2000]
    assert message in err and "Traceback" not in err


def test_a_few_aliases_are_fine() -> None:
    assert parse_text(laughs(2).replace("resources: []", "resources: [{id: a, type: Local}]"))
