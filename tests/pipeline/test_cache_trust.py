"""The compiled-module cache trusts only its own user's folder and entries
(``kclpy.pipeline.cache``, ``kclpy.pipeline.pickling``): an entry planted by someone
else, an entry that lists no files, a pickle naming anything the writer never emits
and a cache folder others may write never change what an honest program prints."""

from __future__ import annotations

import io
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from kclpy.pipeline import cache as cache_module
from kclpy.pipeline import pickling

NOBODY = 65534
HONEST = 'msg = "honest"\n'
PLANTED = 'msg = "PLANTED"\n'

as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="giving a file to another user (os.chown) needs root",
)


def kcl(folder: Path, cache: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """``kcl run main.k`` in ``folder`` with the cache at ``cache``."""
    environment = dict(os.environ, KCLPY_CACHE_DIR=str(cache))
    environment.pop("KCLPY_NO_CACHE", None)
    return subprocess.run(
        [sys.executable, "-m", "kclpy", "run", "main.k", *options],
        cwd=folder, env=environment, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def entries(cache: Path) -> list[Path]:
    programs = cache / "programs"
    return sorted(programs.iterdir()) if programs.is_dir() else []


def read_entry(entry: Path) -> tuple[dict[str, object], dict[str, tuple[str, bytes]]]:
    with entry.open("rb") as handle:
        return pickle.load(handle), pickle.load(handle)


def write_entry(entry: Path, manifest: object, blobs: object) -> None:
    with entry.open("wb") as handle:
        pickle.dump(manifest, handle)
        pickle.dump(blobs, handle)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "kcl.mod").write_text('[package]\nname = "app"\n')
    (root / "main.k").write_text(HONEST)
    return root


def plant(project: Path, cache: Path) -> Path:
    """The honest program's entry, its code replaced by another program's: what
    another user who can write the cache folder would put there. It passes every
    check of content (the manifest is the honest run's); only trust can refuse it."""
    assert kcl(project, cache).stdout == "msg: honest\n"
    (entry,) = entries(cache)
    manifest, _ = read_entry(entry)
    (project / "main.k").write_text(PLANTED)
    entry.unlink()
    assert kcl(project, cache).stdout == "msg: PLANTED\n"
    _, planted_blobs = read_entry(entry)
    (project / "main.k").write_text(HONEST)
    write_entry(entry, manifest, planted_blobs)
    return entry


def test_a_planted_entry_of_this_user_is_used(project: Path, tmp_path: Path) -> None:
    """The control of the tests below: the planted entry is well-formed, so only the
    owner and mode checks keep it out."""
    cache = tmp_path / "cache"
    plant(project, cache)
    assert kcl(project, cache).stdout == "msg: PLANTED\n"


@as_root
def test_an_entry_another_user_owns_is_ignored(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    os.chown(entry, NOBODY, NOBODY)
    ran = kcl(project, cache, "-v")
    assert ran.returncode == 0 and ran.stdout == "msg: honest\n"
    assert f"is owned by uid {NOBODY}, not by this user" in ran.stderr
    assert entry.stat().st_uid == os.geteuid()  # replaced by this run's own entry
    assert kcl(project, cache).stdout == "msg: honest\n"


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666], ids=oct)
def test_an_entry_group_or_others_may_write_is_ignored(
    project: Path, tmp_path: Path, mode: int
) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    entry.chmod(mode)
    ran = kcl(project, cache, "-v")
    assert ran.returncode == 0 and ran.stdout == "msg: honest\n"
    assert f"writable by group or others (mode {mode:o})" in ran.stderr
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600


def test_an_entry_listing_no_files_matches_no_program(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    manifest, blobs = read_entry(entry)
    write_entry(entry, dict(manifest, files=[], probes=[], discoveries=[]), blobs)
    assert kcl(project, cache).stdout == "msg: honest\n"
    assert read_entry(entry)[0]["files"] != []  # the run wrote its own entry


def test_an_entry_must_list_the_files_of_its_code(project: Path, tmp_path: Path) -> None:
    """Listing some file with its right digest is not enough: the entry files, and the
    files each package's code was compiled from, must be among those it lists."""
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    (project / "other.k").write_text("x = 1\n")
    manifest, blobs = read_entry(entry)
    other = (str(project / "other.k"), cache_module.digest(b"x = 1\n"))
    write_entry(entry, dict(manifest, files=[other]), blobs)
    found = cache_module.open_cache(["main.k"], str(project), {}, True)
    assert found is not None and found.lookup() is None
    assert kcl(project, cache).stdout == "msg: honest\n"


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o707], ids=oct)
def test_a_cache_folder_others_may_write_is_not_used(
    project: Path, tmp_path: Path, mode: int
) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    cache.chmod(mode)
    before = entry.read_bytes()
    ran = kcl(project, cache, "-v")
    assert ran.returncode == 0 and ran.stdout == "msg: honest\n"
    assert f"cache folder {cache} is writable by group or others" in ran.stderr
    assert "running uncached" in ran.stderr
    assert entry.read_bytes() == before and entries(cache) == [entry]  # nothing written


