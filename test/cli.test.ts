// The gpsimd command line, run as a user runs it (the compiled dist/cli/gpsimd.js
// in a child process) on an operator folder made here: build, run, check with a
// right and a wrong reference, profile of W1 multicore as Chrome trace JSON,
// --help on every command, and the exit codes scripts rely on.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { execFile } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Rng } from "gpsimd";
import { REPO } from "./helpers.js";

const CLI = path.join(REPO, "dist", "cli", "gpsimd.js");

interface Result { code: number; stdout: string; stderr: string; }

/** Runs the CLI with args in cwd; resolves with its exit code and output (never rejects on a non-zero exit). */
function gpsimd(args: string[], cwd: string): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

let work: string;
let op: string;
let out: string;

// A single-core operator folder laid out like ops/<op>/: scale(x) = 2x through TCM in 1024-float chunks.
const FILES: Record<string, string> = {
  "kernel.ts": `import { Tensor, get_dst_tensor, tcm_malloc, tcm_free } from "gpsimd";

export function scale(t_in: Tensor): Tensor {
  const n = t_in.numel();
  const t_out = get_dst_tensor();
  const buf = tcm_malloc(1024 * sizeof<f32>());
  const src = t_in.tcm_accessor(), dst = t_out.tcm_accessor();
  for (let i: i64 = 0; i < n; i += 1024) {
    const m = min(n - i, 1024);
    src.tensor_to_tcm<f32>(buf, i, m);
    for (let j: i64 = 0; j < m; j++) store<f32>(buf + <usize>(j * 4), load<f32>(buf + <usize>(j * 4)) * 2);
    dst.tcm_to_tensor<f32>(buf, i, m);
  }
  tcm_free(buf);
  return t_out;
}
`,
  "shape.ts": `import { zeros, kFloat, type Tensor } from "gpsimd";
export function scale_shape(t_in: Tensor): Tensor { return zeros(t_in.sizes(), kFloat); }
`,
  "register.ts": `import { NEURON_LIBRARY } from "gpsimd";
import { scale_shape } from "./shape";
NEURON_LIBRARY("cli_scale", (m) => { m.def("scale", scale_shape, "scale"); });
`,
  "reference.ts": `export function scale(x: Float32Array): Float32Array { return x.map((v) => 2 * v); }
`,
  "wrong.ts": `// Forgets to scale element 7.
export function scale(x: Float32Array): Float32Array { return x.map((v, i) => (i === 7 ? v : 2 * v)); }
`,
};

// A kernel that does not compile: line 4 assigns a string to an i32.
const BROKEN: Record<string, string> = {
  "kernel.ts": `import { Tensor, get_dst_tensor } from "gpsimd";

export function broken(t_in: Tensor): Tensor {
  const n: i32 = "not a number";
  return get_dst_tensor();
}
`,
  "register.ts": `import { NEURON_LIBRARY, zeros, kFloat, type Tensor } from "gpsimd";
NEURON_LIBRARY("cli_broken", (m) => { m.def("broken", (t: Tensor) => zeros(t.sizes(), kFloat), "broken"); });
`,
};

function writeFolder(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
}

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "gpsimd-cli-"));
  op = path.join(work, "scale");
  out = path.join(work, "out");
  writeFolder(op, FILES);
  writeFolder(path.join(work, "broken"), BROKEN);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("gpsimd build", () => {
  it("builds an operator folder and says what it built, where, and its operators", async () => {
    const r = await gpsimd(["build", op, "--out", out], work);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("scale: out/libscale.wasm (");
    expect(r.stdout).toContain("single core; kernels from scale/kernel.ts");
    expect(r.stdout).toMatch(/ops\.cli_scale\.scale\(t_in: Tensor\)\s+kernel scale \(scale\/kernel\.ts:3\)/);
    const again = await gpsimd(["build", op, "--out", out], work);
    expect(again.stdout).toContain("up to date");
  }, 180_000);

  it("lists compile errors with file and line, exit code 3", async () => {
    const r = await gpsimd(["build", "broken", "--out", out], work);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("broken did not compile");
    expect(r.stderr).toMatch(new RegExp(`${path.join(work, "broken", "kernel.ts").replace(/[/\\.]/g, "\\$&")}:4:\\d+: error`));
  }, 180_000);
});

describe("gpsimd run", () => {
  it("calls the operator on seeded random inputs and prints the output's values", async () => {
    const r = await gpsimd(["run", path.join(out, "libscale.wasm"), "scale", "--shape", "3,5", "--seed", "2", "--show", "15"], work);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("cli_scale::scale(float32[3, 5])");
    expect(r.stdout).toContain("output: float32[3, 5], 15 elements");
    // The inputs are normal values from seed 2 * 1000 + 0 (the first parameter): the output is twice them.
    const x = new Float32Array(15);
    new Rng(2000).fillNormal(x);
    const printed = /first 15: \[([^\]]*)\]/.exec(r.stdout)![1].split(", ").map(Number);
    printed.forEach((v, i) => expect(v).toBeCloseTo(2 * x[i], 3));
  }, 120_000);
});

