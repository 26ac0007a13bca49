// Binaryen's tools run in processes loaded ahead of their run (build/cpp/binaryen-tools.ts): a loaded process must
// give what a spawned tool gives, byte for byte and error for error, fall back to spawning when the loaded one is
// gone, and never keep a process up that has nothing else to do.
import { describe, it, expect, afterAll } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import binaryen from "binaryen";
import { idleToolPids, idleToolsLoaded, prepareBinaryenTools, runBinaryenTool, type BinaryenTool } from "../../build/cpp/binaryen-tools.js";

const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-binaryen-tools-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string) => path.join(dir, name);

/** A module with work for -O1 (a constant sum to fold, a dead block), a call to an import and a function to merge. */
function module(text: string): Uint8Array {
  const m = binaryen.parseText(text);
  try { return m.emitBinary(); } finally { m.dispose(); }
}
writeFileSync(file("kernel.wasm"), module(`(module
  (import "lib" "twice" (func $twice (param i32) (result i32)))
  (func $f (export "f") (param i32) (result i32)
    (block $dead (br $dead) (drop (i32.const 7)))
    (call $twice (i32.add (local.get 0) (i32.add (i32.const 2) (i32.const 3))))))`));
writeFileSync(file("lib.wasm"), module(`(module (func $twice (export "twice") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2))))`));
writeFileSync(file("broken.wasm"), "not a wasm module");

/** Starts one loaded process of `tool` and waits until it has loaded; its pid. */
async function loadedOne(tool: BinaryenTool): Promise<number> {
  prepareBinaryenTools({ [tool]: 1 });
  await idleToolsLoaded(tool);
  const [pid] = idleToolPids(tool);
  expect(pid).toBeGreaterThan(0);
  return pid;
}

describe("Binaryen tools in loaded processes", () => {
  it("give the same output as spawned tools (wasm-opt, wasm-merge, wasm-dis), and each loaded process runs once", async () => {
    await loadedOne("wasm-opt");
    await runBinaryenTool("wasm-opt", [file("kernel.wasm"), "-O1", "-o", file("opt-warm.wasm")]);
    expect(idleToolPids("wasm-opt")).toEqual([]); // taken, not started again (only gpsimd watch's thread loads ahead)
    await runBinaryenTool("wasm-opt", [file("kernel.wasm"), "-O1", "-o", file("opt-spawned.wasm")], { warm: false });
    const optimised = readFileSync(file("opt-warm.wasm"));
    expect(optimised.equals(readFileSync(file("opt-spawned.wasm")))).toBe(true);
    expect(optimised.length).toBeLessThan(readFileSync(file("kernel.wasm")).length); // -O1 did work

    await loadedOne("wasm-merge");
    const mergeArgs = (out: string) => [file("lib.wasm"), "lib", file("kernel.wasm"), "kernel", "-o", file(out)];
    await runBinaryenTool("wasm-merge", mergeArgs("merged-warm.wasm"));
    await runBinaryenTool("wasm-merge", mergeArgs("merged-spawned.wasm"), { warm: false });
    expect(readFileSync(file("merged-warm.wasm")).equals(readFileSync(file("merged-spawned.wasm")))).toBe(true);

    await loadedOne("wasm-dis");
    const warm = await runBinaryenTool("wasm-dis", [file("merged-warm.wasm")]);
    const spawned = await runBinaryenTool("wasm-dis", [file("merged-warm.wasm")], { warm: false });
    expect(warm.stdout).toBe(spawned.stdout);
    expect(warm.stdout).toMatch(/\(export "twice"/);
    expect(warm.stdout).not.toMatch(/\(import "lib"/); // the merge resolved the import with the library's function
  }, 120_000);

  it("fail as the spawned tool fails: the same message, with the tool's stderr", async () => {
    await loadedOne("wasm-opt");
    const args = [file("broken.wasm"), "-O1", "-o", file("never.wasm")];
    const warm = await runBinaryenTool("wasm-opt", args).then(() => null, (e: Error) => e);
    const spawned = await runBinaryenTool("wasm-opt", args, { warm: false }).then(() => null, (e: Error) => e);
    expect(spawned?.message).toMatch(/^Command failed: .*wasm-opt .*broken\.wasm/);
    expect(spawned?.message).toMatch(/Fatal: /); // Binaryen's own message, from its stderr
    expect(warm?.message).toBe(spawned?.message);
    expect((warm as Error & { stderr?: string })?.stderr).toBe((spawned as Error & { stderr?: string })?.stderr);
  }, 120_000);

  it("spawn the tool when the loaded process ended before its run", async () => {
    const pid = await loadedOne("wasm-opt");
    process.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 200));
    await runBinaryenTool("wasm-opt", [file("kernel.wasm"), "-O1", "-o", file("after-kill.wasm")]);
    expect(readFileSync(file("after-kill.wasm")).equals(readFileSync(file("opt-spawned.wasm")))).toBe(true);
  }, 120_000);

  it("after a build in gpsimd watch, stop loading the next build's tools when one fails to load", async () => {
    // A compiler thread as gpsimd watch's (keepBinaryenToolsWarm) whose tool processes cannot start: Node refuses
    // the NODE_OPTIONS they inherit. The loading goes one process at a time and must stop at the first failure.
    const entry = pathToFileURL(path.join(import.meta.dirname, "..", "..", "dist", "build", "cpp", "binaryen-tools.js")).href;
    const code = `const { parentPort } = require("node:worker_threads");
process.env.NODE_OPTIONS = "--no-such-node-option"; // this thread's copy of the environment, which forks inherit
import(${JSON.stringify(entry)}).then(async (m) => {
  m.prepareNextBuildTools();
  await new Promise((r) => setTimeout(r, 3000));
  parentPort.postMessage(m.toolProcessesStarted());
});`;
    const worker = new Worker(code, { eval: true, workerData: { keepBinaryenToolsWarm: true } });
    const started = await new Promise<number>((resolve, reject) => { worker.once("message", resolve); worker.once("error", reject); });
    await worker.terminate();
    expect(started).toBe(1);
  }, 60_000);

  it("keep no process up: a process that only loaded tools ends, and its loaded tools end with it", async () => {
    const entry = pathToFileURL(path.join(import.meta.dirname, "..", "..", "dist", "build", "cpp", "binaryen-tools.js")).href;
    // Loading keeps no process up either: the script holds itself up with a timer until they have loaded.
    const script = `const m = await import(${JSON.stringify(entry)});
m.prepareBinaryenTools({ "wasm-opt": 1, "wasm-dis": 1 });
const hold = setInterval(() => {}, 1000);
await m.idleToolsLoaded("wasm-opt"); await m.idleToolsLoaded("wasm-dis");
clearInterval(hold);
console.log(JSON.stringify([...m.idleToolPids("wasm-opt"), ...m.idleToolPids("wasm-dis")]));`;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ["--input-type=module", "-e", script], { timeout: 60_000 }, (e, out) => (e ? reject(e) : resolve(out)));
    });
    const pids = JSON.parse(stdout) as number[];
    expect(pids).toHaveLength(2);
    const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
    for (let i = 0; i < 100 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(pids.filter(alive)).toEqual([]);
  }, 120_000);
});
