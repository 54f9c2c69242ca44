/**
 * The VS Code side of kclpy: starts the language server (`kcl lsp` unless the
 * `kcl.server.*` settings say otherwise) for `.k` files, restarts it when those
 * settings change or on the "KCL: Restart Language Server" command, and tells
 * the user plainly when it cannot be started. When the server is not installed
 * it offers to install it (pip, in a terminal), to locate `kcl`, or to choose the
 * Python interpreter it is installed for; the choice is saved in the user's
 * settings and the server restarts. Everything about the command line and the
 * offers lives in `launch.ts`; this module only talks to the `vscode` API.
 */
import * as os from "node:os";
import * as vscode from "vscode";
import { LanguageClient, type LanguageClientOptions } from "vscode-languageclient/node";
import {
  CHOOSE_PYTHON,
  describeLaunch,
  isMissing,
  LOCATE,
  MISSING_CHOICES,
  missingAction,
  planLaunch,
  serverOptionsFor,
  startFailureMessage,
  type Launch,
} from "./launch";

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
    {
      command: settings.get("command"),
      args: settings.get("args"),
      env: settings.get("env"),
      pythonInterpreter: settings.get("pythonInterpreter"),
    },
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
  if (isMissing(error)) {
    await offerInstall(message);
    return;
  }
  const choice = await vscode.window.showErrorMessage(message, "Open Settings", "Show Output");
  if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "kcl.server");
  } else if (choice === "Show Output") {
    channel.show(true);
  }
}

/** The server is not installed: install it, locate `kcl`, or choose a Python. */
async function offerInstall(message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, ...MISSING_CHOICES);
  let picked: string | undefined;
  if (choice === LOCATE || choice === CHOOSE_PYTHON) {
    const files = await vscode.window.showOpenDialog({
      canSelectFiles: true,
      canSelectFolders: false,
      canSelectMany: false,
      openLabel: choice === LOCATE ? "Use this kcl" : "Use this Python",
      title: choice === LOCATE ? "The kcl program of kclpy" : "The Python interpreter kclpy is installed for",
    });
    picked = files?.[0]?.fsPath;
  }
  const python = vscode.workspace.getConfiguration("kcl.server").get<string>("pythonInterpreter") || undefined;
  const action = missingAction(choice, picked, python);
  if (action.kind === "install") {
    const terminal = vscode.window.createTerminal("KCL: install the language server");
    terminal.show();
    terminal.sendText(action.commandLine);
    void vscode.window
      .showInformationMessage("Once the install has finished, restart the KCL language server.", "Restart")
      .then(async (answer) => (answer === "Restart" ? restart() : undefined));
  } else if (action.kind === "setting") {
    // saving the setting restarts the server (onDidChangeConfiguration)
    await vscode.workspace
      .getConfiguration("kcl.server")
      .update(action.name, action.value, vscode.ConfigurationTarget.Global);
  }
}
