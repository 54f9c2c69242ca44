"""Packages through a real OCI registry: push, add, pull, run, lock, checksums, errors."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path

import pytest
import requests

from kclpy.mod import oci

from .conftest import free_port, kcl, make_package


def env_for(registry: str, home: Path) -> dict[str, str]:
    return {"KCL_PKG_PATH": str(home), "KPM_REG": registry, "KPM_REPO": "kcl-lang"}


def push(folder: Path, registry: str, home: Path, name: str = "") -> None:
    url = f"oci://{registry}/kcl-lang/{name or folder.name}"
    pushed = kcl("mod", "push", url, "--force", cwd=folder, env=env_for(registry, home))
    assert pushed.returncode == 0, pushed.stderr


def test_push_writes_the_real_tools_artifact(registry: str, tmp_path: Path, home: Path) -> None:
    package = make_package(tmp_path / "helloworld", "helloworld", "0.1.0", "hello = 'world'\n")
    push(package, registry, home)
    response = requests.get(
        f"http://{registry}/v2/kcl-lang/helloworld/manifests/0.1.0",
        headers={"Accept": oci.MANIFEST_MEDIA_TYPE},
        timeout=30,
    )
    manifest = response.json()
    assert manifest["mediaType"] == "application/vnd.oci.image.manifest.v1+json"
    assert manifest["artifactType"] == "application/vnd.oci.image.layer.v1.tar+gzip"
    assert manifest["config"]["mediaType"] == "application/vnd.oci.empty.v1+json"
    [layer] = manifest["layers"]
    assert layer["mediaType"] == "application/vnd.oci.image.layer.v1.tar+gzip"
    assert layer["annotations"]["org.opencontainers.image.title"] == "helloworld_0.1.0.tgz"
    annotations = manifest["annotations"]
    assert annotations["org.kcllang.package.name"] == "helloworld"
    assert annotations["org.kcllang.package.version"] == "0.1.0"
    assert annotations["org.kcllang.package.sum"]
    again = kcl("mod", "push", cwd=package, env=env_for(registry, home))
    assert again.returncode != 0 and "already exists" in again.stderr


def test_add_run_lock_and_offline(registry: str, tmp_path: Path, home: Path) -> None:
    lib = make_package(
        tmp_path / "greeter", "greeter", "1.2.0", "schema Greeting:\n    text: str\n"
    )
    push(lib, registry, home)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import greeter\ng = greeter.Greeting {text = 'hi'}\n"
    )
    environment = env_for(registry, home)
    added = kcl("mod", "add", "greeter:1.2.0", cwd=app, env=environment)
    assert added.returncode == 0, added.stderr
    assert 'greeter = "1.2.0"' in (app / "kcl.mod").read_text()
    lock = (app / "kcl.mod.lock").read_text()
    assert (
        'full_name = "greeter_1.2.0"' in lock and 'oci_tag = "1.2.0"' in lock and "sum = " in lock
    )
    assert (home / "greeter_1.2.0" / "main.k").is_file()
    assert not [p for p in os.listdir(home) if p.startswith(".kclpy-download")]
    ran = kcl("run", cwd=app, env=environment)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "g:\n  text: hi\n"
    # cached: works with the registry unreachable
    offline = dict(environment, KPM_REG=f"127.0.0.1:{free_port()}")
    again = kcl("run", cwd=app, env=offline)
    assert again.returncode == 0, again.stderr
    assert again.stdout == ran.stdout


def test_latest_version_and_highest_compatible_transitive(
    registry: str, tmp_path: Path, home: Path
) -> None:
    for version in ("1.0.0", "1.1.0"):
        push(
            make_package(tmp_path / f"base{version}", "base", version, f"v = '{version}'\n"),
            registry,
            home,
            "base",
        )
    left = make_package(
        tmp_path / "left", "left", "0.1.0", "import base\nv = base.v\n", 'base = "1.0.0"\n'
    )
    right = make_package(
        tmp_path / "right", "right", "0.1.0", "import base\nv = base.v\n", 'base = "1.1.0"\n'
    )
    push(left, registry, home)
    push(right, registry, home)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import left\nimport right\na = left.v\nb = right.v\n"
    )
    environment = env_for(registry, home)
    for spec in ("left", "right"):  # no version: the highest tag
        added = kcl("mod", "add", spec, cwd=app, env=environment)
        assert added.returncode == 0, added.stderr
    assert 'left = "0.1.0"' in (app / "kcl.mod").read_text()
    ran = kcl("run", cwd=app, env=environment)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "a: '1.1.0'\nb: '1.1.0'\n"
    graph = kcl("mod", "graph", cwd=app, env=environment)
    assert graph.stdout.splitlines() == [
        "app@0.0.1 left@0.1.0",
        "app@0.0.1 right@0.1.0",
        "left@0.1.0 base@1.1.0",
        "right@0.1.0 base@1.1.0",
    ]
    metadata = json.loads(kcl("mod", "metadata", cwd=app, env=environment).stdout)
    assert metadata["packages"]["base"]["manifest_path"] == str(home / "base_1.1.0")


def test_incompatible_versions_are_a_conflict(registry: str, tmp_path: Path, home: Path) -> None:
    for version in ("1.0.0", "2.0.0"):
        push(
            make_package(tmp_path / f"core{version}", "core", version, "c = 1\n"),
            registry,
            home,
            "core",
        )
    one = make_package(tmp_path / "one", "one", "0.1.0", "x = 1\n", 'core = "1.0.0"\n')
    two = make_package(tmp_path / "two", "two", "0.1.0", "x = 1\n", 'core = "2.0.0"\n')
    push(one, registry, home)
    push(two, registry, home)
    app = make_package(
        tmp_path / "app",
        "app",
        "0.0.1",
        "import one\nimport two\n",
        'one = "0.1.0"\ntwo = "0.1.0"\n',
    )
    ran = kcl("run", cwd=app, env=env_for(registry, home))
    assert ran.returncode != 0
    assert (
        "E9103" in ran.stderr
        and "core" in ran.stderr
        and "one" in ran.stderr
        and "two" in ran.stderr
    )
    assert "Traceback" not in ran.stderr


def test_checksum_mismatch_is_an_error(registry: str, tmp_path: Path, home: Path) -> None:
    push(make_package(tmp_path / "sums", "sums", "0.3.0", "s = 1\n"), registry, home)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import sums\nv = sums.s\n", 'sums = "0.3.0"\n'
    )
    environment = env_for(registry, home)
    assert kcl("run", cwd=app, env=environment).returncode == 0
    lock = app / "kcl.mod.lock"
    lock.write_text(lock.read_text().replace('sum = "', 'sum = "AAAA'))
    ran = kcl("run", cwd=app, env=environment)
    assert ran.returncode != 0
    assert "E9106" in ran.stderr and "sums" in ran.stderr and "Traceback" not in ran.stderr
    fresh = dict(environment, KCL_PKG_PATH=str(tmp_path / "fresh"))  # an empty cache too
    assert "E9106" in kcl("run", cwd=app, env=fresh).stderr
    updated = kcl("mod", "update", cwd=app, env=environment)
    assert updated.returncode == 0, updated.stderr
    assert kcl("run", cwd=app, env=environment).returncode == 0


@pytest.mark.parametrize(
    ("dependency", "code"),
    [('nothere = "1.0.0"', "E9102"), ('sums = "9.9.9"', "E9102")],
)
def test_missing_package_or_version(
    registry: str, tmp_path: Path, home: Path, dependency: str, code: str
) -> None:
    push(make_package(tmp_path / "sums", "sums", "0.3.0", "s = 1\n"), registry, home)
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", dependency + "\n")
    ran = kcl("run", cwd=app, env=env_for(registry, home))
    assert ran.returncode != 0
    assert code in ran.stderr and dependency.split()[0] in ran.stderr
    assert "Traceback" not in ran.stderr
    assert [p for p in os.listdir(home) if not p.startswith(".")] == []


def test_unreachable_registry(tmp_path: Path, home: Path) -> None:
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'far = "1.0.0"\n')
    ran = kcl("run", cwd=app, env=env_for(f"127.0.0.1:{free_port()}", home))
    assert ran.returncode != 0
    assert "E9104" in ran.stderr and "far" in ran.stderr and "Traceback" not in ran.stderr


def test_corrupt_layer_leaves_nothing_in_the_cache(
    registry: str, tmp_path: Path, home: Path
) -> None:
    bogus = tmp_path / "broken_0.1.0.tar"
    bogus.write_bytes(b"this is not a tar archive" * 50)
    reference = oci.Reference(registry, "kcl-lang/broken")
    oci.push(reference, "0.1.0", str(bogus), {oci.ANNOTATION_NAME: "broken"}, "broken")
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'broken = "0.1.0"\n')
    ran = kcl("run", cwd=app, env=env_for(registry, home))
    assert ran.returncode != 0
    assert "E9107" in ran.stderr and "broken" in ran.stderr
    assert [p for p in os.listdir(home) if not p.startswith(".")] == []
    assert not [p for p in os.listdir(home) if p.startswith(".kclpy-download")]


def test_run_oci_url_and_tar(registry: str, tmp_path: Path, home: Path) -> None:
    package = make_package(tmp_path / "runme", "runme", "0.2.0", "answer = 42\n")
    push(package, registry, home)
    environment = env_for(registry, home)
    ran = kcl(
        "run", f"oci://{registry}/kcl-lang/runme", "--tag", "0.2.0", cwd=tmp_path, env=environment
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "answer: 42\n"
    packed = kcl("mod", "package", cwd=package, env=environment)
    assert packed.returncode == 0, packed.stderr
    archive = Path(packed.stdout.strip())
    assert archive.name == "runme_0.2.0.tar"
    shutil.move(archive, tmp_path / archive.name)
    from_tar = kcl("run", archive.name, cwd=tmp_path, env=environment)
    assert from_tar.returncode == 0, from_tar.stderr
    assert from_tar.stdout == "answer: 42\n"


def test_login_logout_and_private_pull(auth_registry: str, tmp_path: Path, home: Path) -> None:
    environment = env_for(auth_registry, home)
    package = make_package(tmp_path / "private", "private", "0.1.0", "secret = 'ok'\n")
    denied = kcl("mod", "push", cwd=package, env=environment)
    assert denied.returncode != 0 and "E9105" in denied.stderr
    wrong = kcl(
        "registry",
        "login",
        "-u",
        "test",
        "-p",
        "nope",
        auth_registry,
        cwd=tmp_path,
        env=environment,
    )
    assert wrong.returncode != 0 and "E9105" in wrong.stderr and "nope" not in wrong.stderr
    login = kcl(
        "registry",
        "login",
        "-u",
        "test",
        "--password-stdin",
        auth_registry,
        cwd=tmp_path,
        env=environment,
        stdin="1234\n",
    )
    assert login.returncode == 0, login.stderr
    assert "1234" not in login.stdout + login.stderr
    config = home / ".kpm" / "config" / "config.json"
    assert oct(config.stat().st_mode & 0o777) == "0o600"
    assert auth_registry in json.loads(config.read_text())["auths"]
    assert kcl("mod", "push", cwd=package, env=environment).returncode == 0
    app = make_package(
        tmp_path / "app",
        "app",
        "0.0.1",
        "import private\ns = private.secret\n",
        'private = "0.1.0"\n',
    )
    ran = kcl("run", cwd=app, env=environment)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "s: ok\n"
    assert kcl("registry", "logout", auth_registry, cwd=tmp_path, env=environment).returncode == 0
    assert auth_registry not in json.loads(config.read_text())["auths"]


def test_python_api_resolves_and_operates(
    registry: str, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kclpy
    import kclpy.mod

    monkeypatch.setenv("KPM_REG", registry)
    monkeypatch.setenv("KPM_REPO", "kcl-lang")
    push(make_package(tmp_path / "apilib", "apilib", "0.5.0", "n = 5\n"), registry, home)
    app = tmp_path / "app"
    kclpy.mod.init(str(app))
    (app / "main.k").write_text("import apilib\nm = apilib.n * 2\n")
    found = kclpy.mod.add(str(app), kclpy.mod.parse_spec("apilib"))
    assert found.locked.version == "0.5.0" and found.path == str(home / "apilib_0.5.0")
    result = kclpy.run_files([str(app / "main.k")])
    assert result.ok, result.diagnostics
    assert result.text == "m: 10\n"
    monkeypatch.setenv("KPM_REG", f"127.0.0.1:{free_port()}")
    shutil.rmtree(home / "apilib_0.5.0")
    failed = kclpy.run_files([str(app / "main.k")])
    assert not failed.ok
    assert any(d.code.id == "E9104" and "apilib" in d.message for d in failed.diagnostics)


def test_add_oci_url_renamed_and_a_bad_tag(registry: str, tmp_path: Path, home: Path) -> None:
    push(make_package(tmp_path / "widgets", "widgets", "0.4.0", "w = 4\n"), registry, home)
    app = make_package(tmp_path / "app", "app", "0.0.1", "import ui\nv = ui.w\n")
    url = f"oci://{registry}/kcl-lang/widgets"
    environment = env_for(registry, home)
    added = kcl("mod", "add", url, "--tag", "0.4.0", "--rename", "ui", cwd=app, env=environment)
    assert added.returncode == 0, added.stderr
    text = (app / "kcl.mod").read_text()
    assert f'ui = {{ oci = "{url}", tag = "0.4.0", package = "widgets" }}' in text
    ran = kcl("run", cwd=app, env=environment)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "v: 4\n"
    bad = kcl("mod", "add", url, "--tag", "0.4.0/../x", cwd=app, env=environment)
    assert bad.returncode == 1 and "invalid version '0.4.0/../x'" in bad.stderr
    assert "E9101" in bad.stderr
    assert kcl("mod", "add", url, "--tag", "0.4.0/../x", cwd=app, env=environment).stdout == ""
    assert (app / "kcl.mod").read_text() == text  # a failed add changes nothing


def test_vendor_mode_runs_without_cache_or_registry(
    registry: str, tmp_path: Path, home: Path
) -> None:
    push(make_package(tmp_path / "vend", "vend", "0.1.0", "x = 'vendored'\n"), registry, home)
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import vend\nv = vend.x\n", 'vend = "0.1.0"\n'
    )
    environment = env_for(registry, home)
    packed = kcl("mod", "package", "--vendor", cwd=app, env=environment)
    assert packed.returncode == 0, packed.stderr
    assert (app / "vendor" / "vend_0.1.0" / "main.k").is_file()
    nowhere = dict(
        environment, KCL_PKG_PATH=str(tmp_path / "empty"), KPM_REG=f"127.0.0.1:{free_port()}"
    )
    ran = kcl("run", cwd=app, env=nowhere)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == "v: vendored\n"


def test_default_registry_from_kpm_json(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kclpy.mod.settings import load_settings

    config = home / ".kpm" / "config"
    config.mkdir(parents=True)
    (config / "kpm.json").write_text(
        '{"DefaultOciRegistry": "reg.example:5000", "DefaultOciRepo": "team"}'
    )
    assert tuple(load_settings()) == ("reg.example:5000", "team")
    monkeypatch.setenv("KPM_REPO", "other")
    assert tuple(load_settings()) == ("reg.example:5000", "other")


def test_a_failed_download_is_not_retried_at_once_in_one_process(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language server loads on every edit: an unreachable registry is asked once."""
    import socket
    import threading

    from kclpy.mod import dependency_paths

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    connections: list[int] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            connections.append(1)
            connection.close()  # no HTTP answer: a broken registry

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    monkeypatch.setenv("KPM_REG", f"127.0.0.1:{listener.getsockname()[1]}")
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'flaky = "1.0.0"\n')
    try:
        for _ in range(3):
            _, errors = dependency_paths(str(app))
            assert [error.code.id for error in errors] == ["E9104"]
        assert len(connections) == 1
    finally:
        with contextlib.suppress(OSError):
            listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
        listener.close()
        thread.join(timeout=10)


