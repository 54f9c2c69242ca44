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
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kclpy.kusion.model import LOCAL, Resource, RuntimeFailure
from kclpy.kusion.runtimes.base import Runtimes
from kclpy.kusion.secrets import Masker, secret_values

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
            "kclpy.kusion.runtimes.base.default_runtimes",
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
