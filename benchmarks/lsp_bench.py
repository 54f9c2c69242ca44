"""Language server benchmark: drives ``kcl lsp`` over stdio as an editor would.

Writes a project of N lines (a schema-heavy ``main.k`` that imports a small
``models`` package) into a temporary folder, starts the server, opens the file
and measures:

* **burst**: 100 keystrokes typed at the end of the file, one every
  ``--interval`` ms, each an incremental ``didChange``; the time from the last
  keystroke to the diagnostics published for the last version.
* **completion during typing**: a completion request sent right after the 20th
  keystroke of the burst; its latency.
* **completion**: on a settled document, ``--completions`` times: type
  ``svc0.`` on a new line and ask for completion at the dot; p50 and p95.
* **memory**: the server's peak resident set (VmHWM) at the end.
* **collector pauses** (``gc_*``, workspace and big-file runs): the cycle
  collector's pauses in the server, as it measures them (``kclpy/collectorPauses``):
  collections, full ones, the longest and the total in seconds.

With ``--big-mb N`` it measures a big file instead: a ``big.k`` of N MB (config
blocks written without the formatter's spacing) is opened and, once the server
is idle (its analysis and collections done: ``settle_s``), formatted through the
server (``textDocument/formatting``; the time against ``kcl fmt`` on the same
file, and whether the edits turn the text into ``kcl fmt``'s), closed and
deleted; the server's resident set (VmRSS) is read after each step (after the
close, once it is idle again), and its peak (VmHWM) at the end. It is also
formatted once ``IDLE_WAIT`` seconds after its first diagnostics, when the server's
idle housekeeping is due (``fmt_during_idle_s``: requests must not wait for it).

These are measurements, never test assertions::

    python benchmarks/lsp_bench.py --lines 2000 [--lines 20000]
        [--server "kcl lsp"] [--interval 20] [--timeout 120] [--json]
    python benchmarks/lsp_bench.py --big-mb 5 [--fmt "kcl fmt"]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

UNIT = '''schema Service{i}(models.Base):
    """Service number {i}."""
    replicas: int = 1
    labels: {{str:str}} = {{}}
    ports: [int] = [80]

svc{i} = Service{i} {{
    name = "svc{i}"
    replicas = {replicas}
    labels.app = "a{i}"
}}

'''
MODELS = '''schema Base:
    """The common base."""
    name: str
    enabled: bool = True
'''
TYPED = "probe = svc0.replicas + 1\n"


def project(folder: Path, lines: int) -> Path:
    """A ``main.k`` of about ``lines`` lines and its ``models`` package."""
    (folder / "models").mkdir()
    (folder / "models" / "base.k").write_text(MODELS, encoding="utf-8")
    (folder / "kcl.mod").write_text('[package]\nname = "bench"\n', encoding="utf-8")
    parts = ["import models\n\n"]
    count = 0
    index = 0
    while count < lines:
        unit = UNIT.format(i=index, replicas=index % 5 + 1)
        parts.append(unit)
        count += unit.count("\n")
        index += 1
    main = folder / "main.k"
    main.write_text("".join(parts), encoding="utf-8")
    return main


class Client:
    """A JSON-RPC client over the server's stdin/stdout (a reader thread)."""

    def __init__(self, command: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=open(os.environ.get("LSP_BENCH_STDERR", os.devnull), "ab"),  # noqa: SIM115
        )
        self.messages: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()
        self.next_id = 0
        self.seen: list[dict[str, Any]] = []  # every message ``wait`` looked at
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            body = stream.read(length)
            self.messages.put((time.perf_counter(), json.loads(body)))

    def send(self, message: dict[str, Any]) -> None:
        message["jsonrpc"] = "2.0"
        data = json.dumps(message).encode("utf-8")
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def wait(self, match: Any, timeout: float) -> tuple[float, dict[str, Any]] | None:
        """The first message for which ``match(message)`` holds (answering the
        server's own requests on the way), or None after ``timeout`` seconds."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return None
            try:
                stamp, message = self.messages.get(timeout=left)
            except queue.Empty:
                return None
            if "method" in message and "id" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
                continue
            self.seen.append(message)
            if match(message):
                return stamp, message

    def response(self, request_id: int, timeout: float) -> tuple[float, dict[str, Any]] | None:
        return self.wait(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    def diagnostics(self, uri: str, version: int, timeout: float) -> float | None:
        found = self.wait(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"].get("version") == version
            ),
            timeout,
        )
        return found[0] if found else None

    def collector_pauses(self, timeout: float) -> dict[str, Any]:
        """The server's cycle-collector pauses (``kclpy/collectorPauses``: count, full
        ones, longest, total), as ``gc_*`` figures; none from a server without it."""
        answered = self.response(self.request("kclpy/collectorPauses", None), timeout)
        result = answered[1].get("result") if answered is not None else None
        return {f"gc_{key}": value for key, value in (result or {}).items()}

    def peak_memory_mb(self) -> float:
        return self.memory_mb("VmHWM")

    def memory_mb(self, field: str = "VmRSS") -> float:
        """A memory figure of the server from ``/proc`` (VmRSS: now; VmHWM: peak)."""
        try:
            status = Path(f"/proc/{self.process.pid}/status").read_text()
        except OSError:
            return float("nan")
        for line in status.splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_seconds(self) -> float:
        """The server's CPU time so far (user and system), from ``/proc``."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settle(self, timeout: float, quiet: float = 4.0) -> float:
        """Wait until the server has used under 5% of a CPU for ``quiet`` seconds
        (longer than its 3 s wait before an idle collection: its background analysis
        and collections done); the seconds waited."""
        began = time.perf_counter()
        while time.perf_counter() - began < timeout:
            before = self.cpu_seconds()
            self.wait(lambda message: False, quiet)
            if self.cpu_seconds() - before < 0.05 * quiet:
                break
        return time.perf_counter() - began - quiet

    def close(self) -> None:
        try:
            shutdown = self.request("shutdown", None)
            self.response(shutdown, 5)
            self.notify("exit", None)
            self.process.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()


