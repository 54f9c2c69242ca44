"""Secret masking: which values are secret, and a property over every `kcl kusion` output.

The property: a random secret placed anywhere a secret can be (under a
secret-looking key at any depth of the attributes, in a Kubernetes Secret's
data, as the value of an env ``{name, value}`` pair, in provider credentials
in ``extensions.providerMeta``), in a resource that may also fail with a
runtime error quoting every attribute (as Terraform does), never appears -
raw, JSON-escaped or repr-escaped - in the output of preview (table, detail,
JSON), apply (progress and errors), state show / -o json / history, graph
(JSON, DOT) and destroy. The commands run in-process through the real CLI
and SQLite state; only the runtime is an in-memory one (type ``Local``,
accepting any attributes, failing on request with the attributes quoted).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kclpy.kusion.diff import MASK, mask_secrets
from kclpy.kusion.model import LOCAL, Resource, RuntimeFailure
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.runtimes.terraform import TerraformCli, TerraformRuntime
from kclpy.kusion.runtimes.tfschema import block_paths, sensitive_paths
from kclpy.kusion.secrets import Masker, secret_values
from kclpy.kusion.sensitive import mask_paths

from .support import have_terraform

SECRET_KEYS = ["password", "db_password", "apiToken", "secretKey", "access_key", "privateKey"]
PLAIN_KEYS = ["spec", "config", "data", "settings", "items", "x"]


class QuotingRuntime:
    """In-memory objects; ``fail: true`` makes apply fail quoting the attributes."""

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, Any]] = {}

    def read(self, prior: Resource | None, planned: Resource | None) -> Resource | None:
        reference = planned or prior
        assert reference is not None
        found = self.objects.get(reference.id)
        return None if found is None else Resource(reference.id, reference.type, dict(found))

    def apply(self, prior: Resource | None, planned: Resource, dry_run: bool) -> Resource:
        if not dry_run:
            if planned.attributes.get("fail"):
                raise RuntimeFailure(
                    f"rejected {json.dumps(planned.attributes)} / {planned.attributes!r}"
                )
            self.objects[planned.id] = dict(planned.attributes)
        return planned.copy()

    def delete(self, resource: Resource) -> None:
        self.objects.pop(resource.id, None)

    def watch(self, resource: Resource, timeout: float) -> None:
        return None


def nested(keys: list[str], leaf: str, secret: str) -> dict[str, Any]:
    value: dict[str, Any] = {leaf: secret}
    for key in reversed(keys):
        value = {key: value}
    return value


@st.composite
def placed_secret(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    """A secret and a resource that carries it somewhere a secret can be."""
    secret = draw(
        st.text(
            st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=8, max_size=32
        ).filter(lambda text: text.strip() == text and len(text.strip()) >= 8)
    )
    place = draw(st.sampled_from(["attribute", "k8s-secret", "env", "provider"]))
    resource: dict[str, Any] = {"id": "app", "type": LOCAL, "attributes": {"name": "app"}}
    if place == "attribute":
        keys = draw(st.lists(st.sampled_from(PLAIN_KEYS), max_size=3))
        leaf = draw(st.sampled_from(SECRET_KEYS))
        resource["attributes"].update(nested(keys, leaf, secret))
    elif place == "k8s-secret":
        resource["attributes"].update(
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "data": {draw(st.sampled_from(PLAIN_KEYS)): secret},
            }
        )
    elif place == "env":
        name = draw(st.sampled_from(["DB_PASSWORD", "API_TOKEN", "AWS_SECRET_ACCESS_KEY"]))
        env = [{"name": "MODE", "value": "prod"}, {"name": name, "value": secret}]
        resource["attributes"]["containers"] = [{"name": "main", "env": env}]
    else:
        resource["extensions"] = {"providerMeta": {"region": "us-east-1", "secret_key": secret}}
    if draw(st.booleans()):
        resource["attributes"]["fail"] = True
    return secret, resource, place


COMMANDS = [
    ("preview", "--spec", "SPEC"),
    ("preview", "--spec", "SPEC", "--detail", "--all"),
    ("preview", "--spec", "SPEC", "-o", "json"),
    ("apply", "--spec", "SPEC", "--yes", "--detail"),
    ("state", "show"),
    ("state", "-o", "json"),
    ("state", "history"),
    ("graph", "--spec", "SPEC", "-o", "dot"),
    ("graph", "-o", "json"),
    ("destroy", "--yes", "--detail"),
]


def run_all(workdir: Path, spec: Path) -> tuple[str, list[int]]:
    from kclpy.kusion.__main__ import run

    runtime = QuotingRuntime()
    output = io.StringIO()
    codes = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "kclpy.kusion.runtimes.defaults.default_runtimes",
            lambda *args: Runtimes({LOCAL: lambda: runtime}),
        )
        for command in COMMANDS:
            args = [str(spec) if part == "SPEC" else part for part in command]
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                codes.append(run([*args, "--workdir", str(workdir)]))
    return output.getvalue(), codes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(placed_secret())
def test_a_secret_placed_anywhere_never_appears_in_any_output(
    case: tuple[str, dict[str, Any], str],
) -> None:
    secret, resource, place = case
    with tempfile.TemporaryDirectory() as directory:
        workdir = Path(directory)
        spec = workdir / "spec.yaml"
        spec.write_text(yaml.safe_dump({"resources": [resource]}), encoding="utf-8")
        output, codes = run_all(workdir, spec)
    failing = bool(resource["attributes"].get("fail"))
    assert codes[3] == (1 if failing else 0), output
    if failing:
        assert "rejected" in output  # the runtime's error text was shown, masked
    for form in {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1]}:
        assert form not in output
    event(f"placed: {place}")  # figures: pytest --hypothesis-show-statistics
    event("apply failed quoting the attributes" if failing else "apply succeeded")
    event("secret has non-ASCII" if not secret.isascii() else "secret is ASCII")


def test_secret_values_rules() -> None:
    resource = Resource(
        "x",
        "Kubernetes",
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "data": {"anything": "c2VjcmV0LWRhdGE="},
            "spec": {"env": [{"name": "DB_PASSWORD", "value": "pair-value"}]},
            "auth": {"token": "tok-value", "short": "ab"},
        },
        extensions={"providerMeta": {"access_key": "AKIAEXAMPLE", "region": "eu-west-1"}},
        runtime_data={"sensitive": {"auth": {"short": True}}},
    )
    assert secret_values([resource]) == {
        "c2VjcmV0LWRhdGE=",
        "pair-value",
        "tok-value",
        "AKIAEXAMPLE",
    }
    masker = Masker()
    masker.add_resources([resource])
    assert masker.mask('x {"token": "tok-value"} AKIAEXAMPLE eu-west-1') == (
        'x {"token": "******"} ****** eu-west-1'
    )


@pytest.mark.skipif(not have_terraform(), reason="no terraform on PATH")
def test_terraform_error_text_quoting_a_password_is_masked(tmp_path: Path) -> None:
    """Terraform's own error message repeats the failing command, password included."""
    from .faults_support import run

    password = "hunter2-correct-horse"
    resource = {
        "id": "hashicorp:terraform:terraform_data:db",
        "type": "Terraform",
        "attributes": {
            "input": {"password": password},
            "provisioner": [{"local-exec": {"command": f"echo {password} && false"}}],
        },
    }
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": [resource]}), encoding="utf-8")
    code, out, err = run(tmp_path, "apply", "--spec", str(spec), "--yes", "--detail")
    assert code == 1 and "terraform apply failed" in out
    assert password not in out + err and "******" in out
    for command in (["state", "-o", "json"], ["state", "history"], ["graph", "-o", "json"]):
        code, out, err = run(tmp_path, *command)
        assert password not in out + err


