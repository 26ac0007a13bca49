// Hostile C++ kernels (issue 24): what a kernel's source chooses (its symbols, its stack sizes) never buys it
// gpsimd's trust or another tensor's memory.
// - A function whose symbol takes the device runtime's naming (__asm__("~lib/gpsimd/...")) was instrumented as
//   runtime code in sanitize mode and could forge the context block's output write log: now the build refuses the
//   name, and the kernel's functions are all checked as the kernel's (a plain-named forger is a SanitizerError).
// - A variable-length array or alloca sized so that the stack pointer wraps (past 0 to a high address, a negative
//   size, a 64-bit size of 4 GB or more) ran silently, writing another tensor: now each is the "stack overflow" trap
//   at the VLA's line, and the next call works.
// - std::thread's abort showed libc++'s message with an unformatted %i; a build had a fixed 300 s deadline, and one
//   stopped at it left its temporary folders behind: now the deadline grows with the source (or build_timeout_ms
//   sets it) and a stopped build's temporary files are removed.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { custom_op, ops, tensor, shutdown, BuildError, SanitizerError, KernelTrapError, KernelAbortError, type Library } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, REPO, thrown } from "../helpers.js";
import { defaultBuildTimeoutMs } from "../../dist/host/library/compile-service.js";

const file = (name: string) => fixturePath("hostile", name);
const loadForge = (sanitize: boolean, extra_cflags: string[] = []): Library => custom_op.load({
  name: "hostile_forge", compute_srcs: [file("forge.cpp")], shape_srcs: [file("forge-register.ts")], build_directory: TEST_BUILD_DIR, sanitize, extra_cflags,
});
/** 1-based line of the first line of stack.cpp that holds `text`. */
const lineOf = (text: string) => readFileSync(file("stack.cpp"), "utf8").split("\n").findIndex((l) => l.includes(text)) + 1;

let stackLib: Library;
beforeAll(() => {
  stackLib = custom_op.load({ name: "hostile_stack", compute_srcs: [file("stack.cpp"), file("thread.cpp")], shape_srcs: [file("stack-register.ts")], build_directory: TEST_BUILD_DIR });
});
afterAll(async () => {
  stackLib?.unload();
  await shutdown();
});

describe("a C++ kernel that names a function as the device runtime's", () => {
  it("is refused at build time, naming the symbol (in sanitize mode it forged the output's write log)", () => {
    // The refusal does not depend on the mode (build-cpp.ts refuses before either mode's instrumentation); one build here.
    const e = thrown(() => loadForge(true, ["-DRUNTIME_LABEL"]));
    expect(e, String(e)).toBeInstanceOf(BuildError);
    expect((e as BuildError).message).toContain('the kernel defines function "~lib/gpsimd/tcm/evil_store32"');
    expect((e as BuildError).message).toContain("rename it");
  }, 120_000);

  it("in sanitize mode, every function of the kernel is checked as the kernel's: its store into the context block is refused", () => {
    const lib = loadForge(true);
    try {
      const e = thrown(() => ops.hostile_forge.forge(tensor(new Float32Array(4), [4])));
      expect(e, String(e)).toBeInstanceOf(SanitizerError);
      expect((e as SanitizerError).message).toContain("context block (the kernel library's bookkeeping), which the kernel may not write");
      expect((e as SanitizerError).details).toMatchObject({ access: "store", file: file("forge.cpp") });
    } finally {
      lib.unload();
    }
  }, 120_000);
});

