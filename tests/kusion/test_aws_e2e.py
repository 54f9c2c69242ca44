"""End to end with the real ``hashicorp/aws`` Terraform provider against a fake AWS (moto).

Needs two things a machine may lack, named by environment variables that
``.ci/run`` sets when it finds them:

- ``KCLPY_TEST_TF_PLUGIN_MIRROR``: a Terraform plugin mirror folder holding
  ``registry.terraform.io/hashicorp/aws/5.100.0/<os>_<arch>/terraform-provider-aws*``;
- ``KCLPY_TEST_MOTO_SERVER``: a ``moto_server`` executable (moto[server] lives in its
  own virtualenv: botocore and the kubernetes client want different python-dateutil).

The test starts moto on 127.0.0.1 on a free port and points every provider
endpoint at it; Terraform installs the provider only from the mirror
(``-plugin-dir`` plus a CLI config whose only installation method is that
mirror), so nothing reaches the network. It creates an S3 bucket and an SSM
parameter that references the bucket's name - killing kclpy with SIGKILL
while Terraform is still working on the bucket - then updates the bucket's
tags and destroys both, checking moto after each step.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from .faults_support import KusionProcess, run
from .support import requires_terraform

MIRROR = os.environ.get("KCLPY_TEST_TF_PLUGIN_MIRROR", "")
MOTO = os.environ.get("KCLPY_TEST_MOTO_SERVER", "")
AWS_SECONDS = 900.0  # each command of the 675 MB provider takes seconds on a busy machine
PROVIDER = "registry.terraform.io/hashicorp/aws/5.100.0"
BUCKET_ID = "hashicorp:aws:aws_s3_bucket:data"
PARAMETER_ID = "hashicorp:aws:aws_ssm_parameter:bucket-name"

pytestmark = [
    requires_terraform,
    pytest.mark.skipif(
        not MIRROR or not list(Path(MIRROR).glob("registry.terraform.io/hashicorp/aws/*/*/*")),
        reason="KCLPY_TEST_TF_PLUGIN_MIRROR does not name a mirror with hashicorp/aws",
    ),
    pytest.mark.skipif(
        not MOTO or not Path(MOTO).exists(), reason="KCLPY_TEST_MOTO_SERVER names no moto_server"
    ),
]


@pytest.fixture
def moto_url(tmp_path: Path) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(tmp_path / "moto.log", "wb")  # noqa: SIM115 - closed below
    server = subprocess.Popen([MOTO, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=2).close()
            break
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "moto did not start"
            time.sleep(0.1)
    yield url
    server.terminate()
    server.wait(timeout=30)
    log.close()


def environment(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "terraformrc"
    config.write_text(
        "provider_installation {\n  filesystem_mirror {\n"
        f'    path = "{MIRROR}"\n    include = ["registry.terraform.io/*/*"]\n  }}\n}}\n',
        encoding="utf-8",
    )
    env = dict(os.environ)
    env.update(
        {
            "TF_CLI_CONFIG_FILE": str(config),
            "KCLPY_TERRAFORM_PLUGIN_DIR": MIRROR,
            "AWS_EC2_METADATA_DISABLED": "true",
        }
    )
    return env


def spec(url: str, bucket: str, tags: dict[str, str], slow_file: Path | None) -> dict[str, Any]:
    meta = {
        "region": "us-east-1",
        "access_key": "testing",
        "secret_key": "testing-secret-key",
        "skip_credentials_validation": True,
        "skip_requesting_account_id": True,
        "skip_metadata_api_check": True,
        "s3_use_path_style": True,
        "endpoints": {"s3": url, "ssm": url, "sts": url, "iam": url},
    }
    extensions = {"provider": PROVIDER, "providerMeta": meta}
    attributes: dict[str, Any] = {"bucket": bucket, "tags": tags}
    if slow_file is not None:  # runs after the bucket exists: kclpy is killed right then
        command = f"touch {slow_file} && sleep 3"
        attributes["provisioner"] = [{"local-exec": {"command": command}}]
    return {
        "resources": [
            {
                "id": BUCKET_ID,
                "type": "Terraform",
                "attributes": attributes,
                "extensions": extensions,
            },
            {
                "id": PARAMETER_ID,
                "type": "Terraform",
                "attributes": {
                    "name": "/kclpy/bucket",
                    "type": "String",
                    "value": f"$kusion_path.{BUCKET_ID}.bucket",
                },
                "extensions": extensions,
            },
        ]
    }


def buckets(url: str) -> list[str]:
    with urllib.request.urlopen(f"{url}/", timeout=10) as response:
        return re.findall(r"<Name>([^<]+)</Name>", response.read().decode())


def bucket_tags(url: str, bucket: str) -> dict[str, str]:
    with urllib.request.urlopen(f"{url}/{bucket}?tagging", timeout=10) as response:
        text = response.read().decode()
    pairs = re.findall(r"<Key>([^<]+)</Key>\s*<Value>([^<]*)</Value>", text)
    return dict(pairs)


SSM_AUTHORIZATION = "AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/ssm/aws4_request"


def ssm(url: str, action: str, body: dict[str, Any]) -> Any:
    """One call of the SSM JSON API (moto does not check signatures)."""
    headers = {
        "X-Amz-Target": f"AmazonSSM.{action}",
        "Content-Type": "application/x-amz-json-1.1",
        "Authorization": SSM_AUTHORIZATION,
    }
    request = urllib.request.Request(f"{url}/", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def parameters(url: str) -> dict[str, str]:
    names = [item["Name"] for item in ssm(url, "DescribeParameters", {})["Parameters"]]
    return {name: ssm(url, "GetParameter", {"Name": name})["Parameter"]["Value"] for name in names}


def write(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def test_s3_bucket_and_ssm_parameter_with_the_real_aws_provider(
    tmp_path: Path, moto_url: str
) -> None:
    env = environment(tmp_path)
    started = tmp_path / "bucket-created"
    spec_file = write(tmp_path / "spec.yaml", spec(moto_url, "kclpy-e2e", {"env": "dev"}, started))

    apply = KusionProcess(tmp_path, "apply", "--spec", str(spec_file), "--yes", env=env)
    apply.wait_for(started)  # the bucket exists; Terraform is still running its provisioner
    apply.send(signal.SIGKILL)
    assert apply.finish()[0] == -signal.SIGKILL

    code, out, err = run(
        tmp_path, "apply", "--spec", str(spec_file), "--yes", env=env, timeout=AWS_SECONDS
    )
    assert code == 0, out + err
    assert f"reconciled {BUCKET_ID}" in err and "adopted" in err
    assert buckets(moto_url) == ["kclpy-e2e"]  # adopted, not created a second time
    assert parameters(moto_url) == {"/kclpy/bucket": "kclpy-e2e"}
    assert "testing-secret-key" not in out + err

    spec_file = write(spec_file, spec(moto_url, "kclpy-e2e", {"env": "prod"}, started))
    code, out, err = run(
        tmp_path, "apply", "--spec", str(spec_file), "--yes", env=env, timeout=AWS_SECONDS
    )
    assert code == 0, out + err
    assert re.search(rf"~ {BUCKET_ID}\s+Update", out), out
    assert re.search(rf"{PARAMETER_ID}\s+UnChanged", out), out
    assert bucket_tags(moto_url, "kclpy-e2e") == {"env": "prod"}
    code, out, err = run(tmp_path, "state", "-o", "json", env=env, timeout=AWS_SECONDS)
    assert "testing-secret-key" not in out and '"secret_key": "******"' in out

    code, out, err = run(tmp_path, "destroy", "--yes", env=env, timeout=AWS_SECONDS)
    assert code == 0, out + err
    assert buckets(moto_url) == [] and parameters(moto_url) == {}