# -- declared sensitive: innocent names, secret because something says so ---------------

INNOCENT_KEYS = ["note", "value", "data", "settings", "x", "label"]
# What the declaring runtime's "provider schema" marks sensitive, as a Terraform schema
# would: an attribute, and an attribute of every item of a nested block.
SCHEMA_PATHS = [("config", "value"), ("blocks", "*", "note")]


class DeclaringRuntime(QuotingRuntime):
    """A QuotingRuntime that declares ``SCHEMA_PATHS`` sensitive for every resource."""

    def sensitive_paths(self, resource: Resource) -> list[tuple[str, ...]]:
        return list(SCHEMA_PATHS)


@st.composite
def declared_secret(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    """A secret under innocent key names, declared sensitive by the spec or the runtime."""
    secret = draw(
        st.text(
            st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=8, max_size=32
        ).filter(lambda text: text.strip() == text and len(text.strip()) >= 8)
    )
    place = draw(
        st.sampled_from(["mark-dotted", "mark-keys", "mark-each", "schema", "schema-each"])
    )
    keys = draw(st.lists(st.sampled_from(INNOCENT_KEYS), min_size=1, max_size=3, unique=True))
    attributes: dict[str, Any] = {"name": "app"}
    extensions: dict[str, Any] = {}
    if place == "mark-dotted":
        attributes["spec"] = nested(keys[:-1], keys[-1], secret)
        extensions["sensitive"] = [".".join(["spec", *keys])]
    elif place == "mark-keys":  # a key holding dots needs the list form
        attributes["annotations"] = {"example.com/" + keys[0]: secret}
        extensions["sensitive"] = [["annotations", "example.com/" + keys[0]]]
    elif place == "mark-each":
        attributes["items"] = [{keys[0]: secret, "other": "plain-one"}]
        extensions["sensitive"] = [f"items.*.{keys[0]}"]
    elif place == "schema":
        attributes["config"] = {"value": secret, "mode": "fast"}
    else:
        attributes["blocks"] = [{"other": "plain-two"}, {"note": secret, "other": "plain"}]
    if draw(st.booleans()):
        attributes["fail"] = True
    resource: dict[str, Any] = {"id": "app", "type": LOCAL, "attributes": attributes}
    if extensions:
        resource["extensions"] = extensions
    return secret, resource, place


def run_declaring(workdir: Path, spec: Path) -> tuple[str, list[int]]:
    from kclpy.kusion.__main__ import run

    runtime = DeclaringRuntime()
    output = io.StringIO()
    codes = []
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "kclpy.kusion.runtimes.defaults.default_runtimes",
            lambda *args: Runtimes({LOCAL: lambda: runtime}),
        )
        for command in COMMANDS:
            args = [str(spec) if part == "SPEC" else part for part in command]
            with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
                codes.append(run([*args, "--workdir", str(workdir)]))
    return output.getvalue(), codes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(declared_secret())
