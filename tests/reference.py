"""Test oracle: run a KCL program through the reference KCL (PyPI ``kcl-lib``).

Self-contained so the test suite runs from a clean clone: the reference is
called by a small script embedded here, always in a subprocess (the native
library can crash the interpreter) and with a timeout.

    from reference import reference_available, run_reference

    if reference_available():
        result = run_reference("a = 1\\n")            # -> RefResult(0, "a: 1\\n", "")
        result = run_reference(files=["main.k"], args=["-D", "env=prod"], cwd=folder)

``run_reference`` behaves like ``kcl run``: stdout is the program's ``print``
output and then the YAML result plus a newline (exit status 0); on a KCL
error, stderr holds the diagnostic without colours and the exit status is 1.
``args`` takes `kcl run` options: ``-D name=value``, ``-E pkg=path``,
``-S selector``, ``-O override``, ``-n``, ``-k``, ``-H``, ``-r`` and
``--format yaml|json``.  The interpreter used is ``$KCL_REF_PYTHON`` or the
running one.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 60.0
TIMEOUT_RETURNCODE = -1

_ORACLE = r"""
import json
import re
import sys

import kcl_lib.api as api

request = json.loads(sys.argv[1])
args = api.ExecProgramArgs()
args.k_filename_list.extend(request["files"])
for name, value in request["options"]:
    args.args.append(api.Argument(name=name, value=value))
for name, path in request["externals"]:
    args.external_pkgs.append(api.ExternalPkg(pkg_name=name, pkg_path=path))
args.path_selector.extend(request["selectors"])
args.overrides.extend(request["overrides"])
for flag in ("sort_keys", "disable_none", "show_hidden", "strict_range_check"):
    setattr(args, flag, request[flag])


def fail(message):
    message = re.sub(r"\x1b\[[0-9;]*m", "", message).lstrip()
    if not message.startswith(("error[", "warning[")):
        message = "error[E3M38]: " + message
    sys.stderr.write(message if message.endswith("\n") else message + "\n")
    sys.exit(1)


try:
    result = api.API(plugin_agent=0).exec_program(args)
except Exception as error:
    fail(str(error))
sys.stdout.write(result.log_message)
if result.err_message:
    sys.stdout.flush()
    fail(result.err_message)
text = result.json_result if request["format"] == "json" else result.yaml_result
if text:
    sys.stdout.write(text + "\n")
