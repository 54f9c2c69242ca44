/**
 * The launch the extension computes from default settings starts a real
 * language server: `kcl lsp` (found on PATH, e.g. kclpy's activated venv) is
 * spawned exactly as `vscode-languageclient` spawns it (an Executable over
 * stdio) and spoken to with the same protocol library the client uses. It must
 * initialize, publish a diagnostic for a broken file, clear it once the file is
 * fixed, and exit cleanly after shutdown. Skipped when `kcl` is not on PATH. The
 * launch from `kcl.server.pythonInterpreter` (`python3 -m kclpy_lsp`, the first
 * `python3` on PATH) must do the same; skipped when that Python lacks kclpy.
 */
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol/node";
import { planLaunch, serverOptionsFor } from "../launch";

/** The first executable `name` on PATH, or undefined. */
function onPath(name: string): string | undefined {
  for (const directory of (process.env["PATH"] ?? "").split(path.delimiter)) {
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

const folder = mkdtempSync(path.join(os.tmpdir(), "kcl-vscode-"));
const host = { workspaceFolder: folder, home: os.homedir(), env: process.env, platform: process.platform };
const options = serverOptionsFor(planLaunch({}, host).launch);
const found = onPath(options.command);
const python = onPath("python3");
const pythonOptions = serverOptionsFor(planLaunch({ pythonInterpreter: python ?? "python3" }, host).launch);
const pythonHasServer =
  python !== undefined && spawnSync(python, ["-c", "import kclpy_lsp"], { stdio: "ignore" }).status === 0;

test(
  "the default launch runs a language server that diagnoses a file and exits after shutdown",
  { skip: found === undefined ? `"${options.command}" is not on PATH (activate kclpy's venv)` : false, timeout: 120_000 },
  async () => converse(options),
);

test(
  "a launch from kcl.server.pythonInterpreter runs the same server",
  { skip: pythonHasServer ? false : "python3 on PATH cannot import kclpy_lsp (activate kclpy's venv)", timeout: 120_000 },
  async () => {
    assert.deepEqual(pythonOptions.args, ["-m", "kclpy_lsp"]);
    await converse(pythonOptions);
  },
);

/** Starts the server as `options` say, has it diagnose a file, and shuts it down. */
async function converse(options: ReturnType<typeof serverOptionsFor>): Promise<void> {
  const server = spawn(options.command, options.args, { cwd: options.options.cwd, env: options.options.env });
  const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
  let stderr = "";
  server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const connection = createProtocolConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  const published: PublishDiagnosticsParams[] = [];
  const waiters: (() => void)[] = [];
  connection.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) => {
    published.push(params);
    waiters.splice(0).forEach((wake) => wake());
  });
  connection.listen();
  const uri = pathToFileURL(path.join(folder, "main.k")).toString();
  const diagnosticsFor = async (wanted: (count: number) => boolean): Promise<void> => {
    while (!published.some((params) => params.uri === uri && wanted(params.diagnostics.length))) {
      await new Promise<void>((wake) => waiters.push(wake));
    }
    published.length = 0;
  };
  try {
    const result = await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(folder).toString(),
      workspaceFolders: [{ uri: pathToFileURL(folder).toString(), name: "project" }],
      capabilities: { textDocument: { publishDiagnostics: {}, synchronization: { didSave: true } } },
    });
    assert.ok((result as { capabilities?: { textDocumentSync?: unknown } }).capabilities?.textDocumentSync !== undefined);
    await connection.sendNotification("initialized", {});
    await connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "kcl", version: 1, text: "a = 1 +\n" },
    });
    await diagnosticsFor((count) => count > 0);
    await connection.sendNotification("textDocument/didChange", {
      textDocument: { uri, version: 2 },
      contentChanges: [{ text: "a = 1 + 2\n" }],
    });
    await diagnosticsFor((count) => count === 0);
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
    assert.equal(await exited, 0, stderr);
  } finally {
    connection.dispose();
    server.kill();
  }
}


test.after(() => rmSync(folder, { recursive: true, force: true }));