class Editor:
    """One open document and the cursor at its end."""

    def __init__(self, client: Client, path: Path) -> None:
        self.client = client
        self.uri = path.as_uri()
        self.text = path.read_text(encoding="utf-8")
        self.version = 1
        client.notify(
            "textDocument/didOpen",
            {
                "textDocument": {
                    "uri": self.uri,
                    "languageId": "kcl",
                    "version": 1,
                    "text": self.text,
                }
            },
        )

    def end(self) -> dict[str, int]:
        lines = self.text.split("\n")
        last = lines[-1]
        return {"line": len(lines) - 1, "character": len(last.encode("utf-16-le")) // 2}

    def type(self, chars: str) -> None:
        where = self.end()
        self.version += 1
        self.text += chars
        self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [{"range": {"start": where, "end": where}, "text": chars}],
            },
        )

    def complete(self) -> int:
        return self.client.request(
            "textDocument/completion",
            {"textDocument": {"uri": self.uri}, "position": self.end()},
        )


def measure(
    command: list[str], lines: int, interval: float, timeout: float, completions: int
) -> dict[str, Any]:
    figures: dict[str, Any] = {"lines": lines}
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        main = project(folder, lines)
        figures["lines"] = main.read_text(encoding="utf-8").count("\n")
        client = Client(command, folder)
        try:
            started = client.request(
                "initialize",
                {"processId": os.getpid(), "rootUri": folder.as_uri(), "capabilities": {}},
            )
            client.response(started, 30)
            client.notify("initialized", {})
            editor = Editor(client, main)
            opened = time.perf_counter()
            first = client.diagnostics(editor.uri, 1, timeout)
            figures["open_s"] = round(first - opened, 3) if first else None
            figures.update(burst(client, editor, interval, timeout))
            figures.update(completion_latency(client, editor, completions, timeout))
            figures["peak_memory_mb"] = round(client.peak_memory_mb(), 1)
        finally:
            client.close()
    return figures


