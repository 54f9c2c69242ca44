/**
 * The static parts of the extension: package.json points at files that exist
 * and agree with each other, the bundle it ships is self-contained, every command it declares is registered by the
 * client, the language configuration's patterns indent and dedent the lines
 * they should (and only those), and every snippet is well formed.
 */
import * as assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import * as path from "node:path";
import { test } from "node:test";

const root = path.join(__dirname, "..", "..");
const readJson = (name: string): any => JSON.parse(readFileSync(path.join(root, name), "utf8"));
const manifest = readJson("package.json");
const configuration = readJson("language-configuration.json");

test("package.json declares the kcl language, its grammar and snippets with files that exist", () => {
  const [language] = manifest.contributes.languages;
  assert.equal(language.id, "kcl");
  assert.deepEqual(language.extensions, [".k"]);
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.language, "kcl");
  assert.equal(readJson(grammar.path).scopeName, grammar.scopeName);
  for (const file of [language.configuration, grammar.path, manifest.contributes.snippets[0].path, "README.md", "LICENSE"]) {
    assert.ok(existsSync(path.join(root, file)), `${file} is missing`);
  }
  assert.equal(manifest.main, "./dist/extension.js");
});

test("kcl.mod and kcl.mod.lock are a language of their own, highlighted by the bundled TOML grammar", () => {
  const language = manifest.contributes.languages.find((entry: { id: string }) => entry.id === "kcl-mod");
  assert.ok(language, "no kcl-mod language");
  assert.deepEqual(language.filenames, ["kcl.mod", "kcl.mod.lock"]);
  const settings = readJson(language.configuration);
  assert.equal(settings.comments.lineComment, "#");
  const grammar = manifest.contributes.grammars.find((entry: { language: string }) => entry.language === "kcl-mod");
  assert.ok(grammar, "no grammar for kcl-mod");
  assert.equal(readJson(grammar.path).scopeName, grammar.scopeName);
  // no other extension is needed for it
  assert.equal(manifest.extensionDependencies, undefined);
});

test(".k files (and kcl.mod) have a file icon that ships in the package", () => {
  const ignored = readFileSync(path.join(root, ".vscodeignore"), "utf8").split("\n").map((line) => line.trim());
  for (const language of manifest.contributes.languages) {
    for (const theme of ["light", "dark"]) {
      const icon: string = language.icon?.[theme];
      assert.ok(icon !== undefined, `${language.id} has no ${theme} icon`);
      const file = path.join(root, icon);
      assert.ok(existsSync(file), `${icon} is missing`);
      assert.match(readFileSync(file, "utf8"), /^<svg[^>]*viewBox="0 0 16 16"/);
      const folder = icon.replace(/^\.\//, "").split("/")[0];
      assert.ok(!ignored.includes(`${folder}/**`), `${icon} is left out of the .vsix`);
    }
  }
});

test("the tests read nothing outside the extension's folder unless told to", () => {
  const tests = path.join(root, "src", "test");
  for (const name of readdirSync(tests)) {
    const source = readFileSync(path.join(tests, name), "utf8");
    assert.doesNotMatch(source, /"\.\.",\s*"\.\.",\s*"\.\."/, `${name} reaches above the extension's folder`);
    assert.doesNotMatch(source, /\.\.\/\.\.\/\.\./, `${name} reaches above the extension's folder`);
  }
  assert.doesNotMatch(JSON.stringify(manifest.scripts), /\.\.\//, "a script reads outside the folder");
});

test("the bundle the package ships needs only vscode and Node's own modules", () => {
  const bundle = path.join(root, manifest.main);
  assert.ok(existsSync(bundle), `${bundle} is missing: run npm run bundle`);
  const required = new Set([...readFileSync(bundle, "utf8").matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]));
  const outside = [...required].filter((name) => name !== "vscode" && !isBuiltin(name ?? ""));
  assert.deepEqual(outside, []);
  assert.ok(required.has("vscode"));
});

test("a workspace cannot choose the program the server runs until it is trusted", () => {
  const untrusted = manifest.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, "limited");
  const serverSettings = Object.keys(manifest.contributes.configuration.properties).filter((key) => key.startsWith("kcl.server."));
  assert.deepEqual([...untrusted.restrictedConfigurations].sort(), serverSettings.sort());
});

test("every declared command is registered by the client", () => {
  const source = readFileSync(path.join(root, "src", "extension.ts"), "utf8");
  for (const { command } of manifest.contributes.commands) {
    assert.ok(source.includes(`registerCommand("${command}"`), `${command} is never registered`);
  }
});

const pattern = (text: string): RegExp => new RegExp(text);
const rules = configuration.indentationRules;

test("a block header indents the next line; other lines ending in ':' do not", () => {
  const increase = pattern(rules.increaseIndentPattern);
  const enter = pattern(configuration.onEnterRules[0].beforeText);
  const headers = [
    "schema Person:",
    "schema Server(Person):  # a comment",
    "schema Named[prefix: str](base.Base) for NamedProtocol:",
    "mixin NameMixin for NamedProtocol:",
    "protocol NamedProtocol:",
    "rule Valid:",
    "    check:",
    "    if replicas > 1:",
    "elif mode == \"prod\":",
    "else:",
  ];
  for (const line of headers) {
    assert.match(line, increase);
    assert.match(line, enter);
  }
  const others = ["a = 1", "if ok: a = 1", "    name: str", "labels: {str:str} = {}", "# schema X:", "schematic = 1", "x = \"if a:\""];
  for (const line of others) {
    assert.doesNotMatch(line, increase);
    assert.doesNotMatch(line, enter);
  }
});

test("elif and else lines dedent; names that start like them do not", () => {
  const decrease = pattern(rules.decreaseIndentPattern);
  for (const line of ["    else:", "  elif a > 1:", "else:  # otherwise"]) {
    assert.match(line, decrease);
  }
  for (const line of ["elsewhere = 1", "else_: str", "elif_x = 2", "    if a:"]) {
    assert.doesNotMatch(line, decrease);
  }
});

test("a $-escaped keyword is one word, a dotted name is several", () => {
  const words = (text: string): string[] => text.match(new RegExp(configuration.wordPattern, "g")) ?? [];
  assert.deepEqual(words("$if = meta.name_2"), ["$if", "meta", "name_2"]);
});

test("folding follows indentation and # region markers", () => {
  assert.equal(configuration.folding.offSide, true);
  assert.match("  # region ports", pattern(configuration.folding.markers.start));
  assert.match("# endregion", pattern(configuration.folding.markers.end));
});

test("snippets have a prefix, a description and a body with balanced placeholders", () => {
  const snippets: Record<string, { prefix: string; description: string; body: string[] }> = readJson("snippets/kcl.json");
  assert.ok(Object.keys(snippets).length >= 15);
  for (const [name, snippet] of Object.entries(snippets)) {
    assert.ok(snippet.prefix && snippet.description, `${name}: prefix and description`);
    const text = snippet.body.join("\n");
    let depth = 0;
    for (const match of text.matchAll(/\\.|\$\{|\{|\}/g)) {
      if (match[0] === "${" || match[0] === "{") {
        depth += 1;
      } else if (match[0] === "}") {
        depth -= 1;
        assert.ok(depth >= 0, `${name}: unbalanced braces`);
      }
    }
    assert.equal(depth, 0, `${name}: unbalanced braces`);
  }
});
