"""OCI registries through the ``oras`` client library: pull, push, tags, login.

Artifacts have the real tool's layout, so a package pushed by one is pulled by the
other: an OCI image manifest with ``artifactType`` and one layer
``application/vnd.oci.image.layer.v1.tar+gzip`` titled ``<name>_<version>.tgz``
(the package's ``.tar``, gzipped), the empty config, and the manifest annotations
``org.kcllang.package.{name,version,description,sum}`` and
``org.opencontainers.image.created``. Pulling accepts a ``.tar`` or ``.tgz`` layer.

Requests go through ``oras``'s ``Registry`` with two changes: one attempt per request
with a timeout (its retry loop sleeps for minutes on an unreachable host) - and each
operation (a tag list, a manifest, an archive's download, a push) ends as a whole
within the read timeout, plus the time its archive takes at :data:`MIN_TRANSFER_RATE`
(:mod:`kclpy.request_deadline`: a registry that trickles its answer is cut off), and
``Basic`` challenges answered with the stored credentials (the Distribution registry
with htpasswd asks for them; token registries go through ``oras``'s token flow).
Every failure becomes a :class:`~kclpy.mod.errors.PackageError` naming the package.

What a registry sends is read within bounds: a manifest or tag list at most
:data:`MAX_DOCUMENT_BYTES`, a layer at most its announced size (itself at most
:data:`MAX_LAYER_BYTES`), and the layer's sha256 is checked against the manifest's
digest before :func:`pull` returns it for unpacking.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import re
import shutil
import time
from collections.abc import Iterator

from kclpy.diag import Code
from kclpy.mod import settings
from kclpy.mod.errors import PackageError
from kclpy.mod.network import failure, timeouts
from kclpy.mod.progress import Fetch
from kclpy.records import Record
from kclpy.request_deadline import bound_session, within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip"
TAR_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar"
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
EMPTY_CONFIG = {
    "mediaType": "application/vnd.oci.empty.v1+json",
    "digest": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
    "size": 2,
    "data": "e30=",
}
ANNOTATION_NAME = "org.kcllang.package.name"
ANNOTATION_VERSION = "org.kcllang.package.version"
ANNOTATION_DESCRIPTION = "org.kcllang.package.description"
ANNOTATION_SUM = "org.kcllang.package.sum"
ANNOTATION_CREATED = "org.opencontainers.image.created"
ANNOTATION_TITLE = "org.opencontainers.image.title"
MAX_DOCUMENT_BYTES = 4 << 20  # a manifest or a tag list (the OCI spec's manifest limit)
MAX_LAYER_BYTES = 512 << 20  # a package archive, as it is downloaded
MIN_TRANSFER_RATE = 64 << 10  # bytes per second an archive's transfer is given time for
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


class Reference(Record):
    """``HOST/REPOSITORY`` of a package, as in ``oci://HOST/REPOSITORY``."""

    host: str
    repository: str

    @classmethod
    def parse(cls, url: str) -> Reference:
        rest = url.removeprefix("oci://").strip("/")
        host, _, repository = rest.partition("/")
        if not host or not repository:
            raise PackageError(
                Code.USAGE_ERROR, f"'{url}' is not an OCI URL of the form oci://HOST/REPOSITORY"
            )
        return cls(host, repository)

    def __str__(self) -> str:
        return f"{self.host}/{self.repository}"


