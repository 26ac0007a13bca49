// --json: one verdict on stdout per invocation, valid against the shipped schema, with the error's fields;
// the seed's buggy GIOU kernel gives the same JSON on 1, 2 and 8 threads and across reruns.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, FIXTURES_DIR } from "../helpers.js";
import { gpsimd } from "./run-cli.js";
import { validate } from "../verdict/json-schema.js";

const SCHEMA = JSON.parse(readFileSync(path.join(REPO, "schema", "verdict.schema.json"), "utf8")) as Record<string, unknown>;
const TWINS = ["bugs.ts", "register-as.ts", "shape.ts"].map((f) => path.join(FIXTURES_DIR, "cpp", "twins", f));
// The seed's kernel runs on every core (--multicore), as the blog launched it.
const SEED = [...["giou-multicore.ts", "giou-multicore-register.ts"].map((f) => path.join(REPO, "examples", "seeds", f)), "--multicore"];
const GIOU_REF = path.join(REPO, "ops", "giou", "reference.ts");
let out: string, cwd: string;

/** Runs a command with --json from a scratch folder; returns its exit code and parsed, schema-checked verdict. */
async function verdict(...args: string[]): Promise<{ code: number; v: Record<string, any>; stderr: string }> {
  const r = await gpsimd([...args, "--out", out, "--json"], cwd);
  const v = JSON.parse(r.stdout) as Record<string, any>;
  expect(validate(SCHEMA, v)).toEqual([]);
  expect(v.exitCode).toBe(r.code);
  return { code: r.code, v, stderr: r.stderr };
}

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), "gpsimd-json-out-"));
  cwd = mkdtempSync(path.join(tmpdir(), "gpsimd-json-cwd-"));
  const [twins, seed] = await Promise.all([verdict("build", ...TWINS), verdict("build", ...SEED)]);
  expect(twins.code).toBe(0);
  expect(seed.code).toBe(0);
  expect(twins.v.build.libraries[0].ops.map((o: { op: string }) => o.op)).toContain("twin_as::accessor_past_end");
}, 240_000);
afterAll(() => { rmSync(out, { recursive: true, force: true }); rmSync(cwd, { recursive: true, force: true }); });

describe("gpsimd run --json", () => {
  it.each([
    ["accessor_past_end", { class: "AccessorIndexError", code: "E_ACCESSOR_INDEX", core: 0, tensor: "argument 0 't_in' (float32[4])", index: [4, 4], allowed: [0, 3], line: 8 }],
    ["tcm_copy_past_block", { class: "TensorRangeError", code: "E_TENSOR_RANGE", index: [0, 7], allowed: [0, 3], line: 15 }],
    ["stream_past_end", { class: "StreamAccessorError", code: "E_STREAM_END", index: [4, 4], allowed: [0, 3] }],
    ["guard_overrun", { class: "TcmGuardError", code: "E_TCM_GUARD", index: [16, 16], allowed: [0, 15], location: { space: "tcm" } }],
    ["free_foreign", { class: "TcmFreeError", code: "E_TCM_FREE_FOREIGN", location: { space: "tcm" } }],
    ["incoherent", { class: "CoherenceError", code: "E_INCOHERENT" }],
  ])("%s: the error's class, code, core, tensor, ranges and place", async (op, expected) => {
    const { code, v, stderr } = await verdict("run", ...TWINS, op, "--shape", "4");
    expect(code).toBe(1);
    expect(v).toMatchObject({ schema: "gpsimd-verdict", version: 1, command: "run", verdict: "error", target: { op: `twin_as::${op}` } });
    expect(v.errors).toHaveLength(1);
    expect(v.errors[0]).toMatchObject({ op: `twin_as::${op}`, file: TWINS[0], function: op, ...expected });
    expect(stderr).toContain(v.errors[0].message); // the human output still goes to stderr
  });

  it("a TCM leak is a warning with its place, beside the unwritten output it caused", async () => {
    const { v } = await verdict("run", ...TWINS, "leak", "--shape", "4");
    expect(v.warnings).toEqual([expect.objectContaining({ class: "Warning", code: "E_TCM_LEAK", op: "twin_as::leak", core: 0, file: TWINS[0], function: "leak" })]);
    expect(v.errors[0]).toMatchObject({ class: "UnwrittenOutputError", index: [0, 3] });
  });

  it("a usage error is a verdict too (exit 2)", async () => {
    const { code, v } = await verdict("run", ...TWINS, "accessor_past_end", "--shape", "4", "--threads", "0");
    expect(code).toBe(2);
    expect(v.errors[0]).toMatchObject({ class: "UsageError", code: "E_USAGE" });
  });
});

