/**
 * The VS Code side of kclpy: starts the language server (`kcl lsp` unless the
 * `kcl.server.*` settings say otherwise) for `.k` files, restarts it when those
 * settings change or on the "KCL: Restart Language Server" command, and tells
 * the user plainly when it cannot be started. Everything about the command line
 * lives in `launch.ts`; this module only talks to the `vscode` API.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions } from "vscode-languageclient/node";
import { describeLaunch, planLaunch, serverOptionsFor, startFailureMessage, type Launch } from "./launch";

const CLIENT_ID = "kcl";
const CLIENT_NAME = "KCL Language Server";
/** Files whose changes the server hears about (`workspace/didChangeWatchedFiles`). */
const WATCHED_FILES = "**/{*.k,kcl.mod,kcl.mod.lock,kcl.yaml,kcl.work}";

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;
let watcher: vscode.FileSystemWatcher | undefined;
/** Starts and stops run one after another, however fast settings change. */
let queue: Promise<void> = Promise.resolve();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("KCL");
  watcher = vscode.workspace.createFileSystemWatcher(WATCHED_FILES);
  context.subscriptions.push(
    output,
    watcher,
    vscode.commands.registerCommand("kcl.restartServer", restart),
    vscode.commands.registerCommand("kcl.showServerOutput", () => output?.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("kcl.server")) {
        await restart();
      }
    }),
  );
  await enqueue(start);
}

export async function deactivate(): Promise<void> {
  await enqueue(stop);
}

function enqueue(step: () => Promise<void>): Promise<void> {
  queue = queue.then(step, step);
  return queue;
}

async function start(): Promise<void> {
  const channel = output ?? vscode.window.createOutputChannel("KCL");
  const settings = vscode.workspace.getConfiguration("kcl.server");
  const plan = planLaunch(
    { command: settings.get("command"), args: settings.get("args"), env: settings.get("env") },
    {
      workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      home: os.homedir(),
      env: process.env,
      platform: process.platform,
    },
  );
  for (const problem of plan.problems) {
    channel.appendLine(problem);
    void vscode.window.showWarningMessage(`KCL: ${problem}`);
  }
  channel.appendLine(`Starting ${describeLaunch(plan.launch)}`);
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "kcl" },
      { scheme: "untitled", language: "kcl" },
    ],
    synchronize: watcher === undefined ? {} : { fileEvents: watcher },
    outputChannel: channel,
    traceOutputChannel: channel,
  };
  const candidate = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptionsFor(plan.launch), clientOptions);
  try {
    await candidate.start();
    client = candidate;
  } catch (error) {
    void reportStartFailure(plan.launch, error, channel);
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    await running.stop().catch(() => undefined);
  }
}

async function restart(): Promise<void> {
  await enqueue(async () => {
    await stop();
    await start();
  });
}

async function reportStartFailure(launch: Launch, error: unknown, channel: vscode.OutputChannel): Promise<void> {
  const message = startFailureMessage(launch, error);
  channel.appendLine(message);
  const choice = await vscode.window.showErrorMessage(message, "Open Settings", "Show Output");
  if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "kcl.server");
  } else if (choice === "Show Output") {
    channel.show(true);
  }
}