def burst(client: Client, editor: Editor, interval: float, timeout: float) -> dict[str, Any]:
    """100 keystrokes; a completion after the 20th; final diagnostics' delay."""
    typed = (TYPED * 10)[:100]
    request = None
    asked = 0.0
    for index, char in enumerate(typed):
        editor.type(char)
        if index == 19:
            request = editor.complete()
            asked = time.perf_counter()
        time.sleep(interval / 1000)
    last = time.perf_counter()
    figures: dict[str, Any] = {}
    assert request is not None
    answered = client.response(request, timeout)
    figures["completion_during_typing_ms"] = (
        round((answered[0] - asked) * 1000) if answered else f">{timeout}s"
    )
    final = client.diagnostics(editor.uri, editor.version, timeout)
    figures["diagnostics_after_burst_ms"] = (
        round((final - last) * 1000) if final else f">{timeout}s"
    )
    return figures


def completion_latency(
    client: Client, editor: Editor, count: int, timeout: float
) -> dict[str, Any]:
    """Type ``svc0.`` on a new line and complete at the dot, ``count`` times."""
    if not editor.text.endswith("\n"):
        editor.type("\n")
    client.diagnostics(editor.uri, editor.version, timeout)
    samples = []
    for _ in range(count):
        editor.type("x = svc0.")
        asked = time.perf_counter()
        answered = client.response(editor.complete(), timeout)
        if answered is None:
            return {"completion_p95_ms": f">{timeout}s"}
        samples.append((answered[0] - asked) * 1000)
        result = answered[1].get("result") or {}
        items = result.get("items", result) if isinstance(result, dict) else result
        labels = {item["label"] for item in items or []}
        if "replicas" not in labels:
            samples[-1] = float("inf")  # a wrong answer counts as too slow
        editor.type("replicas\n")
        time.sleep(0.05)
    samples.sort()
    return {
        "completion_p50_ms": round(statistics.median(samples), 1),
        "completion_p95_ms": round(samples[max(0, int(len(samples) * 0.95) - 1)], 1),
    }


# --------------------------------------------------------------------------- a monorepo workspace

QUIET = 5.0  # seconds without a publication that count as "settled"


def workspace_files(kind: str, folder: Path, corpus: Path) -> tuple[Path, Path, Path, list[Path]]:
    """The workspace root, the package cache, the stack's ``main.k`` the editor opens,
    and every stack's ``main.k``: ``generated`` (tests/lsp/monorepo.py, 12 profile
    stacks and 8 kcl.yaml stacks) or ``konfig`` (kcl-lang/konfig from the corpus, its
    compatibility copy, with the k8s package in the cache)."""
    if kind == "generated":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lsp"))
        import monorepo

        repo = monorepo.build(folder, stacks=12, settings_stacks=8)
        return repo.root, repo.cache, repo.stacks[0], repo.stacks
    root = folder / "workspace"
    cache = folder / "cache"
    shutil.copytree(corpus / "konfig-compat" / "konfig", root / "konfig")
    shutil.copytree(corpus / "k8s", cache / "k8s_1.31.2")
    stacks = sorted(
        main for main in (root / "konfig" / "examples").rglob("main.k")
        if (main.parent / "kcl.mod").is_file()
    )  # fmt: skip
    return root, cache, root / "konfig/examples/appops/guestbook/prod/main.k", stacks


def snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(path): (path.stat().st_mtime_ns, path.read_bytes())
        for path in root.rglob("*")
        if path.is_file()
    }


