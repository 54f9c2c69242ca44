/**
 * The TextMate grammar over whole programs: every line of every valid KCL file
 * must be tokenized without an `invalid.illegal` scope, and no begin/end rule
 * may still be open at a top-level definition or at the end of the file (a
 * rule that never closes colours the rest of the file wrongly, the typical
 * grammar bug). The files: the extension's own samples (test/snapshots,
 * test/samples), and the folders named by KCL_GRAMMAR_CORPUS (separated by the
 * path delimiter; .ci/run names the repository's examples and parser cases).
 * When one of those folders holds the git-ignored corpus (`kcl-conformance`,
 * `konfig`, `k8s`), the conformance cases that must run, konfig and the
 * Kubernetes models are checked too; the conformance cases that must fail only
 * for slow lines. The extension's folder is all the tests read by default, so
 * it builds and tests on its own.
 */
import * as assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import * as oniguruma from "vscode-oniguruma";
import { INITIAL, Registry, parseRawGrammar, type IGrammar } from "vscode-textmate";

const extensionRoot = path.join(__dirname, "..", "..");
/** Extra folders of KCL files to tokenize, from the environment (none by default). */
const extraFolders = (process.env["KCL_GRAMMAR_CORPUS"] ?? "").split(path.delimiter).filter((entry) => entry !== "");

async function loadGrammar(): Promise<IGrammar> {
  const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources: string[]) => new oniguruma.OnigScanner(sources),
      createOnigString: (text: string) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName: string) => {
      const file = path.join(extensionRoot, "syntaxes", "kcl.tmLanguage.json");
      return scopeName === "source.kcl" ? parseRawGrammar(readFileSync(file, "utf8"), file) : null;
    },
  });
  const grammar = await registry.loadGrammar("source.kcl");
  assert.ok(grammar, "source.kcl did not load");
  return grammar;
}

function kclFiles(directory: string, accept: (file: string) => boolean = () => true): string[] {
  if (!existsSync(directory)) {
    return [];
  }
  const found: string[] = [];
  for (const entry of readdirSync(directory)) {
    const full = path.join(directory, entry);
    if (statSync(full).isDirectory()) {
      found.push(...kclFiles(full, accept));
    } else if (entry.endsWith(".k") && accept(full)) {
      found.push(full);
    }
  }
  return found.sort();
}

/** A conformance case that is expected to run (it has stdout, not stderr, golden output). */
function runsCleanly(file: string): boolean {
  const directory = path.dirname(file);
  return existsSync(path.join(directory, "stdout.golden")) && !existsSync(path.join(directory, "stderr.golden"));
}

const SLOW = "tokenizing took over a second";

/** Lines that only occur at the top level of a valid program (outside strings and brackets). */
const TOP_LEVEL_ONLY = /^(?:schema|mixin|protocol|rule) \w+.*:\s*$|^import \w/;

/** The first problem in `text` (from `file`), or undefined. */
function problemIn(grammar: IGrammar, file: string, text: string = readFileSync(file, "utf8")): string | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  let state = INITIAL;
  for (const [index, line] of lines.entries()) {
    if (state.depth !== 1 && TOP_LEVEL_ONLY.test(line)) {
      return `${file}:${index + 1}: a top-level definition starts inside a rule opened earlier`;
    }
    const result = grammar.tokenizeLine(line, state, 1000);
    if (result.stoppedEarly) {
      return `${file}:${index + 1}: ${SLOW}`;
    }
    for (const token of result.tokens) {
      const illegal = token.scopes.find((scope) => scope.startsWith("invalid.illegal"));
      if (illegal !== undefined) {
        return `${file}:${index + 1}:${token.startIndex + 1}: ${illegal}`;
      }
    }
    state = result.ruleStack;
  }
  return state.depth === 1 ? undefined : `${file}: a begin/end rule is still open at the end`;
}

/**
 * Asserts that `files` have no problem, or with `slowOnly` (invalid programs) no
 * slow line; files under a folder named in `skipped` are left to their own test.
 */
function checkFiles(grammar: IGrammar, files: string[], slowOnly = false, skipped: string[] = []): void {
  const problems = files
    .filter((file) => !file.split(path.sep).some((part) => skipped.includes(part)))
    .map((file) => problemIn(grammar, file))
    .filter((problem) => problem !== undefined && (!slowOnly || problem.endsWith(SLOW)));
  assert.deepEqual(problems.slice(0, 20), [], `${problems.length} of ${files.length} files have problems`);
}

const grammar = loadGrammar();

test("the check finds rules left open and illegal tokens", async () => {
  const loaded = await grammar;
  assert.equal(problemIn(loaded, "ok.k", 'a = """x\n"""\nb = [\n  1\n]\n'), undefined);
  assert.match(problemIn(loaded, "open.k", 'a = """x\nb = 1\n') ?? "", /still open/);
  assert.match(problemIn(loaded, "open.k", "f = lambda x {\n  x\n") ?? "", /still open/);
  assert.match(problemIn(loaded, "open.k", "a = [\nschema S:\n  x: int\n]\n") ?? "", /open.k:2: a top-level definition/);
  assert.match(problemIn(loaded, "semi.k", "a = 1;\n") ?? "", /semi.k:1:6: invalid.illegal.semicolon/);
  // an unterminated one-line string ends at the end of its line
  assert.equal(problemIn(loaded, "newline.k", 'a = "x ${y\nb = 1\n'), undefined);
});

test("the extension's own samples", async () => {
  const files = [
    ...kclFiles(path.join(extensionRoot, "test", "snapshots")),
    ...kclFiles(path.join(extensionRoot, "test", "samples")),
  ];
  assert.ok(files.length >= 4, `only ${files.length} sample files`);
  checkFiles(await grammar, files);
});

test("the folders of KCL_GRAMMAR_CORPUS", { skip: extraFolders.length === 0 ? "KCL_GRAMMAR_CORPUS is not set" : false }, async () => {
  const files = extraFolders.flatMap((folder) =>
    existsSync(folder) && statSync(folder).isFile() ? [folder] : kclFiles(folder),
  );
  assert.ok(files.length > 0, `no .k files in ${extraFolders.join(", ")}`);
  checkFiles(await grammar, files, false, ["kcl-conformance", "konfig", "k8s"]);
});

const corpora: [string, string, ((file: string) => boolean) | undefined][] = [
  ["conformance cases that run", "kcl-conformance", runsCleanly],
  ["konfig", "konfig", undefined],
  ["Kubernetes models", "k8s", undefined],
];
/** The corpus folder named `name` inside one of the extra folders, if any. */
const corpusFolder = (name: string): string | undefined =>
  extraFolders.map((folder) => path.join(folder, name)).find((candidate) => existsSync(candidate));
const absent = (name: string): string | false =>
  corpusFolder(name) === undefined ? `no ${name} folder in KCL_GRAMMAR_CORPUS (see benchmarks/README.md)` : false;
for (const [title, folder, accept] of corpora) {
  test(title, { skip: absent(folder) }, async () => {
    checkFiles(await grammar, kclFiles(corpusFolder(folder) ?? "", accept));
  });
}

test("conformance cases that fail: broken programs tokenize quickly too", { skip: absent("kcl-conformance") }, async () => {
  const broken = kclFiles(corpusFolder("kcl-conformance") ?? "", (file) => !runsCleanly(file));
  assert.ok(broken.length > 100, `only ${broken.length} broken programs`);
  checkFiles(await grammar, broken, true);
});
