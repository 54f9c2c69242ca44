"""Rebuild the git-ignored ``.corpus/`` folder from git directories of upstream repos.

Takes bare (or normal) git directories of kcl-lang/kcl, kcl-lang/modules and
kcl-lang/konfig and writes, under OUT (default ``.corpus``):

* ``kcl-conformance/``: the conformance corpus, built by the shared harness's
  ``build_corpus.py`` from the kcl-lang/kcl git directory;
* ``k8s/``: the ``k8s`` KCL package at version 1.31.x (the
  ``k8s/<version>`` folder of kcl-lang/modules), exported as-is;
* ``konfig/``: kcl-lang/konfig exported as a work tree, as-is;
* ``konfig-compat/konfig/``: the same with one compatibility patch so that its
  stacks run under the reference kcl-lib 0.13.2 (see ``KONFIG_PATCH``);
* ``bench/``: the synthetic benchmark workloads (``generate.py``);
* ``kcl-vet/``: the ``kcl vet`` test data of kcl-lang/kcl (``crates/tools/src/vet/test_datas``),
  exported as-is for ``tests/tools/test_vet_upstream.py``;
* ``kcl-doc/``: the ``kcl doc generate`` test data of kcl-lang/kcl-go
  (``pkg/tools/gen/testdata``: ``doc/`` with its Markdown goldens, ``openapi/``) and the
  OpenAPI golden of ``gendoc``'s own test (``openapi-expect/``, the JSON text of
  ``genopenapi_test.go``'s ``TestExportOpenAPIV3Spec``) for ``tests/tools/test_doc_upstream.py``;
* ``kcl-fmt/``: the ``kcl fmt`` test data of kcl-lang/kcl (``crates/tools/src/format/test_data``)
  and ``modules/``: every ``.k`` file of kcl-lang/modules (and ``examples/``,
  ``kusionstack-konfig/``: those of kcl-lang/examples and KusionStack/konfig when they
  are mirrored), for
  ``tests/tools/test_format_corpus.py`` (``tests/tools/format_corpus.py`` caches the
  reference's output for them);
* ``kcl-openapi/``: the ``kcl import -m openapi`` test data of kcl-lang/kcl-openapi
  (``integration/``: ``pkg/swagger/generator/testdata/integration``; ``examples/``:
  ``examples/swagger``; each case an input ``.yaml`` beside the ``models/`` the
  reference made) and ``kcl-jsonschema/``: that of ``kcl import -m jsonschema``
  (kcl-lang/kcl-go's ``pkg/tools/gen/testdata/jsonschema``: ``input.json`` beside
  ``expect.k``), for ``tests/tools/importer/test_import_upstream.py``;
* ``MANIFEST.json``: the commits and versions used.

Everything here is third-party code (except ``bench/``): it stays out of
version control.  Re-running replaces these folders (and only these).

    python benchmarks/prepare_corpus.py [--kcl-git DIR] [--modules-git DIR]
        [--konfig-git DIR] [--kcl-go-git DIR] [--kcl-openapi-git DIR] [--out .corpus]
        [--ref-python PY] [--check]

``--check`` runs the reference on the k8s models and on every konfig stack.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

# git directories of the mirrored repositories: $KCLPY_MIRRORS, else ../.mirror beside the repo
MIRRORS = Path(os.environ.get("KCLPY_MIRRORS") or ROOT.parent / ".mirror")
DEFAULT_KCL_GIT = MIRRORS / "kcl-lang+kcl" / "repo"
DEFAULT_MODULES_GIT = MIRRORS / "kcl-lang+modules" / "repo"
DEFAULT_KONFIG_GIT = MIRRORS / "kcl-lang+konfig" / "repo"
DEFAULT_KCL_GO_GIT = MIRRORS / "kcl-lang+kcl-go" / "repo"
DEFAULT_KCL_OPENAPI_GIT = MIRRORS / "kcl-lang+kcl-openapi" / "repo"
DEFAULT_BUILD_CORPUS = ROOT.parent / "shared" / "conformance" / "build_corpus.py"
VET_DATA = "crates/tools/src/vet/test_datas"
DOC_DATA = "pkg/tools/gen"
# TestExportOpenAPIV3Spec: the package it exports, the schema it checks, its JSON text
OPENAPI_TEST = re.compile(
    r'filepath\.Join\(cwd, "testdata", "openapi", "(\w+)"\).*?'
    r'Schemas\["([\w.]+)"\].*?expect := `([^`]*)`',
    re.S,
)
FMT_DATA = "crates/tools/src/format/test_data"
# kcl import's test data: (git directory option, folder in the repository, where in OUT)
IMPORT_DATA = (
    ("kcl_openapi_git", "pkg/swagger/generator/testdata/integration", "kcl-openapi/integration"),
    ("kcl_openapi_git", "examples/swagger", "kcl-openapi/examples"),
    ("kcl_go_git", "pkg/tools/gen/testdata/jsonschema", "kcl-jsonschema"),
)
FMT_EXTRA = {"examples": "kcl-lang+examples", "kusionstack-konfig": "KusionStack+konfig"}

# konfig reads `metadata.__META_APP_NAME` (and three more `__META_*` names) of
# module models.kube.metadata from other modules; kcl-lib 0.13.2 rejects that
# ("cannot reference private member").  The compat copy renames them.
KONFIG_PATCH = ("__META_", "META_")


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True
    ).stdout


def export_tree(git_dir: Path, treeish: str, dest: Path) -> None:
    """Write the files of TREEISH (``rev`` or ``rev:folder``) into DEST."""
    data = git(git_dir, "archive", "--format=tar", treeish)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(dest, filter="data")


def export_kcl_files(git_dir: Path, treeish: str, dest: Path) -> int:
    """Write the ``.k`` files of TREEISH into DEST (a mirror may lack other large
    blobs, so ``git archive`` of the whole tree can fail); returns how many."""
    listing = git(git_dir, "ls-tree", "-r", "-z", treeish)
    wanted: list[tuple[str, str]] = []
    for record in listing.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        meta, path = record.split("\t", 1)
        mode, kind, sha = meta.split()
        if kind == "blob" and mode != "120000" and path.endswith(".k"):
            wanted.append((sha, path))
    batch = "".join(f"{sha}\n" for sha, _ in wanted).encode()
    data = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input=batch,
        check=True,
        capture_output=True,
    ).stdout
    offset = 0
    written = 0
    for _, path in wanted:
        newline = data.index(b"\n", offset)
        header = data[offset:newline].split()
        offset = newline + 1
        if header[1] == b"missing":
            continue
        size = int(header[2])
        target = (dest / path).resolve()
        if dest.resolve() not in target.parents:  # a path leaving the folder
            offset += size + 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data[offset : offset + size])
        offset += size + 1
        written += 1
    return written


def fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    return path


def export_doc_data(git_dir: Path, rev: str, dest: Path) -> list[str]:
    """``kcl-doc/``: gendoc's test packages and goldens; the OpenAPI goldens' names."""
    export_tree(git_dir, f"{rev}:{DOC_DATA}/testdata/doc", dest / "doc")
    export_tree(git_dir, f"{rev}:{DOC_DATA}/testdata/openapi", dest / "openapi")
    test = git(git_dir, "show", f"{rev}:{DOC_DATA}/genopenapi_test.go").decode()
    expects = dest / "openapi-expect"
    expects.mkdir()
    names = []
    for package, schema, text in OPENAPI_TEST.findall(test):
        name = f"{package}/{schema}.json"
        (expects / package).mkdir(exist_ok=True)
        (expects / name).write_text(text, encoding="utf-8")
        names.append(name)
    return names


def find_k8s_folder(git_dir: Path, rev: str, version: str) -> str:
    """The modules folder of the k8s package whose kcl.mod version is VERSION.x."""
    names = git(git_dir, "ls-tree", "-d", "--name-only", f"{rev}:k8s").decode().split()
    for name in sorted(names):
        try:
            text = git(git_dir, "show", f"{rev}:k8s/{name}/kcl.mod").decode("utf-8")
        except subprocess.CalledProcessError:
            continue
        package = tomllib.loads(text).get("package", {})
        if package.get("name") == "k8s" and str(package.get("version", "")).startswith(
            version + "."
        ):
            return f"k8s/{name}"
    raise SystemExit(f"no k8s {version}.x package under k8s/ in {git_dir}")


def patch_konfig(root: Path) -> int:
    """Apply KONFIG_PATCH to every .k file under ROOT; return the files changed."""
    old, new = KONFIG_PATCH
    changed = 0
    for path in sorted(root.rglob("*.k")):
        text = path.read_text(encoding="utf-8")
        if old in text:
            path.write_text(text.replace(old, new), encoding="utf-8")
            changed += 1
    (root / "KCLPY_PATCH.md").write_text(
        "Patched copy of kcl-lang/konfig made by kclpy's benchmarks/prepare_corpus.py:\n"
        f"`{old}` renamed to `{new}` in {changed} .k files, because kcl-lib 0.13.2\n"
        "rejects reading `metadata.__META_*` from another module (private member).\n",
        encoding="utf-8",
    )
    return changed


def stack_argv(stack: Path, konfig_root: Path, k8s: Path) -> list[str]:
    """`kcl run` arguments for a konfig stack: its kcl.mod profile entries plus -E."""
    with open(stack / "kcl.mod", "rb") as handle:
        entries = tomllib.load(handle).get("profile", {}).get("entries", ["main.k"])
    return [*entries, "-E", f"konfig={konfig_root}", "-E", f"k8s={k8s}"]


def konfig_stacks(root: Path) -> list[Path]:
    return sorted(
        p.parent for p in (root / "examples").rglob("main.k") if (p.parent / "kcl.mod").is_file()
    )


def check(out: Path, ref_python: str) -> bool:
    """Run the reference on the k8s workload and every konfig stack (both copies).

    Failures of the unpatched ``konfig/`` copy are expected (see KONFIG_PATCH)
    and reported without failing the check.
    """
    ref = [ref_python, str(HERE / "ref_kcl.py"), "run"]
    k8s = out / "k8s"
    runs = [("k8s_models", HERE / "workloads" / "k8s_models", ["main.k", "-E", f"k8s={k8s}"])]
    for copy in ("konfig", "konfig-compat/konfig"):
        root = out / copy
        runs += [
            (f"{copy}:{s.relative_to(root)}", s, stack_argv(s, root, k8s))
            for s in konfig_stacks(root)
        ]
    all_ok = True
    for name, cwd, argv in runs:
        proc = subprocess.run(ref + argv, cwd=cwd, capture_output=True, text=True)
        if proc.returncode == 0:
            resources = len(re.findall(r"^(?:  )?kind: ", proc.stdout, re.MULTILINE))
            print(f"ok    {name}: {resources} resources")
            continue
        expected = name.startswith("konfig:")
        plain = re.sub(r"\x1b\[[0-9;]*m", "", proc.stderr)
        lines = [ln.strip() for ln in plain.splitlines() if "error" in ln or "cannot" in ln]
        print(
            f"{'fail' if expected else 'FAIL'}  {name}: {' | '.join(lines[:2])[:200]}"
            f"{' (expected)' if expected else ''}"
        )
        all_ok = all_ok and expected
    return all_ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kcl-git", type=Path, default=DEFAULT_KCL_GIT)
    parser.add_argument("--modules-git", type=Path, default=DEFAULT_MODULES_GIT)
    parser.add_argument("--konfig-git", type=Path, default=DEFAULT_KONFIG_GIT)
    parser.add_argument("--kcl-go-git", type=Path, default=DEFAULT_KCL_GO_GIT)
    parser.add_argument("--kcl-openapi-git", type=Path, default=DEFAULT_KCL_OPENAPI_GIT)
    parser.add_argument("--rev", default="HEAD", help="revision of every repo (HEAD)")
    parser.add_argument("--k8s-version", default="1.31", help="k8s package version (1.31)")
    parser.add_argument("--out", type=Path, default=ROOT / ".corpus")
    parser.add_argument(
        "--build-corpus",
        type=Path,
        default=DEFAULT_BUILD_CORPUS,
        help="the shared harness's build_corpus.py",
    )
    parser.add_argument(
        "--ref-python",
        default=os.environ.get("KCL_REF_PYTHON", sys.executable),
        help="python with kcl_lib (goldens of run-only cases, --check)",
    )
    parser.add_argument("--sizes", default="1k,10k,100k", help="synthetic workload sizes")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated parts to skip: conformance,k8s,konfig,bench,vet,doc,fmt,import",
    )
    parser.add_argument("--check", action="store_true", help="run the reference afterwards")
    ns = parser.parse_args(argv)
    skip = set(filter(None, ns.skip.split(",")))
    if os.sep in ns.ref_python:  # the conformance builder runs it from other folders
        ns.ref_python = os.path.abspath(ns.ref_python)
    out = ns.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, object] = {}

    if "conformance" not in skip:
        cmd = [
            sys.executable,
            str(ns.build_corpus),
            "--git-dir",
            str(ns.kcl_git),
            "--rev",
            ns.rev,
            str(fresh(out / "kcl-conformance")),
            "--ref-python",
            ns.ref_python,
        ]
        subprocess.run(cmd, check=True)
        manifest["kcl"] = git(ns.kcl_git, "rev-parse", ns.rev).decode().strip()
    if "k8s" not in skip:
        folder = find_k8s_folder(ns.modules_git, ns.rev, ns.k8s_version)
        export_tree(ns.modules_git, f"{ns.rev}:{folder}", fresh(out / "k8s"))
        manifest["modules"] = git(ns.modules_git, "rev-parse", ns.rev).decode().strip()
        manifest["k8s_folder"] = folder
        print(f"k8s: {folder} -> {out / 'k8s'}")
    if "konfig" not in skip:
        export_tree(ns.konfig_git, ns.rev, fresh(out / "konfig"))
        export_tree(ns.konfig_git, ns.rev, fresh(out / "konfig-compat") / "konfig")
        changed = patch_konfig(out / "konfig-compat" / "konfig")
        manifest["konfig"] = git(ns.konfig_git, "rev-parse", ns.rev).decode().strip()
        manifest["konfig_compat_patch"] = {"replace": list(KONFIG_PATCH), "files": changed}
        print(
            f"konfig: {out / 'konfig'}, patched copy in {out / 'konfig-compat'} ({changed} files)"
        )
    if "bench" not in skip:
        bench = fresh(out / "bench")
        for family in generate.FAMILIES:
            for size in generate.parse_sizes(ns.sizes):
                generate.generate(bench, family, size)
        manifest["bench_sizes"] = generate.parse_sizes(ns.sizes)
        print(f"bench: {bench}")
    if "vet" not in skip:
        export_tree(ns.kcl_git, f"{ns.rev}:{VET_DATA}", fresh(out / "kcl-vet"))
        manifest["kcl"] = git(ns.kcl_git, "rev-parse", ns.rev).decode().strip()
        print(f"vet: {VET_DATA} -> {out / 'kcl-vet'}")
    if "doc" not in skip:
        names = export_doc_data(ns.kcl_go_git, ns.rev, fresh(out / "kcl-doc"))
        manifest["kcl-go"] = git(ns.kcl_go_git, "rev-parse", ns.rev).decode().strip()
        print(f"doc: {DOC_DATA}/testdata/doc -> {out / 'kcl-doc'} (+ {len(names)} OpenAPI goldens)")
    if "fmt" not in skip:
        export_tree(ns.kcl_git, f"{ns.rev}:{FMT_DATA}", fresh(out / "kcl-fmt"))
        manifest["kcl"] = git(ns.kcl_git, "rev-parse", ns.rev).decode().strip()
        count = export_kcl_files(ns.modules_git, ns.rev, fresh(out / "modules"))
        manifest["modules"] = git(ns.modules_git, "rev-parse", ns.rev).decode().strip()
        print(f"fmt: {FMT_DATA} -> {out / 'kcl-fmt'}; {count} .k files -> {out / 'modules'}")
        for folder, name in FMT_EXTRA.items():  # more real code, where it is mirrored
            if (MIRRORS / name / "repo").is_dir():
                count = export_kcl_files(MIRRORS / name / "repo", ns.rev, fresh(out / folder))
                print(f"fmt: {count} .k files of {name} -> {out / folder}")
    if "import" not in skip:
        fresh(out / "kcl-openapi")
        for option, folder, place in IMPORT_DATA:
            git_dir = getattr(ns, option)
            export_tree(git_dir, f"{ns.rev}:{folder}", fresh(out / place))
            manifest[git_dir.parent.name.split("+")[1]] = (
                git(git_dir, "rev-parse", ns.rev).decode().strip()
            )
            print(f"import: {folder} -> {out / place}")
    previous = out / "MANIFEST.json"
    if previous.is_file():
        manifest = {**json.loads(previous.read_text(encoding="utf-8")), **manifest}
    previous.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    if ns.check:
        return 0 if check(out, ns.ref_python) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