describe("gpsimd build --json", () => {
  it("a compile error is a BuildError with the file, line and column of the first error (exit 3)", async () => {
    const dir = mkdtempSync(path.join(cwd, "bad-"));
    writeFileSync(path.join(dir, "bad.ts"), 'import { Tensor, get_dst_tensor } from "gpsimd";\nexport function k(t: Tensor): Tensor {\n  const o = get_dst_tensor();\n  oops;\n  return o;\n}\n');
    writeFileSync(path.join(dir, "register.ts"), 'import { NEURON_LIBRARY, zeros, kFloat, type Tensor } from "gpsimd";\nNEURON_LIBRARY("bad", (m) => { m.def("k", (t: Tensor) => zeros(t.sizes(), kFloat), "k"); });\n');
    const { code, v } = await verdict("build", path.join(dir, "bad.ts"), path.join(dir, "register.ts"));
    expect(code).toBe(3);
    expect(v.errors).toEqual([expect.objectContaining({ class: "BuildError", code: "E_BUILD", file: path.join(dir, "bad.ts"), line: 4, column: 3 })]);
  });
});

describe("the seed's buggy GIOU kernel gives the same JSON on 1, 2 and 8 threads and on a rerun", () => {
  /** The verdict without its wall-clock figures (the only fields allowed to differ). */
  const stable = (v: Record<string, unknown>) => JSON.stringify({ ...v, timing: undefined });

  it("run", async () => {
    const runs = await Promise.all(["1", "2", "8", "8"].map((t) => verdict("run", ...SEED, "giou", "--shape", "64,8,4", "--values", "boxes", "--threads", t)));
    expect(runs[0].v.verdict).not.toBe("ok");
    expect([...runs[0].v.errors, ...runs[0].v.warnings].length).toBeGreaterThan(0);
    for (const r of runs.slice(1)) expect(stable(r.v)).toBe(stable(runs[0].v));
  });

  it("check: the shrunk failing case, counts and error are the same", async () => {
    const checks = await Promise.all(["1", "2", "8", "8"].map((t) => verdict("check", ...SEED, "giou", "--ref", GIOU_REF, "--shape", "n,b,4", "--values", "boxes", "--runs", "10", "--threads", t, "--save-repro", path.join(cwd, `bundle-${t}-${Math.random()}`))));
    const c = checks[0].v;
    expect(c.verdict).toBe("error");
    expect(c.check).toMatchObject({ runs: 10, seed: 1, failed: 1, failingCase: { dims: { n: expect.any(Number), b: expect.any(Number) } } });
    expect(c.check.failingCase.arguments.map((a: { name: string }) => a.name)).toEqual(["t_pred", "t_target"]);
    for (const r of checks.slice(1)) expect(stable(r.v)).toBe(stable(c));
  });
});

