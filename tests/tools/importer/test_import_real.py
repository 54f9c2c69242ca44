"""``kcl import`` on real inputs read from a kcl-lang/modules mirror when present
(skipped otherwise): cert-manager's CRDs and the Kubernetes OpenAPI spec. The
generated models must compile, accept valid resources and reject invalid ones,
in kclpy and (when installed) in the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from import_helpers import add_object_meta, mirror_file, run_both

from kclpy.diag.render import render_all
from kclpy.tools.importer.convert import ImportOptions, import_path, write_outputs

CERT_MANAGER = [
    "cert-manager/crds/crd-certificates.yaml",
    "cert-manager/crds/crd-certificaterequests.yaml",
    "cert-manager/crds/crd-issuers.yaml",
    "cert-manager/crds/crd-clusterissuers.yaml",
    "cert-manager/crds/crd-challenges.yaml",
    "cert-manager/crds/crd-orders.yaml",
]


def imported(folder: Path, source: str, mode: str) -> list[str]:
    data = mirror_file(source)
    if data is None:
        pytest.skip(f"no kcl-lang/modules mirror with {source} (set KCL_MODULES_GIT_DIR)")
    name = source.replace("/", "_")
    (folder / name).write_bytes(data)
    (folder / "kcl.mod").write_text('[package]\nname = "real"\n')
    add_object_meta(folder)
    return write_outputs(import_path(str(folder / name), ImportOptions(mode)), str(folder))


@pytest.fixture(scope="module")
def cert_manager(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cert-manager")
    for source in CERT_MANAGER:
        imported(folder, source, "crd")
    return folder


CERTIFICATE = """\
import models.v1 as cm

certificate = cm.Certificate {{
    metadata.name = "web"
    spec = {{
        secretName = "web-tls"
        issuerRef = {{name = "letsencrypt", kind = "ClusterIssuer"}}
        dnsNames = ["example.com"]
        {extra}
    }}
}}
issuer = cm.ClusterIssuer {{
    metadata.name = "letsencrypt"
    spec.acme = {{
        server = "https://acme-v02.api.letsencrypt.org/directory"
        privateKeySecretRef.name = "account-key"
        solvers = [{{http01.ingress.ingressClassName = "nginx"}}]
    }}
}}
"""


@pytest.mark.parametrize(
    ("extra", "valid"),
    [
        ('usages = ["server auth", "digital signature"]', True),
        ('privateKey = {algorithm = "ECDSA", size = 256, rotationPolicy = "Always"}', True),
        ('duration = "2160h"\nrenewBefore = "360h"\nrevisionHistoryLimit = 2', True),
        ('usages = ["server-auth"]', True),  # the items' enum is not checked (as the reference)
        ('privateKey = {algorithm = "DSA"}', False),
        ('secretNam = "typo"', False),
        ("dnsNames = 1", False),
    ],
)
def test_cert_manager(cert_manager: Path, extra: str, valid: bool) -> None:
    code = CERTIFICATE.format(extra=extra.replace("\n", "\n        "))
    ours, theirs = run_both(cert_manager, code)
    assert ours.ok == valid, render_all(ours.diagnostics, "human", False)
    if valid:
        assert "apiVersion: cert-manager.io/v1" in ours.text
    if theirs is not None:
        assert theirs.ok == valid, theirs.stderr


@pytest.mark.parametrize(
    ("chain", "valid"), [("ISRG Root X1", True), ("c" * 64, True), ("c" * 65, False)]
)
def test_cert_manager_issuer_max_length(cert_manager: Path, chain: str, valid: bool) -> None:
    code = CERTIFICATE.format(extra="").replace(
        'privateKeySecretRef.name = "account-key"',
        f'privateKeySecretRef.name = "account-key"\n        preferredChain = "{chain}"',
    )
    ours, theirs = run_both(cert_manager, code)
    assert ours.ok == valid, render_all(ours.diagnostics, "human", False)
    if not valid:
        assert "len(preferredChain) <= 64" in render_all(ours.diagnostics, "human", False)
    if theirs is not None:
        assert theirs.ok == valid, theirs.stderr


@pytest.fixture(scope="module")
def kubernetes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("k8s")
    written = imported(folder, "scripts/k8s/swagger.json", "openapi")
    assert len(written) > 500
    return folder


DEPLOYMENT = """\
import models

deployment = models.Deployment {{
    metadata = {{name = "web", labels.app = "web"}}
    spec = {{
        replicas = 2
        selector.matchLabels.app = "web"
        template = {{
            metadata.labels.app = "web"
            spec.containers = [{{
                name = "web"
                image = "nginx:1.27"
                ports = [{{containerPort = 80, protocol = "TCP"}}]
                resources.limits = {{cpu = "100m", memory = "128Mi"}}
                {extra}
            }}]
        }}
    }}
}}
"""


@pytest.mark.parametrize(
    ("extra", "valid"),
    [
        ("", True),
        ('livenessProbe.httpGet = {path = "/", port = "http"}', True),
        ('livenessProbe.httpGet = {path = "/", port = 8080}', True),  # int-or-string
        ("imagePullPolicy = 1", False),
        ('ports = [{protocol = "TCP"}]', False),  # containerPort is required
        ('unknownField = "x"', False),
    ],
)
def test_kubernetes_openapi(kubernetes: Path, extra: str, valid: bool) -> None:
    ours, theirs = run_both(kubernetes, DEPLOYMENT.format(extra=extra))
    assert ours.ok == valid, render_all(ours.diagnostics, "human", False)
    if valid:
        assert "kind: Deployment" in ours.text and "apiVersion: apps/v1" in ours.text
    if theirs is not None:
        assert theirs.ok == valid, theirs.stderr
