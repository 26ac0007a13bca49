// The host API must load without the build passes: they import Binaryen, whose top-level await
// makes require("gpsimd") fail (ERR_REQUIRE_ASYNC_MODULE), and whose start costs a quarter second
// at every import. The install test checks require() on a packed tarball; this checks it on dist/
// in a second, with the module graph, so a new import edge is caught where it is made.
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const DIST = path.resolve(__dirname, "../dist");

/** The modules a file reaches through static imports and re-exports, with the chain that reached each. */
function reachable(entry: string): Map<string, string[]> {
  const chains = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  while (queue.length) {
    const file = queue.shift()!;
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gm)) {
      const spec = m[1];
      const target = spec.startsWith(".") ? path.resolve(path.dirname(file), spec) : spec;
      if (chains.has(target)) continue;
      chains.set(target, [...chains.get(file)!, target]);
      if (spec.startsWith(".")) queue.push(target);
    }
  }
  return chains;
}

describe("the host API's imports", () => {
  it("reach neither Binaryen nor the AssemblyScript compiler", () => {
    const chains = reachable(path.join(DIST, "host/index.js"));
    const heavy = [...chains.entries()].filter(([m]) => m === "binaryen" || m.startsWith("assemblyscript"));
    expect(heavy.map(([, chain]) => chain.map((f) => path.relative(DIST, f)).join(" -> "))).toEqual([]);
  });

  it("load with require()", () => {
    const out = execFileSync(process.execPath, ["-e", `const g = require(${JSON.stringify(path.join(DIST, "host/index.js"))}); console.log(typeof g.custom_op.load, typeof g.nki.load)`], { encoding: "utf8" });
    expect(out.trim()).toBe("function function");
  });
});