def settle(client: Client, timeout: float) -> None:
    """Wait until no diagnostics are published for ``QUIET`` seconds."""
    began = time.perf_counter()
    while time.perf_counter() - began < timeout:
        count = len(client.seen)
        client.wait(lambda message: False, QUIET)
        fresh = client.seen[count:]
        if not any(m.get("method") == "textDocument/publishDiagnostics" for m in fresh):
            break


def latest_diagnostics(client: Client) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for message in client.seen:
        if message.get("method") == "textDocument/publishDiagnostics":
            found[message["params"]["uri"]] = message["params"]["diagnostics"]
    return found


def ask_workspace(client: Client, editor: Editor, timeout: float) -> dict[str, Any]:
    """Hover, references and completion at the stack's schema, workspace symbols: each
    answer's time and size, all sent at once."""
    lines = editor.text.split("\n")
    line = next(i for i, text in enumerate(lines) if "frontend.Server {" in text)
    at = {"line": line, "character": lines[line].index("frontend.Server") + len("frontend.")}
    where = {"textDocument": {"uri": editor.uri}, "position": at}
    asked = time.perf_counter()
    requests = {
        "hover": client.request("textDocument/hover", where),
        "references": client.request(
            "textDocument/references", {**where, "context": {"includeDeclaration": True}}
        ),
        "workspace_symbols": client.request("workspace/symbol", {"query": "Server"}),
        "completion": client.request(
            "textDocument/completion",
            {"textDocument": {"uri": editor.uri}, "position": {"line": line + 1, "character": 4}},
        ),
    }
    names = {request: name for name, request in requests.items()}
    answers: dict[str, tuple[float, dict[str, Any]]] = {}
    while len(answers) < len(names):
        answered = client.wait(lambda m: m.get("id") in names and "method" not in m, timeout)
        if answered is None:
            break
        answers[names[answered[1]["id"]]] = answered
    figures: dict[str, Any] = {}
    for name in requests:
        answered = answers.get(name)
        if answered is None:
            figures[name] = f">{timeout}s"
            continue
        result = answered[1].get("result")
        if name == "completion":
            items = (result or {}).get("items", []) if isinstance(result, dict) else result or []
            size: Any = (
                "schema attributes"
                if any(item["label"] == "mainContainer" for item in items)
                else f"{len(items)} items, no attribute"
            )
        elif name == "hover":
            size = "schema" if result and "schema Server" in str(result) else "none"
        else:
            size = len(result or [])
        figures[name] = f"{size} in {round((answered[0] - asked) * 1000)} ms"
    return figures


def measure_workspace(
    command: list[str], kind: str, timeout: float, corpus: Path
) -> dict[str, Any]:
    figures: dict[str, Any] = {"workspace": kind}
    with tempfile.TemporaryDirectory() as temp:
        root, cache, target, stacks = workspace_files(kind, Path(temp), corpus)
        figures["stacks"] = len(stacks)
        before = snapshot(root)
        environment = {**os.environ, "KCL_PKG_PATH": str(cache), "KPM_REG": "127.0.0.1:9"}
        client = Client(command, root, environment)
        try:
            capabilities = {
                "window": {"workDoneProgress": True},
                "workspace": {
                    "workspaceFolders": True,
                    "didChangeWatchedFiles": {"dynamicRegistration": True},
                },
            }
            started = client.request(
                "initialize",
                {
                    "processId": os.getpid(),
                    "rootUri": root.as_uri(),
                    "workspaceFolders": [{"uri": root.as_uri(), "name": "workspace"}],
                    "capabilities": capabilities,
                },
            )
            client.response(started, 30)
            client.notify("initialized", {})
            editor = Editor(client, target)
            opened = time.perf_counter()
            first = ask_workspace(client, editor, timeout)
            figures.update({f"first_{name}": value for name, value in first.items()})
            figures["open_to_first_answers_s"] = round(time.perf_counter() - opened, 2)
            figures["progress_reports"] = sum(
                1 for m in client.seen if m.get("method") == "$/progress"
            )
            settle(client, timeout)
            figures["settled_after_s"] = round(time.perf_counter() - opened - QUIET, 1)
            settled = ask_workspace(client, editor, timeout)
            figures.update({f"settled_{name}": value for name, value in settled.items()})
            for main in stacks:
                if main != target:
                    Editor(client, main)
            settle(client, timeout)
            published = latest_diagnostics(client)
            errors = [
                main for main in stacks
                if any(d.get("severity") == 1 for d in published.get(main.as_uri(), []))
            ]  # fmt: skip
            figures["stacks_with_errors"] = f"{len(errors)} of {len(stacks)}"
            if errors:
                sample = [
                    d["message"] for d in published[errors[0].as_uri()] if d.get("severity") == 1
                ]
                figures["first_error"] = sample[0][:90]
            figures.update(burst(client, editor, 20.0, timeout))
            figures.update(client.collector_pauses(timeout))
            figures["peak_memory_mb"] = round(client.peak_memory_mb(), 1)
        finally:
            client.close()
        after = snapshot(root)
        changed = [path for path in before if after.get(path) != before[path]]
        changed += [path for path in after if path not in before]
        figures["files_written"] = len(changed)
        if changed:
            figures["written"] = os.path.relpath(changed[0], root)
    return figures


