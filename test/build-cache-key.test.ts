// What decides that a cached library is rebuilt: besides its own sources, the
// kernel library, the C++ headers and the build step's own code. A library
// built by an older build step (say, before a pass changed how errors name
// lines) must not be reused: it once was, and errors named the wrong line.
import { describe, it, expect } from "vitest";
import { mkdtempSync, writeFileSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { treeHash } from "../dist/build/hash.js";
import { KERNEL_LIBRARY_DIRS } from "../dist/host/library/loader.js";

describe("the build cache key", () => {
  it("covers the kernel library, the C++ headers and the compiled build step", () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
    expect(KERNEL_LIBRARY_DIRS).toEqual([path.join(root, "assembly"), path.join(root, "include"), path.join(root, "dist", "build")]);
  });

  it("changes when any file of those folders changes, in a nested folder too, and only for the listed kinds of file", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gpsimd-key-"));
    mkdirSync(path.join(dir, "cpp"));
    writeFileSync(path.join(dir, "stop-polls.js"), "export const a = 1;");
    writeFileSync(path.join(dir, "cpp", "link.js"), "export const b = 1;");
    writeFileSync(path.join(dir, "notes.md"), "x");
    const key = () => treeHash([dir], [".js"]);
    const first = key();
    expect(key()).toBe(first); // stable
    writeFileSync(path.join(dir, "notes.md"), "y");
    expect(key()).toBe(first); // not a listed kind
    writeFileSync(path.join(dir, "cpp", "link.js"), "export const b = 2;");
    const second = key();
    expect(second).not.toBe(first);
    writeFileSync(path.join(dir, "stop-polls.js"), "export const a = 2;");
    expect(key()).not.toBe(second);
  });
});
