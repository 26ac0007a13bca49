// custom_op.load({ verbose: true }) shows progress while a build takes more than a second: the main thread is
// blocked waiting for the compiler thread, so the lines are written synchronously between waits. Run in a
// fresh process (its first build starts the compiler, several seconds), with stderr a pipe: plain lines.
import { describe, it, expect } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, fixturePath } from "./helpers.js";

describe("build progress", () => {
  it("prints a line after the first second of a build, with verbose", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-progress-"));
    const script = `
      import { custom_op, shutdown } from ${JSON.stringify(path.join(REPO, "dist", "host", "index.js"))};
      custom_op.load({ name: "tools_fixtures", compute_srcs: [${JSON.stringify(fixturePath("tools", "kernels.ts"))}],
        shape_srcs: [${JSON.stringify(fixturePath("tools", "register.ts"))}], build_directory: ${JSON.stringify(dir)}, verbose: true, force: true });
      await shutdown();`;
    const stderr = await new Promise<string>((resolve) => {
      const file = path.join(dir, "load.mjs");
      writeFileSync(file, script);
      execFile(process.execPath, [file], { cwd: REPO }, (_e, _out, err) => resolve(err));
    });
    rmSync(dir, { recursive: true, force: true });
    const lines = stderr.trim().split("\n");
    expect(lines[0]).toMatch(/^gpsimd: building .*libtools_fixtures\.wasm from 2 sources$/);
    expect(lines[1]).toBe("gpsimd: still building tools_fixtures: 1 s (compiling the kernels to WebAssembly)");
    expect(lines[lines.length - 1]).toMatch(/^gpsimd: built .*libtools_fixtures\.wasm in \d+ ms$/);
    // One line at 1 s, then one every 5 s.
    const seconds = lines.slice(1, -1).map((l) => Number(/^gpsimd: still building tools_fixtures: (\d+) s \(/.exec(l)![1]));
    expect(seconds).toEqual(seconds.map((_, i) => 1 + 5 * i));
  }, 120_000);
});