describe("a C++ stack-pointer move that leaves the core's stack", () => {
  type Op = (t: unknown, n: bigint) => { tolist(): unknown };
  const op = (name: string) => (ops.hostile_stack as unknown as Record<string, Op>)[name];
  const x = () => tensor(new Float32Array(4), [4]);
  const vlaLine = () => lineOf("volatile char buf[bytes];");

  function expectOverflow(e: unknown, kernel: string, lines: number[]): void {
    expect(e, String(e)).toBeInstanceOf(KernelTrapError);
    const err = e as KernelTrapError;
    expect(err.code).toBe("E_TRAP");
    expect(err.message).toContain(`hostile_stack::${kernel} (core 0): trap: stack overflow: the C++ stack (65536 bytes) is full`);
    const at = /:(\d+):\d+\)$/.exec(err.message);
    expect(err.message).toContain(file("stack.cpp"));
    expect(lines, err.message).toContain(Number(at?.[1]));
  }

  it("a VLA whose size wraps the stack pointer past 0 to another tensor's address: stack overflow at the VLA's line, the tensor untouched", () => {
    const victim = tensor(new Float32Array(8).fill(1), [8]);
    expectOverflow(thrown(() => op("stack_vla_at")(x(), BigInt(victim.address))), "stack_vla_at", [vlaLine()]);
    expect(victim.tolist()).toEqual(Array(8).fill(1));
  });

  it("negative sizes, sizes that wrap the pointer, 64-bit sizes of 4 GB and more: each a stack overflow at its line; the next call works", () => {
    const sizes = [-16n, -64n, 0xFFFF_FFF0n, 1n << 32n, (1n << 32n) + 16n, 1n << 40n];
    for (const bytes of sizes) {
      expectOverflow(thrown(() => op("stack_vla")(x(), bytes)), "stack_vla", [vlaLine()]);
      // alloca's function is small enough for the optimiser to inline it into its caller: the line is the alloca's or the call's.
      expectOverflow(thrown(() => op("stack_alloca")(x(), bytes)), "stack_alloca", [lineOf("alloca((size_t)bytes)"), lineOf("with_alloca(bytes));")]);
    }
    expect(op("stack_vla")(x(), 16n).tolist()).toEqual([127, 127, 127, 127]);
    expect(op("stack_alloca")(x(), 100n).tolist()).toEqual([63, 63, 63, 63]);
  });
});

describe("std::thread in a kernel", () => {
  it("is a KernelAbortError with libc++'s message formatted, at the thread's line", () => {
    const e = thrown(() => (ops.hostile_stack as unknown as Record<string, (t: unknown) => unknown>).spawn_thread(tensor(new Float32Array(4), [4])));
    expect(e, String(e)).toBeInstanceOf(KernelAbortError);
    const message = (e as KernelAbortError).message;
    expect(message).toMatch(/abort: system_error was thrown in -fno-exceptions mode with error \d+ and message "thread constructor failed" at spawn_thread \(/);
    expect(message).not.toContain("%");
    const line = readFileSync(file("thread.cpp"), "utf8").split("\n").findIndex((l) => l.includes("std::thread t(")) + 1;
    expect(message).toContain(`${file("thread.cpp")}:${line}:`);
  });
});

describe("a build's deadline", () => {
  it("grows with the source: 300 s, plus 1 s per KB beyond 100 KB", () => {
    expect(defaultBuildTimeoutMs(2_000)).toBe(300_000);
    expect(defaultBuildTimeoutMs(100 * 1024)).toBe(300_000);
    expect(defaultBuildTimeoutMs(1024 * 1024)).toBe(300_000 + 924_000); // 10,000 functions of ~100 bytes: 20 minutes
  });

  it("build_timeout_ms sets it; a build stopped there is E_BUILD_TIMEOUT and leaves no temporary folder", () => {
    // A fresh process with its own temporary and cache folders: the device runtime is being compiled (in a temporary
    // folder) when the deadline passes.
    const work = mkdtempSync(path.join(tmpdir(), "gpsimd-hostile-deadline-"));
    try {
      const temp = path.join(work, "tmp");
      const script = path.join(work, "build.mjs");
      writeFileSync(script, `import { mkdirSync } from "node:fs";
mkdirSync(${JSON.stringify(temp)});
const { custom_op, shutdown } = await import(${JSON.stringify(path.join(REPO, "dist/host/index.js"))});
try {
  custom_op.load({ name: "hostile_stack", compute_srcs: [${JSON.stringify(file("stack.cpp"))}, ${JSON.stringify(file("thread.cpp"))}], shape_srcs: [${JSON.stringify(file("stack-register.ts"))}], build_directory: ${JSON.stringify(path.join(work, "out"))}, build_timeout_ms: 3000 });
  console.log("built");
} catch (e) {
  console.log(e.code, e.message);
}
await shutdown();`);
      const run = spawnSync(process.execPath, [script], { env: { ...process.env, TMPDIR: temp, GPSIMD_CACHE_DIR: path.join(work, "cache") }, encoding: "utf8", timeout: 120_000 });
      expect(run.stdout).toContain("E_BUILD_TIMEOUT building hostile_stack did not finish within 3 s; the compiler thread was stopped (allow more with custom_op.load's build_timeout_ms)");
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