describe("gpsimd profile --json", () => {
  it("gives per-core figures (the shipped, fixed GIOU on 8 cores)", async () => {
    const { code, v } = await verdict("profile", "giou_multicore", "giou", "--shape", "64,8,4", "--values", "boxes", "--runs", "1", "--trace-runs", "1", "--no-count", "--trace", path.join(cwd, "t.json"));
    expect(code).toBe(0);
    expect(v.profile.cores).toHaveLength(8);
    expect(v.profile.cores.map((c: { core: number }) => c.core)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // 64 rows of 8 boxes on 8 cores: each core copies its 8 rows of both inputs in (2 x 8 x 8 x 4 floats) and 8 x 8 floats out.
    for (const c of v.profile.cores) expect(c.counters).toMatchObject({ tcmInBytes: 2048, tcmOutBytes: 256 });
    expect(v.timing.wallMedianMs).toBeGreaterThan(0);
  });
});

describe("NKI kernel files (.py) --json", () => {
  const ADD = path.join(REPO, "examples", "seeds-nki", "tensor_add.py");
  // The seed assumes sizes that tile by [128, 512]: 200 rows leave instance [1, 0] loading rows 128..255.
  const ADD_ARGS = ["--kernel", "nki_tensor_add_kernel_", "--grid", "2,1", "--arg", "a=randn:200,512", "--arg", "b=randn:200,512"];
  const nki = async (...args: string[]) => {
    const r = await gpsimd([...args, "--json"], cwd);
    const v = JSON.parse(r.stdout) as Record<string, any>;
    expect(validate(SCHEMA, v)).toEqual([]);
    return { code: r.code, v };
  };

  it("run: the HBM access names the kernel, SPMD instance, tensor, ranges and line, the same on 1, 2 and 8 threads", async () => {
    const runs = await Promise.all(["1", "2", "8"].map((t) => nki("run", ADD, ...ADD_ARGS, "--threads", t)));
    expect(runs[0].code).toBe(1);
    expect(runs[0].v.errors).toEqual([expect.objectContaining({
      class: "HbmAccessError", code: "E_NKI_HBM_RANGE", kernel: "nki_tensor_add_kernel_", instance: [1, 0], tensor: "a_input",
      location: { space: "hbm", name: "a_input", dim: 0 }, index: [128, 255], allowed: [0, 199], file: ADD, line: 31, column: 12,
    })]);
    for (const r of runs.slice(1)) expect(JSON.stringify(r.v)).toBe(JSON.stringify(runs[0].v));
  });

  it("profile: per SPMD instance, the model's time and instructions per engine, the same on 1 and 2 threads", async () => {
    const args = ["profile", ADD, "--kernel", "nki_tensor_add_kernel_", "--grid", "2,2", "--arg", "a=randn:256,1024", "--arg", "b=randn:256,1024", "--runs", "1"];
    const [one, two] = await Promise.all(["1", "2"].map((t) => nki(...args, "--threads", t)));
    expect(one.code).toBe(0);
    expect(one.v.profile.instances.map((i: { instance: number[] }) => i.instance)).toEqual([[0, 0], [0, 1], [1, 0], [1, 1]]);
    // Each instance loads two [128, 512] tiles, adds them once and stores one: 3 DMA transfers and 1 Vector instruction.
    for (const i of one.v.profile.instances) expect(i.counts).toMatchObject({ DMA: 3, Vector: 1, Tensor: 0 });
    expect(JSON.stringify(two.v.profile)).toBe(JSON.stringify(one.v.profile));
  });

  it("check: a wrong reference is a mismatch with the check's counts", async () => {
    const ref = path.join(cwd, "add-off-by-one.ts");
    writeFileSync(ref, "export function nki_tensor_add_kernel_(a: Float32Array, b: Float32Array) { return a.map((x, i) => x + b[i] + (i === 5 ? 1 : 0)); }\n");
    const { code, v } = await nki("check", ADD, "--kernel", "nki_tensor_add_kernel_", "--grid", "2,2", "--arg", "a=randn:256,1024", "--arg", "b=randn:256,1024", "--ref", ref, "--runs", "2", "--save-repro", path.join(cwd, "nki-bundle"));
    expect(code).toBe(1);
    expect(v.check).toMatchObject({ runs: 2, seed: 0, compared: 0, failed: 1 });
    expect(v.errors).toEqual([expect.objectContaining({ class: "CheckFailure", code: "E_CHECK_MISMATCH", kernel: "nki_tensor_add_kernel_", index: [5, 5] })]);
    expect(v.outputs[0]).toMatchObject({ name: "returned", dtype: "float32", sizes: [256, 1024] });
    // The bundle holds the .py file and the reference, and replays to the same verdict and output hash.
    const replay = await gpsimd(["replay", path.join(cwd, "nki-bundle")], cwd);
    expect(replay.stdout).toContain("SAME");
    expect(replay.code).toBe(0);
  });
});