def test_a_secret_declared_sensitive_under_innocent_names_never_appears(
    case: tuple[str, dict[str, Any], str],
) -> None:
    secret, resource, place = case
    with tempfile.TemporaryDirectory() as directory:
        workdir = Path(directory)
        spec = workdir / "spec.yaml"
        spec.write_text(yaml.safe_dump({"resources": [resource]}), encoding="utf-8")
        output, codes = run_declaring(workdir, spec)
    failing = bool(resource["attributes"].get("fail"))
    assert codes[3] == (1 if failing else 0), output
    for form in {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1]}:
        assert form not in output
    if place in ("mark-each", "schema-each"):  # only the declared attribute is masked
        assert "plain-" in output
    event(f"declared by: {place}")
    event("apply failed quoting the attributes" if failing else "apply succeeded")


def test_the_second_net_catches_more_key_names() -> None:
    attributes = {
        "ssh_key": "ssh-rsa AAAAB3Nza",
        "secrets": ["first-secret", "second-secret"],
        "database_url": "postgres://u:p@h/db",
        "password_hash": "$2b$12$abcdefgh",
        "pwd": "pwd-value",
        "auth": {"type": "basic", "value": "auth-value"},
        "registry": {"auth": "dXNlcjpwYXNz"},
        "secret_string": "aws-secret-string",
        "secretName": "my-secret-name",
        "tokenTTL": "3600s",
        "password_length": 16,
    }
    found = secret_values([Resource("x", LOCAL, attributes)])
    assert found == {
        "ssh-rsa AAAAB3Nza",
        "first-secret",
        "second-secret",
        "postgres://u:p@h/db",
        "$2b$12$abcdefgh",
        "pwd-value",
        "auth-value",
        "dXNlcjpwYXNz",
        "aws-secret-string",
    }
    masked = mask_secrets(attributes)
    assert masked["auth"] == {"type": "basic", "value": MASK}
    assert masked["secretName"] == "my-secret-name" and masked["password_length"] == 16
    assert masked["pwd"] == MASK and masked["secrets"] == [MASK, MASK]