def test_an_unversioned_dependency_keeps_its_locked_version(
    registry: str, tmp_path: Path, home: Path
) -> None:
    push(make_package(tmp_path / "pinned1", "pinned", "1.0.0", "v = 1\n"), registry, home, "pinned")
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import pinned\nv = pinned.v\n", 'pinned = ""\n'
    )
    environment = env_for(registry, home)
    assert kcl("run", cwd=app, env=environment).stdout == "v: 1\n"
    push(make_package(tmp_path / "pinned2", "pinned", "2.0.0", "v = 2\n"), registry, home, "pinned")
    assert kcl("run", cwd=app, env=environment).stdout == "v: 1\n"  # the lock says 1.0.0
    assert kcl("mod", "update", cwd=app, env=environment).returncode == 0
    assert kcl("run", cwd=app, env=environment).stdout == "v: 2\n"


def test_lint_test_and_doc_resolve_like_run(registry: str, tmp_path: Path, home: Path) -> None:
    push(
        make_package(tmp_path / "shapes", "shapes", "0.2.0", "schema Box:\n    size: int\n"),
        registry,
        home,
    )
    app = make_package(
        tmp_path / "app", "app", "0.0.1", "import shapes\nbox = shapes.Box {size = 2}\n",
        'shapes = "0.2.0"\n',
    )  # fmt: skip
    (app / "main_test.k").write_text("test_box = lambda {\n    assert box.size == 2\n}\n")
    environment = env_for(registry, home)
    linted = kcl("lint", "main.k", cwd=app, env=environment)
    assert linted.returncode == 0, linted.stdout + linted.stderr
    tested = kcl("test", ".", cwd=app, env=environment)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert (home / "shapes_0.2.0").is_dir()


def test_a_package_that_differs_from_its_announced_sum_is_refused(
    registry: str, tmp_path: Path, home: Path
) -> None:
    from kclpy.mod import archive

    package = make_package(tmp_path / "liar", "liar", "0.1.0", "x = 1\n")
    tar_path = archive.pack(str(package), str(tmp_path / "liar_0.1.0.tar"))
    annotations = {oci.ANNOTATION_NAME: "liar", oci.ANNOTATION_SUM: "bm90IHRoZSBzdW0="}
    oci.push(oci.Reference(registry, "kcl-lang/liar"), "0.1.0", tar_path, annotations, "liar")
    app = make_package(tmp_path / "app", "app", "0.0.1", "a = 1\n", 'liar = "0.1.0"\n')
    ran = kcl("run", cwd=app, env=env_for(registry, home))
    assert ran.returncode != 0 and "E9106" in ran.stderr and "liar" in ran.stderr
    assert not (home / "liar_0.1.0").exists()
