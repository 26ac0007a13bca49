// gpsimd watch: a save reruns the command in the same process; a broken save shows the compiler's error at its
// line and the next good save recovers; Ctrl-C ends it with exit 0. Driven as a user drives it: a child process,
// files rewritten on disk, the printed output read back.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CLI, gpsimd } from "./run-cli.js";

const SHAPE = `import { NEURON_LIBRARY, zeros, kFloat, type Tensor } from "gpsimd";
export function fill_shape(t_in: Tensor): Tensor { return zeros(t_in.sizes(), kFloat); }
NEURON_LIBRARY("watch_fill", (m) => { m.def("fill", fill_shape, "fill"); });
`;

/** A kernel that writes `value` into every element of a 1-d output. */
function kernel(value: string): string {
  return `import { Tensor, zeros, kFloat } from "gpsimd";
export function fill(t_in: Tensor): Tensor {
  const t_out = zeros(t_in.sizes(), kFloat);
  const acc = t_out.accessor1<f32>();
  for (let i: i64 = 0; i < t_in.numel(); i++) acc[i] = ${value};
  return t_out;
}
`;
}

let dir: string;
let folder: string;
let child: ChildProcessWithoutNullStreams;
let stdout = "";

/** Waits until the output holds `count` run results (lines starting "── ok", "── failed", "── compile error"). */
async function results(count: number, timeoutMs = 120_000): Promise<string[]> {
  const start = Date.now();
  for (;;) {
    const found = stdout.split("\n").filter((l) => /^── (ok|failed|compile error|exit \d+):/.test(l));
    if (found.length >= count) return found;
    if (Date.now() - start > timeoutMs) throw new Error(`watch printed ${found.length} of ${count} results in ${timeoutMs} ms:\n${stdout}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The output of the newest run (from its header line on). */
function lastRun(): string {
  return stdout.slice(stdout.lastIndexOf("── gpsimd run"));
}

/** Saves the kernel as an editor does (a new file renamed over the old one), after a pause so the change is a separate save. */
async function save(text: string): Promise<void> {
  await new Promise((r) => setTimeout(r, 300));
  const file = path.join(folder, "fill.ts");
  writeFileSync(`${file}.tmp~`, text);
  const { renameSync } = await import("node:fs");
  renameSync(`${file}.tmp~`, file);
}

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "gpsimd-watch-"));
  folder = path.join(dir, "fill");
  mkdirSync(folder);
  writeFileSync(path.join(folder, "fill.ts"), kernel("1.5"));
  writeFileSync(path.join(folder, "shape.ts"), SHAPE);
  child = spawn(process.execPath, [CLI, "watch", "run", path.join(folder, "fill.ts"), path.join(folder, "shape.ts"), "fill", "--shape", "4", "--out", path.join(dir, "out")], { cwd: dir });
  child.stdout.on("data", (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on("data", (d: Buffer) => { stdout += d.toString(); });
});
afterAll(() => {
  child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe("gpsimd watch", () => {
  it("runs the command at start, then again after each save, with the new kernel's result", async () => {
    const [first] = await results(1);
    expect(first).toMatch(/^── ok: result .* after the start/);
    expect(lastRun()).toContain("first 4: [1.5000, 1.5000, 1.5000, 1.5000]");
    await save(kernel("2.25"));
    const second = (await results(2))[1];
    expect(second).toMatch(/^── ok: result .* after the save/);
    expect(lastRun()).toContain("(fill/fill.ts changed)");
    expect(lastRun()).toContain("first 4: [2.2500, 2.2500, 2.2500, 2.2500]");
  }, 300_000);

  it("a broken save shows the compiler's error at its line; the next good save recovers", async () => {
    await save(kernel("2.25").replace("acc[i] = 2.25;", "acc[i] = undefined_name;"));
    const third = (await results(3))[2];
    expect(third).toMatch(/^── compile error:/);
    expect(lastRun()).toMatch(/fill\.ts:5:\d+: error: Cannot find name 'undefined_name'/);
    await save(kernel("-3"));
    const fourth = (await results(4))[3];
    expect(fourth).toMatch(/^── ok:/);
    expect(lastRun()).toContain("first 4: [-3, -3, -3, -3]");
  }, 300_000);

  it("Ctrl-C ends the watch with exit code 0", async () => {
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  }, 30_000);

  it("a target that is neither a file nor a folder is a command-line error (exit 2), before anything runs", async () => {
    // "fill" is a folder in dir: the operator's name is not taken for a target to watch.
    const r = await gpsimd(["watch", "run", "no-such-folder", "fill", "--shape", "4"], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("gpsimd watch: no-such-folder is not a file or folder to watch");
  });

  it("--help describes the command", async () => {
    const r = await gpsimd(["watch", "--help"], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: gpsimd watch \[run\|check\|profile\]/);
  });
});
