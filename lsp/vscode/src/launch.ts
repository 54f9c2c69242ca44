/**
 * How the extension starts the language server: turns the user's `kcl.server.*`
 * settings (untrusted JSON) and facts about the host (workspace folder, home,
 * environment) into one command line, plus the problems found in the settings.
 * `kcl.server.pythonInterpreter`, when set, wins: the server is that Python's
 * `-m kclpy_lsp` (the interpreter of the venv kclpy is installed in), whatever
 * the command. Also words the message shown when the command cannot be started,
 * and the offers made when the server is not installed (`missingServer`).
 *
 * Pure: no `vscode` import, so the unit tests run it under plain Node.
 */
import * as path from "node:path";

/** The server command when nothing is configured: `kcl lsp` (kclpy's CLI). */
export const DEFAULT_COMMAND = "kcl";
export const DEFAULT_ARGS: readonly string[] = ["lsp"];
/** The arguments after `kcl.server.pythonInterpreter`: the server's own module. */
export const MODULE_ARGS: readonly string[] = ["-m", "kclpy_lsp"];
/** The distribution that holds `kcl` and the server (`kclpy.install_hint("lsp")`). */
export const DISTRIBUTION = "kclpy-toolchain";

/** The settings as read from the configuration: anything a user may have typed. */
export interface RawSettings {
  readonly command?: unknown;
  readonly args?: unknown;
  readonly env?: unknown;
  readonly pythonInterpreter?: unknown;
}

/** What the launch depends on besides the settings. */
export interface Host {
  /** File-system path of the first workspace folder, if a folder is open. */
  readonly workspaceFolder?: string | undefined;
  readonly home: string;
  /** The extension host's environment; the server inherits it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
}

/** A process to start: what `vscode-languageclient` calls an `Executable`. */
export interface Launch {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
}

export interface LaunchPlan {
  readonly launch: Launch;
  /** One sentence per setting that was ignored, naming the setting. */
  readonly problems: readonly string[];
}

/** The launch for `raw` on `host`; bad settings fall back to the defaults. */
export function planLaunch(raw: RawSettings, host: Host): LaunchPlan {
  const problems: string[] = [];
  const python = readInterpreter(raw.pythonInterpreter, problems);
  const command = python ?? readCommand(raw.command, problems);
  const args = python === undefined ? readArgs(raw.args, problems) : [...MODULE_ARGS];
  const extraEnv = readEnv(raw.env, problems);
  const expand = (text: string): string => expandVariables(text, host, problems);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host.env)) {
    if (value !== undefined) {
      env[name] = value;
    }
  }
  Object.assign(env, extraEnv);
  const launch: Launch = {
    command: resolveCommand(expand(command), host),
    args: args.map(expand),
    env,
    ...(host.workspaceFolder === undefined ? {} : { cwd: host.workspaceFolder }),
  };
  return { launch, problems: [...new Set(problems)] };
}

function readCommand(value: unknown, problems: string[]): string {
  if (value === undefined || value === null) {
    return DEFAULT_COMMAND;
  }
  if (typeof value !== "string" || value.trim() === "") {
    problems.push(`kcl.server.command must be a non-empty string; using "${DEFAULT_COMMAND}".`);
    return DEFAULT_COMMAND;
  }
  return value.trim();
}

/** The interpreter setting: undefined when unset or empty (then the command is used). */
function readInterpreter(value: unknown, problems: string[]): string | undefined {
  if (value === undefined || value === null || value === "") {
    return undefined;
  }
  if (typeof value !== "string" || value.trim() === "") {
    problems.push("kcl.server.pythonInterpreter must be a path to a Python interpreter; ignoring it.");
    return undefined;
  }
  return value.trim();
}

function readArgs(value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) {
    return [...DEFAULT_ARGS];
  }
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    problems.push(
      `kcl.server.args must be a list of strings; using ${JSON.stringify(DEFAULT_ARGS)}.`,
    );
    return [...DEFAULT_ARGS];
  }
  return value as string[];
}

function readEnv(value: unknown, problems: string[]): Record<string, string> {
  if (value === undefined || value === null) {
    return {};
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    problems.push("kcl.server.env must be an object of strings; ignoring it.");
    return {};
  }
  const env: Record<string, string> = {};
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item === "string") {
      env[name] = item;
    } else {
      problems.push(`kcl.server.env.${name} must be a string; ignoring it.`);
    }
  }
  return env;
}

const VARIABLE = /\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g;