def _client(host: str) -> Any:
    """An ``oras`` registry client for ``host`` with the stored credentials loaded."""
    import oras.provider

    class Registry(oras.provider.Registry):  # type: ignore[misc]
        def do_request(
            self,
            url: str,
            method: str = "GET",
            data: Any = None,
            headers: dict[str, str] | None = None,
            json: Any = None,
            stream: bool = False,
        ) -> Any:
            headers = dict(headers or {})
            if getattr(self.auth, "token", None):  # a bearer token from an earlier challenge
                headers.update(self.auth.get_auth_header())

            def send() -> Any:
                return self.session.request(
                    method, url, data=data, json=json, headers=headers, stream=stream,
                    verify=self._tls_verify, timeout=timeouts(),
                )  # fmt: skip

            response = send()
            if response.status_code not in (401, 403):
                return response
            challenge = response.headers.get("Www-Authenticate", "")
            basic = getattr(self.auth, "_basic_auth", None)
            if challenge.lower().startswith("basic"):
                if not basic:
                    return response
                headers["Authorization"] = f"Basic {basic}"
                return send()
            headers, changed = self.auth.authenticate_request(response, headers)
            return send() if changed else response

    client = Registry(hostname=host, insecure=settings.is_plain_http(host))
    bound_session(client.session)
    stored = _read_auths(settings.credentials_file()).get(host)
    if isinstance(stored, dict) and isinstance(stored.get("auth"), str):
        username, _, password = base64.b64decode(stored["auth"]).decode().partition(":")
        client.auth.set_basic_auth(username, password)
    return client


def _read_auths(path: str) -> dict[str, Any]:
    """The ``auths`` of the credentials file ({} when there is none)."""
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError):
        data = {}
    auths = data.get("auths") if isinstance(data, dict) else None
    return auths if isinstance(auths, dict) else {}


@contextlib.contextmanager
def _errors(reference: Reference, what: str, transfer: int = 0) -> Iterator[None]:
    """Turn the client's exceptions into PackageErrors about ``what``; the requests of
    the block end within the read timeout plus ``transfer`` bytes' time."""
    import requests

    try:
        with within(timeouts()[1] + transfer / MIN_TRANSFER_RATE):
            yield
    except PackageError:
        raise
    except (requests.exceptions.RequestException, TimeoutError) as error:
        raise failure(error, reference.host, what) from None
    except Exception as error:  # oras raises ValueError and plain exceptions
        raise PackageError(
            Code.REGISTRY_ERROR, f"registry '{reference.host}' failed for {what}: {error}",
            dependency=what,
        ) from None  # fmt: skip


def _document(response: Any, reference: Reference, what: str, limit: int) -> Any:
    """The JSON body of ``response``, read up to ``limit`` bytes (more is an error)."""
    body = bytearray()
    for chunk in response.iter_content(chunk_size=1 << 16):
        body += chunk
        if len(body) > limit:
            raise PackageError(
                Code.REGISTRY_ERROR,
                f"registry '{reference.host}' sent more than {limit} bytes for {what}",
                dependency=what,
            )
    try:
        return json.loads(bytes(body))
    except ValueError:
        raise PackageError(
            Code.REGISTRY_ERROR, f"registry '{reference.host}' sent invalid JSON for {what}",
            dependency=what,
        ) from None  # fmt: skip


def _check(response: Any, reference: Reference, what: str, tag: str = "") -> None:
    status = response.status_code
    if status in (200, 201, 202):
        return
    try:
        found = _document(response, reference, what, 1 << 16)
        errors = found.get("errors", []) if isinstance(found, dict) else []
        codes = [str(e.get("code", "")) for e in errors if isinstance(e, dict)]
    except (PackageError, TypeError):
        codes = []
    if status in (401, 403):
        raise PackageError(
            Code.AUTHENTICATION_ERROR,
            f"not authorised to access '{reference}' for {what} (HTTP {status})",
            f"log in with 'kcl registry login {reference.host}'",
            dependency=what,
        )
    if status == 404 or "NAME_UNKNOWN" in codes or "MANIFEST_UNKNOWN" in codes:
        missing = f"version '{tag}' of " if tag and "NAME_UNKNOWN" not in codes else ""
        raise PackageError(
            Code.PACKAGE_NOT_FOUND, f"{missing}package '{what}' not found in '{reference}'",
            dependency=what,
        )  # fmt: skip
    raise PackageError(
        Code.REGISTRY_ERROR, f"registry '{reference.host}' answered HTTP {status} for {what}",
        dependency=what,
    )  # fmt: skip