BIG_UNIT = """app{i}=Service{{
    name="app{i}"
    replicas={replicas}
    labels={{"team":"t{i}","tier":"web"}}
    ports=[80,443]
}}
"""
BIG_HEAD = """schema Service:
    name: str
    replicas: int = 1
    labels: {str:str} = {}
    ports: [int] = []

"""


def big_file(folder: Path, megabytes: float) -> Path:
    """A ``big.k`` of about ``megabytes`` MB that ``kcl fmt`` changes on most lines."""
    parts = [BIG_HEAD]
    size = len(BIG_HEAD)
    index = 0
    while size < megabytes * 1_000_000:
        unit = BIG_UNIT.format(i=index, replicas=index % 5 + 1)
        parts.append(unit if index % 4 else unit.replace("=", " = ").replace(",", ", "))
        size += len(parts[-1])
        index += 1
    path = folder / "big.k"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    """LSP edits (line/character, ``\\n`` lines, ASCII text) applied to ``text``."""
    starts = [0]
    for line in text.split("\n")[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(where: dict[str, int]) -> int:
        if where["line"] >= len(starts):
            return len(text)
        return min(starts[where["line"]] + where["character"], len(text))

    ordered = sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True)
    parts = []
    end = len(text)
    for edit in ordered:
        parts.append(text[offset(edit["range"]["end"]) : end])
        parts.append(edit["newText"])
        end = offset(edit["range"]["start"])
    parts.append(text[:end])
    return "".join(reversed(parts))


IDLE_WAIT = 3.3  # seconds after the first diagnostics: the server's idle housekeeping is due


