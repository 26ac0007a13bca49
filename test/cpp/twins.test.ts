// One implementation of the device API: the same bugs written in C++ and in
// AssemblyScript (test/fixtures/cpp/twins/bugs.cpp and bugs.ts) give the same error
// class, code and message; C++ kernels compute right (scalars, 2-d accessors,
// printf); their traps, and the errors the runtime raises for them (accessor,
// TCM, stream, coherence, printf), name the kernel and the .cpp line of the
// statement that made the call.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, GpsimdError, KernelTrapError, type Library } from "gpsimd";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fixturePath, TEST_BUILD_DIR, thrown, captureOutput, floats, STRICT, REPO } from "../helpers.js";

const twin = (file: string) => fixturePath("cpp/twins", file);
const load = (name: string, compute: string, register: string): Library => custom_op.load({
  name, compute_srcs: [twin(compute)], shape_srcs: [twin("shape.ts"), twin(register)], build_directory: TEST_BUILD_DIR, ...STRICT,
});
const cpp = load("twin_cpp", "bugs.cpp", "register-cpp.ts");
const as = load("twin_as", "bugs.ts", "register-as.ts");
afterAll(async () => {
  cpp.unload();
  as.unload();
  await shutdown();
});

/** Where a message names the kernel statement: " at fn (file:line:column)", or " at fn" where no line is known; each language names its own source. */
const PLACE = / at (\S+)(?: \(([^)]*)\))?$/;

/** The error an operator throws, its library's name and its source place taken out of the message (the place apart). */
function failure(lib: "twin_cpp" | "twin_as", op: string, ...args: unknown[]): { name: string; code: string; message: string; place: string | null } {
  const e = thrown(() => (ops[lib] as Record<string, (...a: unknown[]) => unknown>)[op](...args));
  expect(e, String(e)).toBeInstanceOf(GpsimdError);
  const err = e as GpsimdError;
  return { name: err.constructor.name, code: err.code, message: err.message.replaceAll(lib, "LIB").replace(PLACE, ""), place: PLACE.exec(err.message)?.[2] ?? null };
}

describe("the same bug in C++ and in AssemblyScript", () => {
  const input = () => tensor(Float32Array.from({ length: 12 }, (_, i) => i - 5), [12]);
  it.each([
    ["accessor_past_end", "E_ACCESSOR_INDEX"],
    ["tcm_copy_past_block", "E_TCM_RANGE"],
    ["free_foreign", "E_TCM_FREE_FOREIGN"],
    ["leak", "E_TCM_LEAK"],
    ["stream_past_end", "E_STREAM_END"],
    ["guard_overrun", "E_TCM_GUARD"],
    ["incoherent", "E_INCOHERENT"],
  ])("%s: the same error, code and message", (op, code) => {
    const { place: cppPlace, ...fromCpp } = failure("twin_cpp", op, input());
    const { place: asPlace, ...fromAs } = failure("twin_as", op, input());
    expect(fromCpp.code).toBe(code);
    expect(fromCpp).toEqual(fromAs);
    // Where both name a line, each names its own source file.
    if (asPlace && cppPlace) expect(cppPlace, `${op}: ${asPlace}`).toMatch(/bugs\.cpp:\d+:\d+$/);
  });
});

/** The line of the first line holding `statement` in C++ function `fn` of bugs.cpp (1-based). */
function lineIn(fn: string, statement: string): number {
  const lines = readFileSync(twin("bugs.cpp"), "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith(`torch::Tensor ${fn}(`));
  const at = lines.findIndex((l, i) => i > start && l.includes(statement));
  expect(start >= 0 && at > start, `${fn}: ${statement}`).toBe(true);
  return at + 1;
}

describe("an error the runtime raises for a C++ kernel names the kernel and the .cpp line of the statement that called", () => {
  const input = () => tensor(Float32Array.from({ length: 12 }, (_, i) => i - 5), [12]);
  it.each([
    ["accessor_past_end", "E_ACCESSOR_INDEX", "out[i] = in[i]"],
    ["tcm_copy_past_block", "E_TCM_RANGE", "tensor_to_tcm<float>(buf, 0, 8)"],
    ["free_foreign", "E_TCM_FREE_FOREIGN", "tcm_free(buf + 4)"],
    ["guard_overrun", "E_TCM_GUARD", "tcm_free(buf)"], // the guard bytes are checked when the block is freed
    ["stream_past_end", "E_STREAM_END", "out.write(in.read())"],
    ["incoherent", "E_INCOHERENT", "t_out.accessor<float, 1>()"],
    ["print_bad_string", "E_TRAP", "printf(\"name: %s\\n\""], // the runtime's read of the string traps
  ])("%s: %s", (op, code, statement) => {
    const e = thrown(() => (ops.twin_cpp as Record<string, (...a: unknown[]) => unknown>)[op](input()));
    expect(e, String(e)).toBeInstanceOf(GpsimdError);
    expect((e as GpsimdError).code).toBe(code);
    expect((e as Error).message).toMatch(new RegExp(` at ${op} \\(/.*/twins/bugs\\.cpp:${lineIn(op, statement)}:\\d+\\)$`));
  });
});

describe("C++ kernels", () => {
  it("take double and int64_t parameters, index 2-d accessors acc[i][j] and print with printf", () => {
    const x = tensor(Float32Array.from({ length: 6 }, (_, i) => i * 0.5), [2, 3]);
    const { result, printf } = captureOutput(() => ops.twin_cpp.scale(x, 3, 2n));
    expect(Array.from(floats(result as never))).toEqual(Array.from(floats(x), (v) => Math.fround(v * 3) + 2));
    expect(printf.join("")).toContain("scaled 2 x 3 by 3.00\n");
  });

  it("run on the core threads with .async, and load in another process with load_library", async () => {
    const x = tensor(Float32Array.from({ length: 6 }, (_, i) => i), [2, 3]);
    const sync = floats(captureOutput(() => ops.twin_cpp.scale(x, 2, 1n)).result as never);
    const { result } = captureOutput(() => ops.twin_cpp.scale.async(x, 2, 1n));
    expect(Array.from(floats(await result))).toEqual(Array.from(sync));
    const script = `import { custom_op, ops, tensor, setOutput } from ${JSON.stringify(path.join(REPO, "dist/host/index.js"))};
setOutput({ printf: () => {} });
custom_op.load_library(${JSON.stringify(path.join(TEST_BUILD_DIR, "libtwin_cpp.wasm"))});
console.log(JSON.stringify(ops.twin_cpp.scale(tensor(Float32Array.from([0, 1, 2, 3, 4, 5]), [2, 3]), 2, 1n).tolist()));
process.exit(0);`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    expect((JSON.parse(out.trim()) as number[][]).flat()).toEqual(Array.from(sync));
  });

  it("a trap names the .cpp line and column where it happened (inside an inlined function: divide's a / b)", () => {
    const e = thrown(() => ops.twin_cpp.trap(tensor(new Float32Array(4), [4]), 0n));
    expect(e).toBeInstanceOf(KernelTrapError);
    expect((e as Error).message).toMatch(/divide by zero/);
    expect((e as Error).message).toMatch(/\(\/.*\/twins\/bugs\.cpp:56:49\)$/);
  });
});
