// `npm run bench` runs every suite; `npm run bench -- <suite> ...` runs those.
// Each suite verifies its variants, times them with benny and saves its
// results; then the summary is printed and the README's table regenerated.
// (Errors go through process.stderr: AssemblyScript's typings, which the build
// pulls in, declare a global console namespace that hides console.error.)
import { runSuite } from "./harness.js";
import { VerificationError } from "./verify.js";
import { unloadAll } from "./libraries.js";
import { renderSummary } from "./summary.js";
import { updateReadme } from "./update-readme.js";
import { SUITES } from "./suites/index.js";

const asked = process.argv.slice(2);
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
updateReadme();
console.log(`\nREADME.md updated from bench/results/; ${((performance.now() - started) / 1000).toFixed(0)} s in all.`);
if (failed.length) {
  process.stderr.write(`bench: failed suites: ${failed.join(", ")} (their earlier results, if any, were left as they were)\n`);
  process.exitCode = 1;
}