def test_an_entries_folder_others_may_write_is_not_used(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    entry.parent.chmod(0o777)
    ran = kcl(project, cache, "-v")
    assert ran.stdout == "msg: honest\n" and "programs is writable by group" in ran.stderr
    assert entries(cache) == [entry]


@as_root
def test_a_cache_folder_another_user_owns_is_not_used(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    for path in (cache, cache / "programs", entry):
        os.chown(path, NOBODY, NOBODY)
    ran = kcl(project, cache, "-v")
    assert ran.returncode == 0 and ran.stdout == "msg: honest\n"
    assert f"cache folder {cache} is owned by uid {NOBODY}" in ran.stderr
    assert entries(cache) == [entry] and entry.stat().st_uid == NOBODY
    quiet = kcl(project, cache)
    assert quiet.stdout == "msg: honest\n" and quiet.stderr == ""  # the note is -v's


def test_an_entry_that_is_a_link_is_ignored(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    entry = plant(project, cache)
    elsewhere = tmp_path / "elsewhere.bin"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert kcl(project, cache).stdout == "msg: honest\n"
    assert not entry.is_symlink()


def test_new_cache_folders_are_private(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every folder the cache makes is 0700 (also the missing ones above it, as
    ``$XDG_CACHE_HOME`` itself), every entry 0600, whatever the umask."""
    previous = os.umask(0)
    try:
        for name, variable in (("explicit", "KCLPY_CACHE_DIR"), ("xdg", "XDG_CACHE_HOME")):
            base = tmp_path / name / "a"
            environment = {"KCLPY_CACHE_DIR": "", "XDG_CACHE_HOME": "", variable: str(base)}
            ran = subprocess.run(
                [sys.executable, "-m", "kclpy", "run", "main.k"],
                cwd=project, env=dict(os.environ, **environment), capture_output=True, text=True,
            )  # fmt: skip
            assert ran.stdout == "msg: honest\n", ran.stderr
            folder = base if variable == "KCLPY_CACHE_DIR" else base / "kclpy"
            made = [base, *([folder] if folder != base else []), folder / "programs"]
            assert {str(path): oct(stat.S_IMODE(path.stat().st_mode)) for path in made} == {
                str(path): "0o700" for path in made
            }
            (entry,) = entries(folder)
            assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    finally:
        os.umask(previous)


# --------------------------------------------------------------------------- pickles


class _Call:
    """A pickle that calls ``function(*args)`` when loaded."""

    def __init__(self, function: object, *args: object) -> None:
        self.function = function
        self.args = args

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return self.function, self.args


def _global(module: str, name: str) -> bytes:
    """A protocol-5 pickle that names ``module.name`` and calls it with no argument."""
    return (
        b"\x80\x05"
        + b"\x8c" + bytes([len(module)]) + module.encode()
        + b"\x8c" + bytes([len(name)]) + name.encode()
        + b"\x93)R."
    )  # fmt: skip


def _payloads(marker: Path) -> dict[str, bytes]:
    return {
        "os.system": pickle.dumps(_Call(os.system, f"touch {marker}"), protocol=5),
        "builtins.eval": pickle.dumps(_Call(eval, f"open({str(marker)!r}, 'w')"), protocol=5),
        "builtins.exec": _global("builtins", "exec"),
        "kclpy.compile.code.partial": _global("kclpy.compile.code", "partial"),
        "kclpy.compile.code.NoCodeSource": _global("kclpy.compile.code", "NoCodeSource"),
        "kclpy.compile.code.Callable": _global("kclpy.compile.code", "Callable"),
        "kclpy.loader.Loader": _global("kclpy.loader", "Loader"),
        "kclpy.source.SourceFile": _global("kclpy.source", "SourceFile"),
    }


@pytest.mark.parametrize(
    "name",
    [
        "os.system",
        "builtins.eval",
        "builtins.exec",
        "kclpy.compile.code.partial",
        "kclpy.compile.code.NoCodeSource",
        "kclpy.compile.code.Callable",
        "kclpy.loader.Loader",
        "kclpy.source.SourceFile",
    ],
)
def test_a_pickle_naming_anything_else_is_refused_unrun(
    project: Path, tmp_path: Path, name: str
) -> None:
    marker = tmp_path / "ran"
    payload = _payloads(marker)[name]
    with pytest.raises(pickle.UnpicklingError, match="not allowed in a cache entry"):
        pickling.load(io.BytesIO(payload))
    assert not marker.exists()
    cache = tmp_path / "cache"
    assert kcl(project, cache).stdout == "msg: honest\n"
    (entry,) = entries(cache)
    manifest, blobs = read_entry(entry)
    for where in ("manifest", "table", "package"):
        with entry.open("wb") as handle:
            if where == "manifest":
                handle.write(payload)
            elif where == "table":
                pickle.dump(manifest, handle)
                handle.write(payload)
            else:
                pickle.dump(manifest, handle)
                pickle.dump({"__main__": (cache_module.digest(payload), payload)}, handle)
        ran = kcl(project, cache, "-v")
        assert ran.returncode == 0 and ran.stdout == "msg: honest\n", (where, ran.stderr)
        assert "cannot be used" in ran.stderr and "not allowed in a cache entry" in ran.stderr
        assert not marker.exists(), where
        assert read_entry(entry)[1].keys() == blobs.keys()  # a miss: written again


def test_the_manifest_and_the_table_name_no_class() -> None:
    data = pickle.dumps({"key": "k", "files": [("a.k", "d")]}, protocol=5)
    assert pickling.load_plain(io.BytesIO(data))["key"] == "k"
    code = pickling.dumps(pickling.code.PackageCode("x"))
    assert isinstance(pickling.load(io.BytesIO(code)), pickling.code.PackageCode)
    with pytest.raises(pickle.UnpicklingError):
        pickling.load_plain(io.BytesIO(code))


RICH = """\
import units

protocol NamedProtocol:
    name: str

mixin GreetingMixin for NamedProtocol:
    greeting: str = "hello " + name

schema Base:
    name: str
    labels: {str:str} = {}

    check:
        len(name) > 0, "a name"

schema App(Base):
    mixin [GreetingMixin]
    replicas: int = 1
    ports?: [int]
    limits: {str:int} = {cpu = 1, memory = 2}
    [key: str]: any

    check:
        replicas >= 0

@deprecated(version="1.0", reason="old")
schema Old:
    a: int = 1

schema Unused:
    b: str = "never read"

rule Positive:
    1 > 0

double = lambda x: int, y: int = 2 -> int {
    x * y
}

constants = {a = 1, b = "x", c = [1, 2], d = {e = True}}
app = App {name = "web", extra = "x"}
size = units.to_Ki(2048)
twice = double(21)
Positive()
"""


def test_every_global_an_entry_names_is_admitted_and_no_other_is(tmp_path: Path) -> None:
    """The reader admits exactly what the writer emits: the classes named by the
    pickles of an entry with every kind of compiled object (schemas read and unread,
    mixins, protocols, rules, index signatures, decorators, lambdas with typed
    parameters, constant configs) are :data:`pickling.ADMITTED`, all of it."""
    (tmp_path / "main.k").write_text(RICH)
    cache = tmp_path / "cache"
    ran = kcl(tmp_path, cache)
    assert ran.returncode == 0 and "twice: 42" in ran.stdout, ran.stderr
    named: set[tuple[str, str]] = set()

    class Recorder(pickling.Unpickler):
        def find_class(self, module: str, name: str) -> object:
            named.add((module, name))
            return super().find_class(module, name)  # (raises for what is not admitted)

    (entry,) = entries(cache)
    with entry.open("rb") as handle:
        Recorder(handle, frozenset()).load()
        blobs = Recorder(handle, frozenset()).load()
    assert named == set()  # manifest and table: plain data
    for _, blob in blobs.values():
        Recorder(io.BytesIO(blob)).load()
    assert named == pickling.ADMITTED
    assert ("kclpy.compile.code", "SchemaHeader") in named  # (Unused)
    assert ("kclpy.compile.code", "NoCodeSource") not in named


def test_the_writer_refuses_what_the_reader_would_not_load() -> None:
    for value in (pickling.code.NoCodeSource, complex(1, 2), os.system, Path("x")):
        with pytest.raises(pickle.PicklingError):
            pickling.dumps(value)


# --------------------------------------------------------------------------- kcl clean


@as_root
def test_clean_leaves_a_cache_folder_another_user_owns(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    plant(project, cache)
    os.chown(cache, NOBODY, NOBODY)
    environment = dict(os.environ, KCLPY_CACHE_DIR=str(cache))
    environment.pop("KCLPY_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "clean", "-y"],
        cwd=tmp_path, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1 and f"not removing {cache}" in done.stderr
    assert "E9001" in done.stderr and "Traceback" not in done.stderr
    assert entries(cache)
    os.chown(cache, os.geteuid(), os.getegid())
    again = subprocess.run(
        [sys.executable, "-m", "kclpy", "clean", "-y"],
        cwd=tmp_path, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert again.returncode == 0 and not cache.exists()


def test_clean_leaves_a_linked_cache_folder_and_its_target(project: Path, tmp_path: Path) -> None:
    """A cache folder that is a symbolic link is neither renamed aside nor emptied."""
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("mine\n")
    link = tmp_path / "cache"
    link.symlink_to(target, target_is_directory=True)
    environment = dict(os.environ, KCLPY_CACHE_DIR=str(link))
    environment.pop("KCLPY_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "clean", "-y"],
        cwd=tmp_path, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1 and "symbolic link" in done.stderr, done.stderr
    assert link.is_symlink() and (target / "keep.txt").read_text() == "mine\n"
    assert not list(tmp_path.glob("cache.removing-*"))


def test_clean_leaves_a_folder_the_cache_did_not_make(tmp_path: Path) -> None:
    """KCLPY_CACHE_DIR naming a folder of the user's (a typo, a project): kcl clean -y
    refuses it whole, even when a run has added its programs/ folder there."""
    folder = tmp_path / "work"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "main.k").write_text("a = 1\n")
    (folder / "notes.txt").write_text("mine\n")
    (folder / "programs").mkdir()  # as a run with this cache folder makes it
    (folder / "programs" / "entry.bin").write_bytes(b"")
    environment = dict(os.environ, KCLPY_CACHE_DIR=str(folder))
    environment.pop("KCLPY_NO_CACHE", None)
    done = subprocess.run(
        [sys.executable, "-m", "kclpy", "clean", "-y"],
        cwd=tmp_path, env=environment, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1 and "which the cache does not write" in done.stderr, done.stderr
    assert "'notes.txt'" in done.stderr and "Traceback" not in done.stderr
    assert (folder / "notes.txt").read_text() == "mine\n"
    assert (folder / "src" / "main.k").is_file() and entries(folder)
    assert not list(tmp_path.glob("work.removing-*"))


def test_clean_tolerates_files_appearing_while_it_removes(tmp_path: Path) -> None:
    """kcl clean renames the cache aside first: a writer then starts a new cache."""
    from kclpy.cli.misc import _remove_cache

    cache = tmp_path / "cache"
    (cache / "programs").mkdir(parents=True)
    for index in range(50):
        (cache / "programs" / f"e{index}").write_text("x")
    _remove_cache(str(cache))
    assert not cache.exists() and not list(tmp_path.glob("cache.removing-*"))
    _remove_cache(str(cache))  # already gone: nothing to do


@pytest.mark.parametrize(
    "name",
    ["../outside.bin", "sub/" + "0" * 60 + ".bin", "..", "0" * 64 + ".pkl", "0" * 63 + "/.bin"],
)
def test_an_entry_name_that_is_not_a_digest_is_neither_written_nor_read(
    tmp_path: Path, name: str
) -> None:
    # the one gate of every entry's write and read: a name that could leave the folder
    # (a separator, '..') or that the cache does not write is refused before any file call
    entries = tmp_path / "entries"
    entries.mkdir()
    (entries / "sub").mkdir()
    folder = os.open(entries, os.O_RDONLY)
    try:
        written = cache_module.replace_entry(folder, name, lambda handle: handle.write(b"x"))
        assert written is False
        assert cache_module.open_entry(folder, name, name) is None
    finally:
        os.close(folder)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["entries", "sub"]
    good = "ab" * 32 + ".bin"
    folder = os.open(entries, os.O_RDONLY)
    try:
        assert cache_module.replace_entry(folder, good, lambda handle: handle.write(b"x"))
        opened = cache_module.open_entry(folder, good, good)
        assert opened is not None
        opened.close()
    finally:
        os.close(folder)
