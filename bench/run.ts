// `npm run bench` runs every suite; `npm run bench -- <suite> ...` runs those.
// Each suite verifies its variants, times them with benny and its floors, and
// saves its results and chart page in bench/out/; then the summary is printed.
// `--update-readme` also publishes the results to bench/results/ and
// regenerates the README's tables: nothing tracked changes without it.
// (Errors go through process.stderr: AssemblyScript's typings, which the build
// pulls in, declare a global console namespace that hides console.error.)
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { runSuite } from "./harness.js";
import { RESULT_KINDS, RESULTS_DIR, PUBLISHED_DIR, resultPath } from "./results.js";
import { VerificationError } from "./verify.js";
import { unloadAll } from "./libraries.js";
import { renderSummary } from "./summary.js";
import { updateReadme } from "./update-readme.js";
import { SUITES } from "./suites/index.js";

const publish = process.argv.includes("--update-readme");
const asked = process.argv.slice(2).filter((a) => a !== "--update-readme");
const unknown = asked.filter((name) => !SUITES.some((s) => s.name === name));
if (unknown.length) {
  process.stderr.write(`bench: no suite ${unknown.join(", ")}; suites: ${SUITES.map((s) => s.name).join(", ")}\n`);
  process.exit(2);
}
const chosen = asked.length ? SUITES.filter((s) => asked.includes(s.name)) : SUITES;

const started = performance.now();
const failed: string[] = [];
for (const suite of chosen) {
  try {
    await runSuite(suite);
  } catch (e) {
    failed.push(suite.name);
    process.stderr.write(`\nbench: suite ${suite.name} stopped: ${e instanceof VerificationError ? e.message : e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  }
}
await unloadAll();

const ran = chosen.map((s) => s.name).filter((name) => !failed.includes(name));
console.log(renderSummary(ran));
if (publish) {
  mkdirSync(PUBLISHED_DIR, { recursive: true });
  for (const suite of ran) {
    for (const kind of RESULT_KINDS) if (existsSync(resultPath(suite, kind))) copyFileSync(resultPath(suite, kind), resultPath(suite, kind, PUBLISHED_DIR));
  }
  updateReadme();
  console.log(`\nPublished ${ran.join(", ")} to bench/results/ and updated README.md; ${((performance.now() - started) / 1000).toFixed(0)} s in all.`);
} else {
  console.log(`\nResults and chart pages in ${RESULTS_DIR} (--update-readme publishes them to the README); ${((performance.now() - started) / 1000).toFixed(0)} s in all.`);
}
if (failed.length) {
  process.stderr.write(`bench: failed suites: ${failed.join(", ")} (their earlier results, if any, were left as they were)\n`);
  process.exitCode = 1;
}
