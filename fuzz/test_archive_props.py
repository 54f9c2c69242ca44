"""Random package archives through the extractor, ``kclpy.mod.extract`` (hypothesis).

Each example writes a tar (plain or gzipped) of random members: names built from
parts such as ``..``, ``.``, empty, ``C:``, a backslash, a control character, a
non-ASCII letter, an over-long part and a leading ``/``; types file, folder, symbolic
link, hard link, FIFO and character device; sizes up to a few KiB. Sometimes the
destination already holds ``a``, a symbolic link to a folder outside it.

Property: nothing outside the destination changes; and either the extraction
succeeds and the destination holds exactly the regular files a small model of the
rules predicts (with their bytes), or it raises ``PackageError`` and the destination
is as it was. ``KCLPY_FUZZ_EXAMPLES`` raises the number of examples.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kclpy.mod import extract
from kclpy.mod.errors import PackageError

EXAMPLES = int(os.environ.get("KCLPY_FUZZ_EXAMPLES", "150"))

SAFE_PARTS = ["a", "b", "lib", "é", ".", ""]
HOSTILE_PARTS = ["..", "C:", "x\\y", "\x01", "p" * 256]
PARTS = SAFE_PARTS * 12 + HOSTILE_PARTS  # mostly valid names, so some archives unpack
KINDS = {
    "file": tarfile.REGTYPE,
    "dir": tarfile.DIRTYPE,
    "symlink": tarfile.SYMTYPE,
    "hardlink": tarfile.LNKTYPE,
    "fifo": tarfile.FIFOTYPE,
    "device": tarfile.CHRTYPE,
}

names = st.builds(
    lambda absolute, parts: ("/" if absolute else "") + "/".join(parts),
    st.integers(0, 9).map(lambda draw: draw == 0),
    st.lists(st.sampled_from(PARTS), min_size=1, max_size=4),
)
members = st.lists(
    st.tuples(
        names,
        st.sampled_from(["file"] * 16 + ["dir"] * 8 + sorted(KINDS)),
        st.integers(0, 3000),
        names,
    ),
    max_size=10,
)
Member = tuple[str, str, int, str]  # name, kind, size, link target


def _write(path: Path, chosen: list[Member], compress: bool) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for index, (name, kind, size, target) in enumerate(chosen):
            info = tarfile.TarInfo(name)
            info.type = KINDS[kind]
            if kind == "file":
                info.size = size
                archive.addfile(info, io.BytesIO(bytes([index]) * size))
            else:
                info.linkname = target if "link" in kind else ""
                archive.addfile(info)
    data = buffer.getvalue()
    path.write_bytes(gzip.compress(data) if compress else data)


def _model(chosen: list[Member], trap: bool) -> dict[str, bytes] | None:
    """The files the rules allow (path: bytes), or None when the archive is refused."""
    kinds: dict[tuple[str, ...], str] = {}
    files: dict[str, bytes] = {}
    for index, (written, kind, size, _) in enumerate(chosen):
        name = written.rstrip("/") if kind == "dir" else written  # as tar readers do
        if kind not in ("file", "dir") or name.startswith("/"):
            return None
        if any(character in name for character in "\\:\x01") or len(name.encode()) > 1024:
            return None
        parts = tuple(part for part in name.split("/") if part not in ("", "."))
        if ".." in parts or any(len(part.encode()) > 255 for part in parts):
            return None
        if not parts:
            if kind == "file":
                return None
            continue
        if trap and parts[0] == "a":
            return None  # through the link, or in its place
        for depth in range(1, len(parts)):
            if kinds.setdefault(parts[:depth], "dir") == "file":
                return None
        if parts in kinds and (kind == "file" or kinds[parts] == "file"):
            return None
        kinds[parts] = kind
        if kind == "file":
            files["/".join(parts)] = bytes([index]) * size
    return files


def _state(folder: Path) -> dict[str, tuple[str, bytes]]:
    found: dict[str, tuple[str, bytes]] = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = os.path.join(root, name)
            key = os.path.relpath(path, folder)
            if os.path.islink(path):
                found[key] = ("link", os.readlink(path).encode())
            elif os.path.isdir(path):
                found[key] = ("dir", b"")
            else:
                found[key] = ("file", Path(path).read_bytes())
    return found


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(members, st.booleans(), st.booleans())
def test_extraction_stays_inside_and_matches_the_rules(
    chosen: list[Member], compress: bool, trap: bool
) -> None:
    with tempfile.TemporaryDirectory(prefix="kclpy-archive-") as base:
        top = Path(base)
        (top / "outside").mkdir()
        (top / "outside" / "victim.txt").write_text("original\n")
        destination = top / "root" / "dest"
        destination.mkdir(parents=True)
        if trap:
            os.symlink(top / "outside", destination / "a")
        _write(top / "package.tar", chosen, compress)
        before = _state(top)
        expected = _model(chosen, trap)
        try:
            extract.unpack(str(top / "package.tar"), str(destination), "fuzz")
        except PackageError:
            event("refused")
            assert expected is None, f"refused, but the rules allow {chosen}"
            assert _state(top) == before
            return
        event(f"accepted, {'some' if expected else 'no'} files")
        assert expected is not None, f"accepted, but the rules refuse {chosen}"
        after = _state(top)
        outside = {key: value for key, value in after.items() if not key.startswith("root/")}
        assert outside == {k: v for k, v in before.items() if not k.startswith("root/")}
        unpacked = {
            os.path.relpath(key, "root/dest"): value
            for key, value in after.items()
            if key.startswith("root/dest/")
        }
        assert {key: data for key, (kind, data) in unpacked.items() if kind == "file"} == expected
        assert {kind for kind, _ in unpacked.values()} <= {"file", "dir", "link"}
        assert [key for key, (kind, _) in unpacked.items() if kind == "link"] == (
            ["a"] if trap else []
        )