describe("gpsimd check", () => {
  it("passes against a right reference, over edge sizes, with the opcheck", async () => {
    const r = await gpsimd(["check", op, "scale", "--out", out, "--runs", "40"], work);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("against scale (");
    expect(r.stdout).toMatch(/1: yes, below 8: yes, not divisible by 8: yes, 65535: yes/);
    expect(r.stdout).toContain("opcheck: the shape function agreed");
    expect(r.stdout).toContain("OK: 40 cases passed (seed 1)");
  }, 180_000);

  it("fails against a wrong reference: exit 1, the shrunk case, the first mismatch and the core that wrote it", async () => {
    const r = await gpsimd(["check", path.join(out, "libscale.wasm"), "scale", "--ref", path.join(op, "wrong.ts"), "--runs", "40"], work);
    expect(r.code).toBe(1);
    // The smallest failing size is 8: element 7 is the first the wrong reference gets wrong.
    expect(r.stdout).toMatch(/FAIL cli_scale::scale: smallest failing case \(found after \d+ cases?, shrunk \d+ times?\):/);
    expect(r.stdout).toMatch(/t_in: float32\[8\], values \w+ \(seed \d+\)/);
    expect(r.stdout).toMatch(/element 7 \(\[7\]\) is \S+, the reference says \S+; 1 of 8 elements differ/);
    expect(r.stdout).toContain("element 7 was written by core 0");
  }, 180_000);
});

describe("gpsimd profile", () => {
  it("writes W1 multicore as Chrome trace JSON with 8 core lanes, and prints bytes, imbalance and the estimate", async () => {
    const file = path.join(work, "w1.trace.json");
    const r = await gpsimd(["profile", "giou_multicore", "giou", "--shape", "1024,256,4", "--values", "boxes", "--runs", "3", "--trace-runs", "1", "--trace", file], work);
    expect(r.code).toBe(0);
    const trace = JSON.parse(readFileSync(file, "utf8")) as { traceEvents: { name: string; ph: string; ts: number; pid: number; tid: number; dur?: number; args?: Record<string, number> }[] };
    for (const e of trace.traceEvents) {
      expect(typeof e.ph).toBe("string");
      expect(Number.isFinite(e.ts)).toBe(true);
      expect(Number.isInteger(e.pid)).toBe(true);
      expect(Number.isInteger(e.tid)).toBe(true);
    }
    const kernels = trace.traceEvents.filter((e) => e.name === "kernel" && e.ph === "X");
    expect(new Set(kernels.map((e) => e.tid))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
    // W1 on 8 cores: 128 rows each; a row is two 4 KB copies in (pred, target) and one 1 KB copy out.
    for (const k of kernels) {
      expect(k.dur).toBeGreaterThan(0);
      expect(k.args).toMatchObject({ tcmInBytes: 128 * 2 * 4096, tcmInCalls: 256, tcmOutBytes: 128 * 1024, tcmOutCalls: 128 });
    }
    const copiesIn = trace.traceEvents.filter((e) => e.name === "tensor_to_tcm");
    expect(copiesIn).toHaveLength(8 * 256);
    expect(copiesIn.every((e) => e.args!.bytes === 4096)).toBe(true);
    expect(r.stdout).toContain("profile giou_multicore::giou (multicore, 8 cores)");
    expect(r.stdout).toMatch(/estimated device time on trn1 \(GpSimd cost model, an estimate\): \S+ µs/);
    // W1 moves 9 MB through 3 x 128 DMA transfers per core: DMA-bound, balanced.
    expect(r.stdout).toMatch(/the slowest core's estimate: accessor 0\.00 µs, DMA\/TCM copy \S+ µs, compute \S+ µs: DMA-bound/);
    // The compute term from the instructions each core executed, by class.
    expect(r.stdout).toContain("compute from the kernel's executed instructions, counted per core");
    expect(r.stdout).toMatch(/executed kernel instructions per core:\n.*\n(?: +\d .*\n){8}/);
    expect(kernels.every((k) => (k.args!.instructions as unknown as Record<string, number>).vector > 0)).toBe(true);
    expect(r.stdout).toMatch(/load imbalance \(slowest \/ mean\): wall spans \d+\.\d\d, estimate 1\.00/);
    expect(r.stdout).toContain("bytes moved: 9.00 MB through TCM copies");
  }, 180_000);

  it("rejects a device the model does not know, as a usage error", async () => {
    const r = await gpsimd(["profile", "giou_multicore", "giou", "--shape", "8,4,4", "--device", "trn9"], work);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--device must be one of trn1, trn2, got trn9");
  }, 60_000);
});

describe("help and exit codes", () => {
  it("answers --help on every command", async () => {
    for (const command of ["build", "run", "check", "profile"]) {
      const r = await gpsimd([command, "--help"], work);
      expect(r.code).toBe(0);
      expect(r.stdout.startsWith(`usage: gpsimd ${command} `)).toBe(true);
      expect(r.stdout).toContain("exit codes:");
    }
    const top = await gpsimd(["--help"], work);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/commands:\n {2}build .*\n {2}run .*\n {2}check .*\n {2}profile /);
  }, 120_000);

  it("exits 2 on a bad command line and 4 on a library that does not exist", async () => {
    expect((await gpsimd(["frobnicate"], work)).code).toBe(2);
    const badOption = await gpsimd(["run", "relu_tcm", "relu_forward", "--colour"], work);
    expect(badOption.code).toBe(2);
    expect(badOption.stderr).toContain("--colour");
    const missing = await gpsimd(["run", "no_such_library", "op", "--shape", "4"], work);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("no library no_such_library");
  }, 120_000);
});
