// gpsimd watch with C++ kernels: a save rebuilds at -O1 (clang's own -O3 is unchanged; the merged module's
// optimisation is most of a C++ rebuild), the result is the new kernel's, and an error still names the kernel's
// .cpp line at that level; a save that does not compile names its line, and the next good save runs again (its
// Binaryen tools loaded after the builds before it: build/cpp/binaryen-tools.ts). The kernel is the API reference's negate through TCM (examples/seeds-cpp/negate-tcm.cpp).
import { it, expect, beforeAll, afterAll } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, renameSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CLI } from "./run-cli.js";

const SEEDS = path.join(import.meta.dirname, "..", "..", "examples", "seeds-cpp");
// The seed file is the API reference's body alone; a kernel file of one's own includes the header.
const KERNEL = `#include <torch/torch.h>\n${readFileSync(path.join(SEEDS, "negate-tcm.cpp"), "utf8")}`;
const COPY_IN = "t_in_tcm_acc.tensor_to_tcm<float>(tcm_buffer, i, copy_size);";

let dir: string;
let child: ChildProcessWithoutNullStreams;
let stdout = "";

/** Waits until the output holds `count` run results. */
async function results(count: number, timeoutMs = 240_000): Promise<string[]> {
  const start = Date.now();
  for (;;) {
    const found = stdout.split("\n").filter((l) => /^── (ok|failed|compile error|exit \d+):/.test(l));
    if (found.length >= count) return found;
    if (Date.now() - start > timeoutMs) throw new Error(`watch printed ${found.length} of ${count} results in ${timeoutMs} ms:\n${stdout}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function lastRun(): string {
  return stdout.slice(stdout.lastIndexOf("── gpsimd run"));
}

async function save(text: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  const file = path.join(dir, "negate-tcm.cpp");
  writeFileSync(`${file}.tmp~`, text);
  renameSync(`${file}.tmp~`, file);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "gpsimd-watch-cpp-"));
  writeFileSync(path.join(dir, "negate-tcm.cpp"), KERNEL);
  copyFileSync(path.join(SEEDS, "negate-shape.cpp"), path.join(dir, "negate-shape.cpp"));
  child = spawn(process.execPath, [CLI, "watch", "run", path.join(dir, "negate-tcm.cpp"), path.join(dir, "negate-shape.cpp"), "tensor_negate", "--shape", "2000", "--out", path.join(dir, "out"), "--verbose"], { cwd: dir });
  child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on("data", (d: Buffer) => { stdout += d.toString(); });
});
afterAll(() => {
  child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

it("a C++ save rebuilds at -O1 and runs the new kernel; a copy past the input names its .cpp line; the next good save recovers", async () => {
  const [first] = await results(1);
  expect(first).toMatch(/^── ok: /);
  expect(lastRun()).toContain("rebuilt at -O1 for a quick rebuild");
  // Below -O2 the optimiser runs on the kernel alone, before the merge (build/cpp/post-link.ts: optimisesKernelAlone).
  expect(lastRun()).toMatch(/optimise -O1 the kernel \(wasm-opt, build A\)/);
  expect(lastRun().indexOf("optimise -O1 the kernel (wasm-opt, build A)")).toBeLessThan(lastRun().indexOf("merge with the runtime (wasm-merge, build A)"));

  // One element more than the chunk: the last chunk's copy reads past the input's 2000 elements.
  expect(KERNEL).toContain(COPY_IN);
  await save(KERNEL.replace(COPY_IN, "t_in_tcm_acc.tensor_to_tcm<float>(tcm_buffer, i, copy_size + 1);"));
  const second = (await results(2))[1];
  expect(second).toMatch(/^── failed: /);
  const line = KERNEL.split("\n").findIndex((l) => l.includes(COPY_IN)) + 1;
  expect(lastRun()).toContain(`negate-tcm.cpp:${line}:`);

  await save(KERNEL);
  expect((await results(3))[2]).toMatch(/^── ok: /);
  // A body edit keeps the kernel's signature: the exports unit's object is the last build's (build/cpp/clang-driver.ts).
  expect(lastRun()).toContain("exports unit: unchanged, the last build's object");

  // A save that does not compile: clang's message at its line; the next good save builds and runs again, with
  // the tools the failed build left loaded.
  await save(KERNEL.replace(COPY_IN, "t_in_tcm_acc.tensor_to_tcm<float>(tcm_buffer, i, copy_size)"));
  expect((await results(4))[3]).toMatch(/^── compile error: /);
  expect(lastRun()).toMatch(new RegExp(`negate-tcm\\.cpp:${line}:\\d+: error: `));
  await save(KERNEL);
  expect((await results(5))[4]).toMatch(/^── ok: /);
}, 600_000);