def measure_big(
    command: list[str], fmt: list[str], megabytes: float, timeout: float, format_it: bool = True
) -> dict[str, Any]:
    """Open, format, close and delete a big file; times and the server's memory."""
    figures: dict[str, Any] = {"megabytes": megabytes}
    with tempfile.TemporaryDirectory() as temp, tempfile.TemporaryDirectory() as other:
        folder = Path(temp)
        path = big_file(folder, megabytes)
        copy = Path(other) / "big.k"  # outside the server's workspace
        copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        began = time.perf_counter()
        subprocess.run([*fmt, str(copy)], capture_output=True, check=False, timeout=timeout)
        figures["kcl_fmt_s"] = round(time.perf_counter() - began, 2)
        expected = copy.read_text(encoding="utf-8")
        client = Client(command, folder)
        try:
            started = client.request(
                "initialize",
                {"processId": os.getpid(), "rootUri": folder.as_uri(), "capabilities": {}},
            )
            client.response(started, 30)
            client.notify("initialized", {})
            figures["rss_start_mb"] = round(client.memory_mb(), 1)
            editor = Editor(client, path)
            opened = time.perf_counter()
            analysed = client.diagnostics(editor.uri, 1, timeout)
            figures["open_s"] = round(analysed - opened, 2) if analysed else f">{timeout}s"
            figures["rss_open_mb"] = round(client.memory_mb(), 1)
            if format_it:  # once the server has had its 3 s of quiet: its idle housekeeping
                time.sleep(IDLE_WAIT)
                during = format_big(client, editor, expected, timeout)
                figures["fmt_during_idle_s"] = during.get("server_fmt_s")
            figures["settle_s"] = round(client.settle(timeout), 1)
            if format_it:
                figures.update(format_big(client, editor, expected, timeout))
            figures["rss_formatted_mb"] = round(client.memory_mb(), 1)
            client.notify("textDocument/didClose", {"textDocument": {"uri": editor.uri}})
            path.unlink()
            client.notify(
                "workspace/didChangeWatchedFiles",
                {"changes": [{"uri": editor.uri, "type": 3}]},
            )
            client.settle(timeout)  # the re-analysis and the idle collection (after 3 s)
            figures["rss_closed_mb"] = round(client.memory_mb(), 1)
            figures.update(client.collector_pauses(timeout))
            figures["peak_memory_mb"] = round(client.peak_memory_mb(), 1)
        finally:
            client.close()
    return figures


def format_big(client: Client, editor: Editor, expected: str, timeout: float) -> dict[str, Any]:
    """Format the open document through the server: the time, the edits' count and
    whether they give ``kcl fmt``'s text."""
    figures: dict[str, Any] = {}
    began = time.perf_counter()
    asked = client.request(
        "textDocument/formatting",
        {
            "textDocument": {"uri": editor.uri},
            "options": {"tabSize": 4, "insertSpaces": True},
        },
    )
    answered = client.response(asked, timeout)
    if answered is None:
        figures["server_fmt_s"] = f">{timeout}s"
    else:
        figures["server_fmt_s"] = round(answered[0] - began, 2)
        edits = answered[1].get("result") or []
        figures["edits"] = len(edits)
        figures["edits_match_kcl_fmt"] = apply_edits(editor.text, edits) == expected
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, action="append", help="file sizes (2000)")
    parser.add_argument("--server", default=f"{sys.executable} -m kclpy_lsp")
    parser.add_argument("--interval", type=float, default=20.0, help="ms between keystrokes")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds to wait at most")
    parser.add_argument("--completions", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--workspace",
        action="append",
        choices=["generated", "konfig"],
        help="a monorepo workspace instead of --lines: the generated one, or kcl-lang/konfig",
    )
    parser.add_argument(
        "--corpus", type=Path, default=Path(__file__).resolve().parents[1] / ".corpus"
    )
    parser.add_argument("--big-mb", type=float, help="measure one big file of this size")
    parser.add_argument("--no-format", action="store_true", help="big file: do not format it")
    parser.add_argument(
        "--fmt",
        default=str(Path(sys.executable).parent / "kcl") + " fmt",
        help="the formatter to compare with (kcl fmt next to this Python)",
    )
    args = parser.parse_args()
    if args.workspace:
        results = [
            measure_workspace(shlex.split(args.server), kind, args.timeout, args.corpus)
            for kind in args.workspace
        ]
        for figures in results:
            print(
                json.dumps(figures, indent=2)
                if args.json
                else "\n".join(f"{k}: {v}" for k, v in figures.items())
            )
        return 0
    if args.big_mb:
        server, fmt = shlex.split(args.server), shlex.split(args.fmt)
        results = [measure_big(server, fmt, args.big_mb, args.timeout, not args.no_format)]
    else:
        results = [
            measure(shlex.split(args.server), lines, args.interval, args.timeout, args.completions)
            for lines in args.lines or [2000]
        ]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for figures in results:
            print("  ".join(f"{key}={value}" for key, value in figures.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