def tags(reference: Reference, what: str) -> list[str]:
    """The tags of a repository ([] when the repository does not exist)."""
    client = _client(reference.host)
    container = client.get_container(str(reference))
    url = f"{client.prefix}://{container.tags_url()}"
    with _errors(reference, what), client.do_request(url, "GET", stream=True) as response:
        if response.status_code == 404:
            return []
        _check(response, reference, what)
        document = _document(response, reference, what, MAX_DOCUMENT_BYTES)
    found = document.get("tags") if isinstance(document, dict) else None
    return [str(tag) for tag in found] if isinstance(found, list) else []


_TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


def check_tag(tag: str, what: str) -> None:
    """A tag the OCI distribution spec allows, else a coded error naming the package."""
    if not _TAG.fullmatch(tag):
        raise PackageError(
            Code.PACKAGE_NOT_FOUND,
            f"'{tag}' is not a valid version (OCI tag) for package '{what}'",
            dependency=what,
        )


def manifest(reference: Reference, tag: str, what: str) -> dict[str, Any]:
    check_tag(tag, what)
    client = _client(reference.host)
    container = client.get_container(f"{reference}:{tag}")
    url = f"{client.prefix}://{container.manifest_url()}"
    with _errors(reference, what):
        headers = {"Accept": MANIFEST_MEDIA_TYPE}
        with client.do_request(url, "GET", headers=headers, stream=True) as response:
            _check(response, reference, what, tag)
            data = _document(response, reference, what, MAX_DOCUMENT_BYTES)
    return data if isinstance(data, dict) else {}


def pull(
    reference: Reference, tag: str, folder: str, what: str, progress: Fetch | None = None
) -> tuple[str, dict[str, Any]]:
    """Download the package archive of ``reference:tag`` into ``folder``; returns its
    path and the manifest. The blob is checked against the manifest's size and sha256
    digest before it is returned (so nothing unverified is unpacked). ``progress``
    hears the archive's size and each chunk received."""
    found = manifest(reference, tag, what)
    digest, size, suffix = _layer(found, f"{reference}:{tag}", what)
    if progress is not None:
        progress.expect(size)
    target = os.path.join(folder, "package" + suffix)
    client = _client(reference.host)
    container = client.get_container(f"{reference}:{tag}")
    hashed = hashlib.sha256()
    received = 0
    with _errors(reference, what, size):
        response = client.get_blob(container, digest, stream=True)
        _check(response, reference, what, tag)
        with response, open(target, "xb") as stream:
            for chunk in response.iter_content(chunk_size=1 << 16):
                received += len(chunk)
                if received > size:
                    break
                hashed.update(chunk)
                stream.write(chunk)
                if progress is not None:
                    progress.advance(len(chunk))
    if received != size or f"sha256:{hashed.hexdigest()}" != digest:
        raise PackageError(
            Code.CORRUPT_ARCHIVE,
            f"the archive of {what} from '{reference}:{tag}' does not match its "
            f"{'size' if received != size else 'digest'} in the manifest",
            dependency=what,
        )
    return target, found


def _layer(found: dict[str, Any], where: str, what: str) -> tuple[str, int, str]:
    """The digest, size and file suffix of the package layer of the manifest ``found``."""
    layers = found.get("layers")
    chosen = [
        layer for layer in (layers if isinstance(layers, list) else [])
        if isinstance(layer, dict) and layer.get("mediaType") in (LAYER_MEDIA_TYPE, TAR_MEDIA_TYPE)
    ]  # fmt: skip
    if not chosen:
        raise PackageError(
            Code.CORRUPT_ARCHIVE, f"'{where}' holds no KCL package layer", dependency=what
        )
    layer = chosen[0]
    digest, size = layer.get("digest"), layer.get("size")
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        raise PackageError(
            Code.CORRUPT_ARCHIVE,
            f"the package layer of '{where}' has no sha256 digest", dependency=what,
        )  # fmt: skip
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_LAYER_BYTES:
        raise PackageError(
            Code.CORRUPT_ARCHIVE,
            f"the package layer of '{where}' has no size or one over {MAX_LAYER_BYTES >> 20} MiB",
            dependency=what,
        )
    return digest, size, ".tgz" if layer["mediaType"] == LAYER_MEDIA_TYPE else ".tar"