def test_malformed_sensitive_marks_are_spec_errors(tmp_path: Path) -> None:
    from kclpy.kusion.__main__ import run

    resource = {
        "id": "app",
        "type": LOCAL,
        "attributes": {"path": "a", "content": ""},
        "extensions": {"sensitive": ["ok.path", 3, ""]},
    }
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": [resource]}), encoding="utf-8")
    output = io.StringIO()
    with contextlib.redirect_stderr(output):
        code = run(["preview", "--spec", str(spec), "--workdir", str(tmp_path)])
    assert code == 1
    assert "extensions.sensitive[1] is not a path" in output.getvalue()
    assert "extensions.sensitive[2] is not a path" in output.getvalue()


def test_schema_paths_cover_nested_attributes_and_blocks() -> None:
    block = {
        "attributes": {
            "name": {"type": "string"},
            "password": {"type": "string", "sensitive": True},
            "settings": {
                "nested_type": {
                    "nesting_mode": "list",
                    "attributes": {"token": {"sensitive": True}, "mode": {}},
                }
            },
        },
        "block_types": {
            "auth": {
                "nesting_mode": "single",
                "block": {"attributes": {"key": {"sensitive": True}}},
            },
            "rule": {"nesting_mode": "set", "block": {"attributes": {"note": {}}}},
        },
    }
    assert block_paths(block) == [("password",), ("settings", "*", "token"), ("auth", "key")]
    document = {
        "provider_schemas": {
            "registry.terraform.io/acme/box": {"resource_schemas": {"box": {"block": block}}}
        }
    }
    assert sensitive_paths(document, "registry.terraform.io/acme/box") == {
        "box": [("password",), ("settings", "*", "token"), ("auth", "key")]
    }
    assert mask_paths(
        {"settings": [{"token": "t", "mode": "m"}]}, [("settings", "*", "token")]
    ) == {"settings": [{"token": MASK, "mode": "m"}]}


MIRROR = os.environ.get("KCLPY_TEST_TF_PLUGIN_MIRROR", "")
AWS = "registry.terraform.io/hashicorp/aws/5.100.0"


@pytest.mark.skipif(not have_terraform(), reason="no terraform on PATH")
@pytest.mark.skipif(
    not MIRROR or not list(Path(MIRROR).glob("registry.terraform.io/hashicorp/aws/5.100.0/*/*")),
    reason="KCLPY_TEST_TF_PLUGIN_MIRROR does not name a mirror with hashicorp/aws 5.100.0",
)
def test_the_aws_provider_schema_declares_what_is_sensitive(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real provider: ``aws_ssm_parameter.value`` is sensitive under an innocent name."""
    from .faults_support import run

    monkeypatch.setenv("KCLPY_TERRAFORM_PLUGIN_DIR", MIRROR)
    meta = {
        "region": "us-east-1",
        "access_key": "AKIAEXAMPLEKEY",
        "secret_key": "example-secret-key",
        "skip_credentials_validation": True,
        "skip_requesting_account_id": True,
        "skip_metadata_api_check": True,
    }
    resources = [
        {
            "id": "hashicorp:aws:aws_ssm_parameter:p",
            "type": "Terraform",
            "attributes": {"name": "/app/p", "type": "SecureString", "value": "ssm-value-4242"},
            "extensions": {"provider": AWS, "providerMeta": meta},
        },
        {
            "id": "hashicorp:aws:aws_db_instance:db",
            "type": "Terraform",
            "attributes": {"instance_class": "db.t3.micro", "password": "db-pass-4242"},
            "extensions": {"provider": AWS, "providerMeta": meta},
        },
    ]
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({"resources": resources}), encoding="utf-8")
    for output in (["--detail"], ["-o", "json"]):
        code, out, err = run(tmp_path, "preview", "--spec", str(spec), *output, timeout=900)
        assert code == 0, out + err
        assert "ssm-value-4242" not in out + err and "db-pass-4242" not in out + err
        assert "/app/p" in out  # the innocent values are still shown
    (cache,) = (tmp_path / ".kusion" / "cache" / "terraform-schemas").iterdir()
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(cache.parent).st_mode) == 0o700
    # the next run reads the cache and asks no Terraform (a CLI that cannot run proves it)
    runtime = TerraformRuntime(
        tmp_path / "tf", TerraformCli("/nonexistent/terraform"), cache.parent.parent
    )
    db = Resource.from_json(resources[1])
    assert ("password",) in runtime.sensitive_paths(db)
    assert runtime.sensitive_paths(Resource.from_json(resources[0])) == [("value",), ("value_wo",)]
