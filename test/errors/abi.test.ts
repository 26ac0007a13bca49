// The kernel library (AssemblyScript) and the host (TypeScript) each keep a
// copy of the shared memory layout and of the violation codes: both copies
// must hold the same names with the same values.
import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO } from "../helpers.js";

/** `export const NAME[: type] = value;` declarations of a file, as name -> number. */
function constants(file: string): Map<string, number> {
  const text = readFileSync(path.join(REPO, file), "utf8");
  const found = new Map<string, number>();
  for (const m of text.matchAll(/^export const (\w+)(?:\s*:\s*\w+)?\s*=\s*([^;]+);/gm)) {
    const value = Number(m[2].trim());
    if (!Number.isFinite(value)) throw new Error(`${file}: ${m[1]} = ${m[2]} is not a number literal`);
    if (found.has(m[1])) throw new Error(`${file}: ${m[1]} is declared twice`);
    found.set(m[1], value);
  }
  return found;
}

/** Values that occur under more than one name (two codes with one number would be told apart by nothing). */
function duplicates(map: Map<string, number>, names: (name: string) => boolean): string[] {
  const seen = new Map<number, string>();
  const out: string[] = [];
  for (const [name, value] of map) {
    if (!names(name)) continue;
    if (seen.has(value)) out.push(`${seen.get(value)} and ${name} are both ${value}`);
    seen.set(value, name);
  }
  return out;
}

describe("the two copies of the shared numbers agree", () => {
  it("assembly/layout.ts and host/device/layout.ts: same names, same values", () => {
    const kernel = constants("assembly/layout.ts");
    const host = constants("host/device/layout.ts");
    expect(kernel.size).toBeGreaterThan(50);
    expect(Object.fromEntries(host)).toEqual(Object.fromEntries(kernel));
  });

  it("assembly/errors.ts and host/checks/error-codes.ts: same names, same values, no code used twice", () => {
    const kernel = constants("assembly/errors.ts");
    const host = constants("host/checks/error-codes.ts");
    expect(kernel.size).toBeGreaterThan(20);
    expect(Object.fromEntries(host)).toEqual(Object.fromEntries(kernel));
    expect(duplicates(kernel, (n) => n.startsWith("E_"))).toEqual([]);
    expect(duplicates(kernel, (n) => n.startsWith("KIND_"))).toEqual([]);
  });

  it("the kernel heap's private copy of E_HEAP_EXHAUSTED agrees", () => {
    const stub = readFileSync(path.join(REPO, "assembly/rt/stub.ts"), "utf8");
    const m = /const E_HEAP_EXHAUSTED: i32 = (\d+);/.exec(stub);
    expect(m, "assembly/rt/stub.ts declares E_HEAP_EXHAUSTED").not.toBeNull();
    expect(Number(m![1])).toBe(constants("host/checks/error-codes.ts").get("E_HEAP_EXHAUSTED"));
  });
});