"""

_FLAGS = {
    "-k": "sort_keys",
    "--sort_keys": "sort_keys",
    "-n": "disable_none",
    "--disable_none": "disable_none",
    "-H": "show_hidden",
    "--show_hidden": "show_hidden",
    "-r": "strict_range_check",
    "--strict_range_check": "strict_range_check",
}
_NAME_CONSTANTS = {"True": "true", "False": "false", "None": "null", "Undefined": "null"}


@dataclass(frozen=True)
class RefResult:
    """What the reference printed and its exit status."""

    returncode: int
    stdout: str
    stderr: str
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def documents(self) -> list[Any]:
        """The YAML documents of stdout (needs PyYAML)."""
        import yaml

        return [doc for doc in yaml.safe_load_all(self.stdout) if doc is not None]


def reference_python() -> str:
    """The interpreter that runs the reference: `$KCL_REF_PYTHON` or this one."""
    return os.environ.get("KCL_REF_PYTHON") or sys.executable


@functools.lru_cache(maxsize=1)
def reference_available() -> bool:
    """True when the reference interpreter can import ``kcl_lib``."""
    try:
        proc = subprocess.run(
            [reference_python(), "-c", "import kcl_lib.api"],
            capture_output=True,
            timeout=DEFAULT_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


class ReferenceFailed(RuntimeError):
    """The reference script exited non-zero, timed out or printed no JSON."""


def call_reference(
    script: str, payload: Any, timeout: float = DEFAULT_TIMEOUT * 5, cwd: str | Path | None = None
) -> Any:
    """Run ``script`` (Python that imports ``kcl_lib``) in the reference interpreter,
    in a subprocess: ``payload`` goes to its stdin as JSON and the JSON it writes to
    stdout comes back. The one way tests ask the reference anything besides
    ``kcl run`` (parse, format, lint, doc, ... verdicts)."""
    try:
        completed = subprocess.run(
            [reference_python(), "-c", script],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        raise ReferenceFailed(f"the reference did not answer within {timeout:g}s") from None
    if completed.returncode != 0:
        raise ReferenceFailed(completed.stderr[-2000:] or f"exit status {completed.returncode}")
    try:
        return json.loads(completed.stdout)
    except ValueError:
        raise ReferenceFailed(f"no JSON from the reference: {completed.stdout[-500:]!r}") from None


def call_reference_lines(
    script: str, requests: Sequence[Any], timeout: float = DEFAULT_TIMEOUT
) -> list[dict[str, Any]]:
    """Run many requests through ``script`` in one reference subprocess: each request
    goes to its stdin as a JSON line and the script answers each with a JSON line, in
    order. A request that crashes or hangs the reference is answered
    ``{"crash": <the end of stderr>}`` and the subprocess restarts after it, so one bad
    program costs one answer, not the batch."""
    answers: list[dict[str, Any]] = []
    while len(answers) < len(requests):
        pending = requests[len(answers) :]
        lines = "".join(json.dumps(request) + "\n" for request in pending)
        try:
            completed = subprocess.run(
                [reference_python(), "-c", script],
                input=lines,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
            output, errors = completed.stdout, completed.stderr
        except subprocess.TimeoutExpired as expired:  # the next request hangs the reference
            output, errors = _text(expired.stdout), f"timed out after {timeout:g}s"
        answers.extend(json.loads(line) for line in output.splitlines()[: len(pending)])
        if len(answers) < len(requests):  # the next request crashed the reference
            answers.append({"crash": errors[-500:] or "no answer"})
    return answers


def _text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def option_json(value: str) -> str:
    """A ``-D`` value as the JSON text handed to the reference, as `kcl run` does.

    JSON values pass through (numbers in exponent form become strings),
    ``True``/``False``/``None`` map to JSON constants, anything else is a string.
    """
    try:
        parsed = json.loads(value, parse_constant=_reject_constant)
    except ValueError:
        stripped = value.strip()
        return _NAME_CONSTANTS.get(stripped) or json.dumps(value, ensure_ascii=False)
    if isinstance(parsed, int | float) and not isinstance(parsed, bool) and "e" in value.lower():
        return json.dumps(value, ensure_ascii=False)
    return value


def _pair(spec: str, option: str) -> tuple[str, str]:
    name, sep, value = spec.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise ValueError(f"{option} expects name=value, got {spec!r}")
    return name, value


def build_request(files: Sequence[str], args: Sequence[str]) -> dict[str, Any]:
    """Turn `kcl run`-style ARGS into the embedded script's request."""
    request: dict[str, Any] = {
        "files": list(files),
        "options": [],
        "externals": [],
        "selectors": [],
        "overrides": [],
        "format": "yaml",
        **{flag: False for flag in set(_FLAGS.values())},
    }
    items = iter(args)
    for arg in items:
        if arg in _FLAGS:
            request[_FLAGS[arg]] = True
            continue
        if arg not in ("-D", "-E", "-S", "-O", "--format"):
            if arg.startswith("-"):
                raise ValueError(f"unsupported kcl run option {arg!r}")
            request["files"].append(arg)
            continue
        value = next(items, None)
        if value is None:
            raise ValueError(f"{arg} needs a value")
        if arg == "-D":
            name, text = _pair(value, arg)
            request["options"].append([name, option_json(text)])
        elif arg == "-E":
            request["externals"].append(list(_pair(value, arg)))
        elif arg == "-S":
            request["selectors"].append(value)
        elif arg == "-O":
            request["overrides"].append(value)
        else:
            request["format"] = value
    return request


def run_reference(
    code: str | None = None,
    files: Sequence[str] = (),
    args: Sequence[str] = (),
    cwd: str | Path | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> RefResult:
    """Run ``kcl run [main.k] FILES ARGS`` on the reference in a subprocess.

    CODE, when given, is written to ``main.k`` (the first entry) in CWD, or in
    a fresh temporary folder used as CWD; an existing ``main.k`` in CWD is an
    error.  FILES are relative to CWD (default: the current folder).
    """
    with tempfile.TemporaryDirectory(prefix="kclref-") as scratch:
        folder = Path(cwd) if cwd is not None else Path(scratch)
        entries = list(files)
        main = folder / "main.k"
        if code is not None:
            if main.exists():
                raise FileExistsError(f"{main} exists; pass the program as a file instead")
            main.write_text(code, encoding="utf-8")
            entries.insert(0, "main.k")
        try:
            return _execute(build_request(entries, args), folder, timeout)
        finally:
            if code is not None:
                main.unlink(missing_ok=True)


def _execute(request: dict[str, Any], cwd: Path, timeout: float) -> RefResult:
    cmd = [reference_python(), "-c", _ORACLE, json.dumps(request)]
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        out = (expired.stdout or b"").decode("utf-8", "replace")
        return RefResult(
            TIMEOUT_RETURNCODE, out, f"reference timed out after {timeout:g}s\n", timed_out=True
        )
    return RefResult(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
