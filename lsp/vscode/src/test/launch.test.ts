/** Unit tests of launch.ts: settings (as a user may type them) -> the server's command line. */
import * as assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import {
  CHOOSE_PYTHON,
  DEFAULT_ARGS,
  DEFAULT_COMMAND,
  describeLaunch,
  INSTALL,
  installCommand,
  isMissing,
  LOCATE,
  MISSING_CHOICES,
  missingAction,
  MODULE_ARGS,
  planLaunch,
  serverOptionsFor,
  startFailureMessage,
  type Host,
} from "../launch";

const folder = "/srv/project";
const host: Host = { workspaceFolder: folder, home: "/var/lib/ada", env: { PATH: "/usr/bin", TERM: undefined }, platform: "linux" };

test("no settings start `kcl lsp` in the workspace folder with the host's environment", () => {
  const { launch, problems } = planLaunch({}, host);
  assert.deepEqual(problems, []);
  assert.equal(describeLaunch(launch), "kcl lsp");
  assert.equal(launch.cwd, folder);
  assert.deepEqual(launch.env, { PATH: "/usr/bin" });
});

test("the defaults declared in package.json are the ones the code falls back to", () => {
  const manifest = JSON.parse(readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const properties = manifest.contributes.configuration.properties;
  assert.equal(properties["kcl.server.command"].default, DEFAULT_COMMAND);
  assert.deepEqual(properties["kcl.server.args"].default, DEFAULT_ARGS);
  assert.deepEqual(properties["kcl.server.env"].default, {});
  assert.equal(properties["kcl.server.pythonInterpreter"].default, "");
  assert.equal(planLaunch({ pythonInterpreter: properties["kcl.server.pythonInterpreter"].default }, host).launch.command, "kcl");
});

test("a relative path is taken from the workspace folder, a bare name is left to PATH", () => {
  assert.equal(planLaunch({ command: ".venv/bin/kcl" }, host).launch.command, "/srv/project/.venv/bin/kcl");
  assert.equal(planLaunch({ command: "kcl" }, host).launch.command, "kcl");
  assert.equal(planLaunch({ command: "/opt/kcl/bin/kcl" }, host).launch.command, "/opt/kcl/bin/kcl");
  const noFolder: Host = { ...host, workspaceFolder: undefined };
  const { launch } = planLaunch({ command: ".venv/bin/kcl" }, noFolder);
  assert.equal(launch.command, ".venv/bin/kcl");
  assert.equal(launch.cwd, undefined);
});

test("Windows paths with backslashes are resolved with Windows rules", () => {
  const windows: Host = { ...host, workspaceFolder: "C:\\work\\project", platform: "win32" };
  const { launch } = planLaunch({ command: ".venv\\Scripts\\kcl.exe" }, windows);
  assert.equal(launch.command, "C:\\work\\project\\.venv\\Scripts\\kcl.exe");
});

test("variables and ~ are expanded in the command and its arguments", () => {
  const { launch, problems } = planLaunch(
    {
      command: "~/bin/kcl",
      args: ["lsp", "--log=${workspaceFolder}/lsp.log", "${userHome}", "${env:PATH}", "${env:MISSING}"],
    },
    host,
  );
  assert.deepEqual(problems, []);
  assert.equal(launch.command, "/var/lib/ada/bin/kcl");
  assert.deepEqual(launch.args, ["lsp", "--log=/srv/project/lsp.log", "/var/lib/ada", "/usr/bin", ""]);
});

test("${workspaceFolder} without an open folder is kept and reported", () => {
  const { launch, problems } = planLaunch(
    { command: "${workspaceFolder}/kcl" },
    { ...host, workspaceFolder: undefined },
  );
  assert.equal(launch.command, "${workspaceFolder}/kcl");
  assert.equal(problems.length, 1);
  assert.match(problems[0] ?? "", /no folder is open/);
});

test("settings of the wrong shape fall back to the defaults, each with a problem naming it", () => {
  const { launch, problems } = planLaunch({ command: "  ", args: ["lsp", 3], env: [] }, host);
  assert.equal(describeLaunch(launch), "kcl lsp");
  assert.equal(problems.length, 3);
  assert.match(problems[0] ?? "", /kcl\.server\.command/);
  assert.match(problems[1] ?? "", /kcl\.server\.args/);
  assert.match(problems[2] ?? "", /kcl\.server\.env/);
  assert.equal(planLaunch({ command: 42 }, host).launch.command, "kcl");
  assert.deepEqual(planLaunch({ args: "lsp" }, host).launch.args, ["lsp"]);
});

test("extra environment variables override the host's; non-strings are dropped", () => {
  const { launch, problems } = planLaunch({ env: { PATH: "/venv/bin", KCL_CACHE: "/tmp/c", BAD: 1 } }, host);
  assert.deepEqual(launch.env, { PATH: "/venv/bin", KCL_CACHE: "/tmp/c" });
  assert.deepEqual(problems, ["kcl.server.env.BAD must be a string; ignoring it."]);
});

test("the server options are an Executable without a transport (stdio, no --stdio argument)", () => {
  const options = serverOptionsFor(planLaunch({}, host).launch);
  assert.equal("transport" in options, false);
  assert.equal(options.command, "kcl");
  assert.deepEqual(options.args, ["lsp"]);
  assert.equal(options.options.cwd, folder);
  assert.equal(options.options.env["PATH"], "/usr/bin");
});

test("command lines with spaces or quotes are shown quoted", () => {
  const { launch } = planLaunch({ command: "/my tools/kcl", args: ["lsp", "it's", ""] }, host);
  assert.equal(describeLaunch(launch), "'/my tools/kcl' lsp 'it'\\''s' ''");
});

test("start failures say what to do", () => {
  const { launch } = planLaunch({}, host);
  const missing = startFailureMessage(launch, "Launching server using command kcl failed. Error: spawn kcl ENOENT");
  assert.match(missing, /"kcl" was not found/);
  assert.match(missing, /pip install 'kclpy-toolchain\[lsp\]'/);
  assert.match(missing, /kcl\.server\.command/);
  const denied = Object.assign(new Error("spawn /x/kcl EACCES"), { code: "EACCES" });
  assert.match(startFailureMessage(launch, denied), /is not executable/);
  assert.equal(
    startFailureMessage(launch, new Error("boom")),
    "KCL: the language server (kcl lsp) failed to start: boom. Its messages are in the KCL output.",
  );
});

test("a Python interpreter runs the server as its module, whatever the command says", () => {
  const { launch, problems } = planLaunch({ pythonInterpreter: ".venv/bin/python", command: "kcl", args: ["lsp", "-v"] }, host);
  assert.deepEqual(problems, []);
  assert.equal(launch.command, "/srv/project/.venv/bin/python");
  assert.deepEqual(launch.args, [...MODULE_ARGS]);
  assert.equal(describeLaunch(launch), "/srv/project/.venv/bin/python -m kclpy_lsp");
  assert.equal(planLaunch({ pythonInterpreter: "~/py/bin/python3" }, host).launch.command, "/var/lib/ada/py/bin/python3");
  assert.equal(planLaunch({ pythonInterpreter: "python3" }, host).launch.command, "python3");
});

test("an interpreter setting of the wrong shape is reported and the command is used", () => {
  for (const value of [42, "   ", ["python"]]) {
    const { launch, problems } = planLaunch({ pythonInterpreter: value }, host);
    assert.equal(describeLaunch(launch), "kcl lsp");
    assert.equal(problems.length, 1);
    assert.match(problems[0] ?? "", /kcl\.server\.pythonInterpreter/);
  }
});

test("a missing server is told apart from other start failures", () => {
  assert.equal(isMissing("Launching server using command kcl failed. Error: spawn kcl ENOENT"), true);
  assert.equal(isMissing(Object.assign(new Error("spawn failed"), { code: "ENOENT" })), true);
  assert.equal(isMissing(Object.assign(new Error("spawn /x/kcl EACCES"), { code: "EACCES" })), false);
  assert.equal(isMissing(new Error("NOENTRY")), false);
  const { launch } = planLaunch({ pythonInterpreter: "/usr/bin/python3" }, host);
  assert.match(startFailureMessage(launch, "spawn /usr/bin/python3 ENOENT"), /kcl\.server\.pythonInterpreter/);
});

test("the install offer runs pip for the configured interpreter, or plain pip", () => {
  assert.equal(installCommand(), "pip install 'kclpy-toolchain[lsp]'");
  assert.equal(installCommand("/my venv/bin/python"), "'/my venv/bin/python' -m pip install 'kclpy-toolchain[lsp]'");
  assert.deepEqual(missingAction(INSTALL, undefined, undefined), { kind: "install", commandLine: installCommand() });
  assert.deepEqual(missingAction(INSTALL, undefined, "/usr/bin/python3"), {
    kind: "install",
    commandLine: "/usr/bin/python3 -m pip install 'kclpy-toolchain[lsp]'",
  });
});

test("locating kcl or choosing a Python saves the setting that starts the server from it", () => {
  assert.deepEqual(MISSING_CHOICES, [INSTALL, LOCATE, CHOOSE_PYTHON]);
  assert.deepEqual(missingAction(LOCATE, "/opt/kclpy/bin/kcl", undefined), {
    kind: "setting",
    name: "command",
    value: "/opt/kclpy/bin/kcl",
  });
  assert.deepEqual(missingAction(CHOOSE_PYTHON, "/srv/venv/bin/python", undefined), {
    kind: "setting",
    name: "pythonInterpreter",
    value: "/srv/venv/bin/python",
  });
  // the dialog was cancelled, or the message dismissed: nothing changes
  assert.deepEqual(missingAction(LOCATE, undefined, undefined), { kind: "none" });
  assert.deepEqual(missingAction(undefined, undefined, undefined), { kind: "none" });
});