/** Expands `${workspaceFolder}`, `${userHome}`, `${env:NAME}` and a leading `~`. */
function expandVariables(text: string, host: Host, problems: string[]): string {
  const expanded = text.replace(VARIABLE, (whole: string, name: string, variable?: string) => {
    if (variable !== undefined) {
      return host.env[variable] ?? "";
    }
    if (name === "userHome") {
      return host.home;
    }
    if (host.workspaceFolder === undefined) {
      problems.push(`${whole} is used in kcl.server settings but no folder is open.`);
      return whole;
    }
    return host.workspaceFolder;
  });
  if (expanded === "~" || expanded.startsWith("~/") || expanded.startsWith("~\\")) {
    return host.home + expanded.slice(1);
  }
  return expanded;
}

/** A bare name stays a name (looked up on PATH); a relative path is taken from the folder. */
function resolveCommand(command: string, host: Host): string {
  const paths = host.platform === "win32" ? path.win32 : path.posix;
  const hasSeparator = command.includes("/") || (host.platform === "win32" && command.includes("\\"));
  if (!hasSeparator || paths.isAbsolute(command) || host.workspaceFolder === undefined) {
    return command;
  }
  return paths.resolve(host.workspaceFolder, command);
}

/** The launch as a shell-like line, for messages: `kcl lsp`, `'/my dir/kcl' lsp`. */
export function describeLaunch(launch: Launch): string {
  return [launch.command, ...launch.args].map(quote).join(" ");
}

function quote(word: string): string {
  return word !== "" && /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The server options for `vscode-languageclient`: an `Executable` over stdio.
 * `transport` stays unset on purpose: `TransportKind.stdio` would append a
 * `--stdio` argument, which `kcl lsp` does not take.
 */
export interface ExecutableOptions {
  readonly command: string;
  readonly args: string[];
  readonly options: { readonly cwd?: string; readonly env: Record<string, string> };
}

export function serverOptionsFor(launch: Launch): ExecutableOptions {
  const options = { env: { ...launch.env }, ...(launch.cwd === undefined ? {} : { cwd: launch.cwd }) };
  return { command: launch.command, args: [...launch.args], options };
}

/**
 * What went wrong when the server process could not be started. `error` is
 * what the client's start rejected with: a Node error, or the client's text
 * ("Launching server using command kcl failed. Error: spawn kcl ENOENT").
 */
export function startFailureMessage(launch: Launch, error: unknown): string {
  const line = describeLaunch(launch);
  const text = error instanceof Error ? error.message : String(error);
  const has = (name: string): boolean => hasCode(error, name);
  if (isMissing(error)) {
    return (
      `KCL: cannot start the language server: "${launch.command}" was not found. ` +
      `Install kclpy with its language server (${installCommand()}) ` +
      "or set kcl.server.command (or kcl.server.pythonInterpreter) to where it is."
    );
  }
  if (has("EACCES")) {
    return `KCL: cannot start the language server: "${launch.command}" is not executable.`;
  }
  return `KCL: the language server (${line}) failed to start: ${text}. Its messages are in the KCL output.`;
}

function hasCode(error: unknown, name: string): boolean {
  const text = error instanceof Error ? error.message : String(error);
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === name || new RegExp(`\\b${name}\\b`).test(text);
}

/** Whether the start failed because the program does not exist (ENOENT). */
export function isMissing(error: unknown): boolean {
  return hasCode(error, "ENOENT");
}

/** The shell command that installs the server: kclpy's own hint, for `python`. */
export function installCommand(python?: string): string {
  const pip = python === undefined ? "pip" : `${quote(python)} -m pip`;
  return `${pip} install '${DISTRIBUTION}[lsp]'`;
}

/** The buttons offered when the server is not installed, in order. */
export const INSTALL = "Install with pip";
export const LOCATE = "Locate kcl…";
export const CHOOSE_PYTHON = "Choose Python…";
export const MISSING_CHOICES: readonly string[] = [INSTALL, LOCATE, CHOOSE_PYTHON];

/** What a choice made in the "not installed" prompt changes. */
export type MissingAction =
  | { readonly kind: "install"; readonly commandLine: string }
  | { readonly kind: "setting"; readonly name: "command" | "pythonInterpreter"; readonly value: string }
  | { readonly kind: "none" };

/**
 * The action for the button chosen in the "not installed" prompt: `picked` is
 * the file chosen in the open dialog (for LOCATE and CHOOSE_PYTHON), `python`
 * the configured interpreter (the install runs with it, else with `pip`).
 */
export function missingAction(choice: string | undefined, picked: string | undefined, python: string | undefined): MissingAction {
  if (choice === INSTALL) {
    return { kind: "install", commandLine: installCommand(python) };
  }
  if (choice === LOCATE && picked !== undefined) {
    return { kind: "setting", name: "command", value: picked };
  }
  if (choice === CHOOSE_PYTHON && picked !== undefined) {
    return { kind: "setting", name: "pythonInterpreter", value: picked };
  }
  return { kind: "none" };
}