def push(
    reference: Reference, tag: str, tar_path: str, annotations: dict[str, str], what: str
) -> str:
    """Push the package ``.tar`` at ``tar_path`` as ``reference:tag``; returns the
    manifest digest."""
    import gzip

    import oras.oci

    check_tag(tag, what)
    name = os.path.basename(tar_path).removesuffix(".tar") + ".tgz"
    layer_path = os.path.join(os.path.dirname(tar_path), name)
    with (
        open(tar_path, "rb") as source,
        open(layer_path, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as packed,
    ):
        shutil.copyfileobj(source, packed)
    try:
        layer = oras.oci.NewLayer(layer_path, media_type=LAYER_MEDIA_TYPE)
        layer["annotations"] = {ANNOTATION_TITLE: name}
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        document = {
            "schemaVersion": 2,
            "mediaType": MANIFEST_MEDIA_TYPE,
            "artifactType": LAYER_MEDIA_TYPE,
            "config": EMPTY_CONFIG,
            "layers": [layer],
            "annotations": {**annotations, ANNOTATION_CREATED: created},
        }
        body = json.dumps(document, separators=(",", ":")).encode("utf-8")
        client = _client(reference.host)
        container = client.get_container(f"{reference}:{tag}")
        with _errors(reference, what, os.path.getsize(layer_path)):
            _check(client.upload_blob(layer_path, container, layer), reference, what)
            _put_empty_config(client, container, reference, what)
            response = client.do_request(
                f"{client.prefix}://{container.manifest_url()}", "PUT",
                headers={"Content-Type": MANIFEST_MEDIA_TYPE}, data=body,
            )  # fmt: skip
            _check(response, reference, what)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(layer_path)
    return "sha256:" + hashlib.sha256(body).hexdigest()


def _put_empty_config(client: Any, container: Any, reference: Reference, what: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="kclpy-") as folder:
        path = os.path.join(folder, "config.json")
        with open(path, "w", encoding="ascii") as stream:
            stream.write("{}")
        config = {key: EMPTY_CONFIG[key] for key in ("mediaType", "digest", "size")}
        _check(client.upload_blob(path, container, config), reference, what)


def login(host: str, username: str, password: str) -> None:
    """Check the credentials against ``host`` and store them (never printed)."""
    import requests

    reference = Reference(host, "")
    scheme = "http" if settings.is_plain_http(host) else "https"
    try:
        with requests.Session() as session, within(timeouts()[1]):
            bound_session(session)
            response = session.get(
                f"{scheme}://{host}/v2/", auth=(username, password), timeout=timeouts()
            )
    except (requests.exceptions.RequestException, TimeoutError) as error:
        raise failure(error, host, f"login to {host}") from None
    if response.status_code in (401, 403):
        raise PackageError(Code.AUTHENTICATION_ERROR, f"login to '{host}' failed: unauthorised")
    _check(response, reference, f"login to {host}")
    token = base64.b64encode(f"{username}:{password}".encode()).decode("ascii")
    _update_auths(lambda auths: auths.__setitem__(host, {"auth": token}))


def logout(host: str) -> bool:
    """Forget the credentials of ``host``; False when there were none."""
    removed: list[object] = []
    _update_auths(lambda auths: removed.append(auths.pop(host, None)))
    return removed[0] is not None


def _update_auths(change: Any) -> None:
    from kclpy.source import write_atomically

    path = settings.credentials_file()
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    auths = data.setdefault("auths", {})
    change(auths)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # created private first: write_atomically keeps an existing file's permissions
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    write_atomically(path, json.dumps(data, indent=2) + "\n")
