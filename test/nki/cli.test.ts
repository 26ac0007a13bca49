// gpsimd run / check / profile on NKI kernel files, run as a user runs them
// (the compiled CLI in a child process): the seed's tensor add on a grid, a
// right and a wrong TypeScript reference, per-instance timings, --help, and
// the exit codes scripts rely on.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gpsimd } from "../cli/run-cli.js";
import { REPO } from "../helpers.js";

const ADD = path.join(REPO, "examples", "seeds-nki", "tensor_add.py");
const AVGPOOL = path.join(REPO, "examples", "seeds-nki", "avgpool.py");
let work: string;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), "gpsimd-nki-cli-"));
  writeFileSync(path.join(work, "add-ref.ts"), "export function reference(a: Float32Array, b: Float32Array): Float32Array {\n  return a.map((v, i) => v + b[i]);\n}\n");
  writeFileSync(path.join(work, "wrong-ref.ts"), "export function reference(a: Float32Array, b: Float32Array): Float32Array {\n  return a.map((v, i) => i === 1000 ? v - b[i] : v + b[i]);\n}\n");
  writeFileSync(path.join(work, "pool-ref.ts"), [
    "export function reference(x: Float32Array, shapes: number[][], kwargs: { pool_size: number }): Float32Array {",
    "  const [[c, h, w]] = shapes, p = kwargs.pool_size, out = new Float32Array(c * (h / p) * (w / p));",
    "  for (let k = 0; k < c; k++) for (let i = 0; i < h / p; i++) for (let j = 0; j < w / p; j++) {",
    "    let s = 0;",
    "    for (let di = 0; di < p; di++) for (let dj = 0; dj < p; dj++) s += x[k * h * w + (i * p + di) * w + j * p + dj];",
    "    out[k * (h / p) * (w / p) + i * (w / p) + j] = s / (p * p);",
    "  }",
    "  return out;",
    "}",
  ].join("\n"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ADD_ARGS = ["--kernel", "nki_tensor_add_kernel_", "--grid", "2,2", "--arg", "a=randn:256,1024", "--arg", "b=randn:256,1024"];

describe("gpsimd run, check and profile on an NKI file", () => {
  it("run prints the call and a summary of the returned tensor", async () => {
    const r = await gpsimd(["run", ADD, ...ADD_ARGS]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("nki_tensor_add_kernel_[2, 2](a=float32[256, 1024], b=float32[256, 1024])");
    expect(r.stdout).toMatch(/returned: float32\[256, 1024\], 262144 elements/);
    expect(r.stdout).toMatch(/wall time/);
  });

  it("check agrees with a right reference and names the element a wrong one disagrees on", async () => {
    const ok = await gpsimd(["check", ADD, ...ADD_ARGS, "--ref", path.join(work, "add-ref.ts"), "--runs", "2"]);
    expect(ok.stdout).toContain("OK: 2 runs agreed with the reference");
    expect(ok.code).toBe(0);
    const bad = await gpsimd(["check", ADD, ...ADD_ARGS, "--ref", path.join(work, "wrong-ref.ts"), "--runs", "1"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/FAIL .*element 1000 \(\[0, 1000\]\)/);
  });

  it("check passes keyword arguments to the kernel and the reference", async () => {
    const r = await gpsimd(["check", AVGPOOL, "--arg", "x=randn:4,8,8", "--kwarg", "pool_size=2", "--ref", path.join(work, "pool-ref.ts"), "--runs", "1"]);
    expect(r.stdout).toContain("OK: 1 run agreed");
    expect(r.code).toBe(0);
  });

  it("profile prints the wall time of the calls and of each instance", async () => {
    const r = await gpsimd(["profile", ADD, ...ADD_ARGS, "--runs", "2", "--threads", "2"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/wall time on this machine: median/);
    for (const instance of ["[0, 0]", "[0, 1]", "[1, 0]", "[1, 1]"]) expect(r.stdout).toContain(instance);
  });

  it("--no-checks turns the NKI checks off for run and profile (the estimate included) on every thread", async () => {
    const racy = path.join(work, "racy.py");
    writeFileSync(racy, [
      "import neuronxcc.nki as nki", "import neuronxcc.nki.language as nl", "", "@nki.jit", "def racy(x):",
      "    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)", "    i = nl.program_id(0)",
      "    acc = nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]])",
      "    for j in nl.affine_range(2):",
      "        acc[...] = nl.multiply(acc, nl.load(x[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]]))",
      "    nl.store(out[i * 128 + nl.arange(128)[:, None], nl.arange(64)[None, :]], value=acc)", "    return out", "",
    ].join("\n"));
    const args = ["--grid", "4", "--arg", "x=randn:512,64", "--threads", "2"];
    const checked = await gpsimd(["run", racy, ...args]);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/NkiRaceError/);
    const run = await gpsimd(["run", racy, ...args, "--no-checks"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const profile = await gpsimd(["profile", racy, ...args, "--no-checks", "--runs", "1"]);
    expect(profile.code).toBe(0);
    expect(profile.stdout).toMatch(/estimated time on a NeuronCore-v2/);
  });

  it("--help describes the NKI form of each command", async () => {
    for (const command of ["run", "check", "profile"]) {
      const r = await gpsimd([command, ADD, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`usage: gpsimd ${command} <file.py>`);
      expect(r.stdout).toContain("--grid G");
    }
  });

  it("exit codes: 2 for a bad command line, 4 for a kernel the file lacks, 1 for a kernel error", async () => {
    expect((await gpsimd(["run", ADD, ...ADD_ARGS, "--grid", "0,2"])).code).toBe(2);
    expect((await gpsimd(["run", ADD, "--arg", "a=bogus:1"])).code).toBe(2);
    const missing = await gpsimd(["run", ADD, "--kernel", "nope", "--arg", "a=randn:2"]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("nki_tensor_add_kernel_");
    // 100 rows do not tile into 128-partition loads: the kernel reads past the tensor.
    const failed = await gpsimd(["run", ADD, "--kernel", "nki_tensor_add_kernel_", "--grid", "1,1", "--arg", "randn:100,512", "--arg", "randn:100,512"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/HbmAccessError/);
  });
});
