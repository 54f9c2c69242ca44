"""A small monorepo written by the tests: shared model packages and stacks of every kind.

models/                 kcl.mod "models"; packages base (imported by all),
                        extra (imported by stack b only), unused
stacks/a/               kcl.mod [profile] entries (base)
stacks/b/               kcl.mod [profile] entries (base + extra)
stacks/c/               kcl.yaml settings: files and an option
stacks/d/               a plain main.k (no packages)
broken/e/               main.k with a type error (only when ``broken=True``)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

FILES = {
    "models/kcl.mod": '[package]\nname = "models"\nversion = "0.1.0"\n',
    "models/base/base.k": (
        "schema Meta:\n"
        "    name: str\n"
        '    owner: str = "platform"\n'
        "\n"
        "    check:\n"
        "        len(name) > 0\n"
    ),
    "models/extra/extra.k": "import models.base\n\nschema Extra(base.Meta):\n    size: int = 1\n",
    "models/unused/unused.k": "value = 1\n",
    "stacks/a/kcl.mod": (
        '[package]\nname = "a"\n\n[dependencies]\nmodels = { path = "../../models" }\n\n'
        '[profile]\nentries = ["main.k"]\n'
    ),
    "stacks/a/main.k": 'import models.base\n\nmeta = base.Meta {name = "a"}\n',
    "stacks/b/kcl.mod": (
        '[package]\nname = "b"\n\n[dependencies]\nmodels = { path = "../../models" }\n\n'
        '[profile]\nentries = ["main.k", "more.k"]\n'
    ),
    "stacks/b/main.k": 'import models.extra\n\nitem = extra.Extra {name = "b"}\n',
    "stacks/b/more.k": 'import models.base\n\nother = base.Meta {name = "b2"}\n',
    "stacks/c/kcl.yaml": (
        "kcl_cli_configs:\n  files:\n    - app.k\nkcl_options:\n  - key: env\n    value: prod\n"
    ),
    "stacks/c/app.k": 'env = option("env")\n',
    "stacks/d/main.k": "d = 4\n",
}
BROKEN = {"broken/e/main.k": 'e: int = "no"\n'}


def write_repo(root: Path, broken: bool = False) -> Path:
    files = dict(FILES, **(BROKEN if broken else {}))
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def git(root: Path, *arguments: str) -> str:
    completed = subprocess.run(
        ["git", *arguments], cwd=root, capture_output=True, text=True, check=True
    )
    return completed.stdout


def init_git(root: Path) -> None:
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "test@example.invalid")
    git(root, "config", "user.name", "test")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
