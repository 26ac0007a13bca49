// gpsimd build/run/check/profile on C++: an operator folder holding a C++ kernel (relu.cpp, shape.cpp calling
// NEURON_LIBRARY, reference.ts), the same .cpp files given directly, and the seeds' corrected giou.cpp checked
// against ops/giou/reference.ts as the README shows. The same messages as for AssemblyScript folders.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO, FIXTURES_DIR } from "../helpers.js";
import { gpsimd } from "./run-cli.js";

const FOLDER = path.join(FIXTURES_DIR, "cpp-cli", "relu_cpp");
/** Named like the folder, so the files build the same lib<name>.wasm as the folder (found up to date, not compiled again). */
const KERNEL = path.join(FOLDER, "relu_cpp.cpp");
const SHAPE = path.join(FOLDER, "shape.cpp");
let out: string;
let built: Awaited<ReturnType<typeof gpsimd>>;

beforeAll(async () => {
  out = mkdtempSync(path.join(tmpdir(), "gpsimd-cli-cpp-"));
  built = await gpsimd(["build", FOLDER, "--out", out]);
}, 300_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("gpsimd build on C++", () => {
  it("builds a C++ operator folder into lib<folder>.wasm and lists its operators with their .cpp lines", () => {
    expect(built.code).toBe(0);
    const file = path.join(out, "librelu_cpp.wasm");
    expect(existsSync(file)).toBe(true);
    const lines = built.stdout.split("\n");
    expect(lines[0]).toMatch(new RegExp(`^relu_cpp: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\([\\d.]+ KB, built in [\\d.]+ m?s\\)$`));
    expect(lines[1]).toBe(`  single core; kernels from ${path.relative(REPO, KERNEL)}`);
    expect(lines[2]).toBe(`  ops.cpp_cli_relu.relu_forward(torch::Tensor t_in)  kernel relu_forward (${path.relative(REPO, KERNEL)}:9)`);
    expect(lines[3]).toBe(`  ops.cpp_cli_relu.relu_planted(torch::Tensor t_in)  kernel relu_planted (${path.relative(REPO, KERNEL)}:23)`);
    // The compiler package's own "yowasp-llvm: fetched N%" lines stay out of the output.
    expect(built.stdout + built.stderr).not.toContain("yowasp-llvm");
  });

  it("the same .cpp files given directly make the same library (up to date: nothing compiled again)", async () => {
    const r = await gpsimd(["build", KERNEL, SHAPE, "--out", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`relu_cpp: ${path.join(out, "librelu_cpp.wasm")} (`);
    expect(r.stdout).toContain("up to date)");
  }, 120_000);

  it("a .cpp kernel without a shape source says what it needs", async () => {
    const r = await gpsimd(["build", KERNEL, "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("no shape source among the files: give the file that calls NEURON_LIBRARY (or name it with --shape)\n");
  });
});

describe("gpsimd run, check and profile on C++", () => {
  it("run calls the C++ kernel and summarises its output", async () => {
    const r = await gpsimd(["run", FOLDER, "relu_forward", "--shape", "3,5", "--values", "integers", "--out", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^cpp_cli_relu::relu_forward\(float32\[3, 5\]\)\noutput: float32\[3, 5\], 15 elements\n  min 0 /);
  }, 120_000);

  it("check passes the correct kernel against the folder's reference.ts", async () => {
    const r = await gpsimd(["check", FOLDER, "relu_forward", "--runs", "12", "--max-numel", "20000", "--out", out]);
    expect(r.stdout).toContain(`against reluForward (${path.join(FOLDER, "reference.ts")}): 12 cases`);
    expect(r.stdout).toContain("OK: 12 cases passed (seed 1)");
    expect(r.code).toBe(0);
  }, 120_000);

  it("check finds the planted bug, shrinks it to 7 elements and prints a rerun line that repeats the run", async () => {
    const r = await gpsimd(["check", KERNEL, SHAPE, "relu_planted", "--ref", path.join(FOLDER, "reference.ts"), "--runs", "20", "--max-numel", "20000", "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("FAIL cpp_cli_relu::relu_planted: smallest failing case");
    expect(r.stdout).toMatch(/t_in: float32\[7\], values/);
    expect(r.stdout).toMatch(/element 6 \(\[6\]\) is \S+, the reference says \S+; 1 of 7 elements differ/);
    const line = /rerun: gpsimd (.*)/.exec(r.stdout)![1];
    expect(line).toContain(`${KERNEL} ${SHAPE} relu_planted`);
    const again = await gpsimd(line.split(" "));
    expect(again.code).toBe(1);
    expect(again.stdout).toBe(r.stdout);
  }, 120_000);

  it("profile on the .cpp files prints its summary, with the C++ kernel's stream traffic, and writes the trace", async () => {
    const trace = path.join(out, "relu.trace.json");
    const r = await gpsimd(["profile", KERNEL, SHAPE, "relu_forward", "--shape", "4096", "--runs", "2", "--trace-runs", "1", "--trace", trace, "--out", out]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("profile cpp_cli_relu::relu_forward (single core)");
    expect(r.stdout).toMatch(/estimated device time on trn1/);
    expect(r.stdout).toMatch(/\n\s+0\s+host\s+.*4096\/4096/); // core 0 on the calling thread (a sync single-core call)
    expect(JSON.parse(readFileSync(trace, "utf8"))).toBeTruthy();
  }, 120_000);

  it("--multicore builds the files multicore: the kernel's stream accessors are then the multicore rule's error", async () => {
    const r = await gpsimd(["run", KERNEL, SHAPE, "relu_forward", "--multicore", "--shape", "64", "--out", path.join(out, "multicore")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("cpp_cli_relu::relu_forward(float32[64]) on 8 cores");
    expect(r.stderr).toMatch(/^MulticoreRuleError \[E_MULTICORE_ACCESSOR\]: cpp_cli_relu::relu_forward \(cores 0-7, alike; the details are core 0's\): read stream accessor on argument 0 't_in' \(float32\[64\]\) in a multicore kernel/);
  }, 120_000);

  it("--multicore or --cflag with a library built already is a usage error", async () => {
    const r = await gpsimd(["run", "relu_tcm", "relu_forward", "--multicore", "--shape", "4"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("--multicore: relu_tcm is built with its own options; give an operator folder or source files to build with --multicore\n");
  });

  it("mixing a library with source files is a usage error", async () => {
    const r = await gpsimd(["run", KERNEL, "relu_cpp.wasm", "relu_forward", "--out", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("relu_cpp.wasm is not a kernel or shape source (.ts, .cpp, .cc, .cxx)");
  });
});

describe("the seeds' C++ giou (examples/seeds-cpp/gpsimd.json), as the README checks it", () => {
  it("the corrected giou-fixed.cpp matches ops/giou/reference.ts; wider rows than TCM holds are named exactly", async () => {
    const seeds = path.join(REPO, "examples", "seeds-cpp");
    const check = (shape: string) => gpsimd(["check", seeds, "giou", "--variant", "giou_fixed", "--shape", shape, "--values", "boxes", "--max-numel", "100000", "--runs", "10", "--out", out]);
    const ok = await check("n,256,4");
    expect(ok.stdout).toContain(`against giou (${path.join(REPO, "ops", "giou", "reference.ts")}): 10 cases`);
    expect(ok.stdout).toContain("OK: 10 cases passed (seed 1)");
    expect(ok.code).toBe(0);
    // A row of b boxes needs 36*b bytes of TCM: from about 450 boxes, tcm_malloc returns null for the output buffer
    // (allocated last), and the first store through it is refused at its line, before anything lands in the null page.
    const wide = await check("n,b,4");
    expect(wide.code).toBe(1);
    expect(wide.stdout).toMatch(/the operator raised KernelTamperError \[E_FOREIGN_STORE\]: my_ops::giou \(core \d\): store of \d+ bytes at 0x0 into the null page/);
    const storeLine = readFileSync(path.join(seeds, "giou-fixed.cpp"), "utf8").split("\n").findIndex((l) => l.includes("tcm_output[j] = result;")) + 1;
    expect(wide.stdout).toContain(`giou-fixed.cpp:${storeLine}:`);
  }, 300_000);
});
