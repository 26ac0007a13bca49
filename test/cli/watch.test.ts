// gpsimd watch: a save reruns the command in the same process; a broken save shows the compiler's error at its
// line and the next good save recovers; Ctrl-C ends it with exit 0. With --verbose each result says where the time
// from the save went, stage by stage; a rebuild is at -O1, and gpsimd build then rebuilds the library at -O3. Driven as a user drives it: a child process,
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
  child = spawn(process.execPath, [CLI, "watch", "run", path.join(folder, "fill.ts"), path.join(folder, "shape.ts"), "fill", "--shape", "4", "--out", path.join(dir, "out"), "--verbose"], { cwd: dir });
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

  it("--verbose splits the time from the save: the settling, the build stage by stage at -O1, the rest", () => {
    const run = lastRun();
    expect(run).toContain("(fill rebuilt at -O1 for a quick rebuild, same checks; gpsimd build and custom_op.load build at -O3)");
    const lines = run.split("\n");
    const ms = (name: string) => {
      const line = lines.find((l) => l.trimStart().startsWith(name));
      expect(line, `a line for ${name} in:\n${run}`).toBeDefined();
      const [, value, unit] = /([\d.]+) (s|ms|µs)$/.exec(line!.trim())!;
      return Number(value) * (unit === "s" ? 1000 : unit === "µs" ? 1e-3 : 1);
    };
    const build = ms("build of fill on the compiler thread (-O1)");
    const stages = ["kernel signatures", "shape sources", "shape type-check", "ownership pass", "stop polls", "asc: parse", "asc: compile", "asc: optimize", "asc: emit", "build B: wait for the second thread", "relocate", "write library file", "between stages"];
    const staged = stages.reduce((n, s) => n + ms(s), 0);
    expect(staged).toBeLessThanOrEqual(build * 1.01 + 1); // the stages are parts of the build (durations are rounded)
    expect(ms("waiting for the save to settle")).toBeGreaterThanOrEqual(29);
    const total = ms("waiting for the save to settle") + ms("before the build") + build + ms("handing the build back") + ms("loading onto the cores");
    const [, value, unit] = /result ([\d.]+) (s|ms) after the save/.exec(run)!;
    expect(total).toBeCloseTo(Number(value) * (unit === "s" ? 1000 : 1), -1.5); // within about 15 ms of the result's time
  });

  it("a library watch rebuilt at -O1 is rebuilt at -O3 by gpsimd build", async () => {
    const r = await gpsimd(["build", path.join(folder, "fill.ts"), path.join(folder, "shape.ts"), "--out", path.join(dir, "out")], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/libfill\.wasm.*built in/);
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

  it("--optimize takes a level from 0 to 3; anything else is a command-line error (exit 2)", async () => {
    const r = await gpsimd(["watch", "run", "fill", "fill", "--shape", "4", "--optimize", "4"], dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("gpsimd watch: --optimize takes a Binaryen optimize level, 0 to 3; got 4");
  });

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
