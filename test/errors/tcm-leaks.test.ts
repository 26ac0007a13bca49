// A TCM block still allocated when the kernel returns names the statement that allocated it
// (build/allocation-sites.ts numbers each tcm_malloc call; host/checks/source-locator.ts finds the
// number's call), in AssemblyScript and in C++ alike: the second of two calls, a helper called in a
// loop, a library with one call site only, async runs, the counting copy of profile(). (Multicore:
// test/cpp/seeds.test.ts, the blog's giou.cpp and its port.)
// The expected lines are found by the `// site: name` marks of the fixtures.
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, ops, tensor, shutdown, countingLibrary, setOutput, TcmLeakError, type Library } from "gpsimd";
import { readFileSync } from "node:fs";
import { fixturePath, TEST_BUILD_DIR, captureOutput, thrown } from "../helpers.js";

const file = (name: string) => fixturePath("leaks", name);
const load = (name: string, compute: string, register: string): Library =>
  custom_op.load({ name, compute_srcs: [file(compute)], shape_srcs: [file("shape.ts"), file(register)], build_directory: TEST_BUILD_DIR });

const libraries = new Map<string, Library>();
afterAll(async () => {
  for (const lib of libraries.values()) lib.unload();
  await shutdown();
});

/** "file:line:" of the statement marked `// site: name` in a fixture. */
function site(source: string, name: string): string {
  const lines = readFileSync(file(source), "utf8").split("\n");
  const at = lines.findIndex((l) => l.endsWith(`// site: ${name}`));
  expect(at, `${source}: site ${name}`).toBeGreaterThanOrEqual(0);
  return `${file(source)}:${at + 1}:`;
}

const input = () => tensor(Float32Array.from([1, 2, 3, 4]), [4]);

/** The one warning a call gives. */
function warning(lib: string, op: string): string {
  const out = captureOutput(() => (ops[lib] as Record<string, (t: unknown) => { dispose(): void }>)[op](input()).dispose());
  expect(out.warnings).toHaveLength(1);
  return out.warnings[0];
}

describe.each([
  ["AssemblyScript", "as", "leaks.ts", "one-site.ts"],
  ["C++", "cpp", "leaks.cpp", "one-site.cpp"],
])("%s kernels", (_language, lang, source, oneSite) => {
  const name = `leaks_${lang}`;
  libraries.set(name, load(name, source, `register-${lang}.ts`));

  it("the block left is the second of two: its own tcm_malloc is named, not the first's", () => {
    const text = warning(name, "second_left");
    expect(text).toContain(`${name}::second_left (core 0): 1 TCM block (48 bytes) still allocated when the kernel returned (call tcm_free, and close() stream accessors): the first at TCM+0x`);
    expect(text).toContain(`, allocated by tcm_malloc at second_left (${site(source, "b")}`);
  });

  it("blocks from a helper called in a loop name the helper's statement", () => {
    const text = warning(name, "helper_in_loop");
    expect(text).toContain("3 TCM blocks (96 bytes) still allocated");
    expect(text).toMatch(new RegExp(`allocated by tcm_malloc at \\w+ \\(${site(source, "scratch").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\d+\\)$`));
  });

  it("a kernel that frees what it allocates gives no warning", () => {
    const out = captureOutput(() => ops[name].freed_all(input()).dispose());
    expect(out.warnings).toEqual([]);
  });

  it("a library with a single tcm_malloc call names it (its number survives the optimiser)", () => {
    libraries.set(`leak_one_site_${lang}`, load(`leak_one_site_${lang}`, oneSite, `register-one-site-${lang}.ts`));
    expect(warning(`leak_one_site_${lang}`, "only")).toContain(`allocated by tcm_malloc at only (${site(oneSite, "only")}`);
  });

  it("with leak_is_error, the TcmLeakError carries the allocation's file and line in its details", () => {
    const lib = libraries.get(name)!;
    lib.configure({ leak_is_error: true });
    try {
      const e = thrown(() => ops[name].second_left(input()));
      expect(e).toBeInstanceOf(TcmLeakError);
      const [path, line] = site(source, "b").split(":");
      expect((e as TcmLeakError).details).toMatchObject({ blocks: 1, bytes: 48, function: "second_left", file: path, line: Number(line) });
    } finally {
      lib.configure({ leak_is_error: false });
    }
  });

  it("an async call, on a core thread, names the same statement", async () => {
    const warnings: string[] = [];
    const restore = setOutput({ warn: (w) => warnings.push(w) });
    try {
      (await ops[name].second_left.async(input())).dispose();
    } finally {
      restore();
    }
    expect(warnings).toEqual([expect.stringContaining(`at second_left (${site(source, "b")}`)]);
  });

  it("profile()'s counting copy names it too", () => {
    const copy = countingLibrary(libraries.get(name)!);
    const out = captureOutput(() => copy.call("second_left", [input()]).dispose());
    expect(out.warnings).toEqual([expect.stringContaining(`allocated by tcm_malloc at second_left (${site(source, "b")}`)]);
  });
});

describe("a block that is not the kernel's tcm_malloc", () => {
  it("a read stream left open keeps its cache: no allocation is named", () => {
    const text = warning("leaks_as", "stream_left_open");
    expect(text).toMatch(/1 TCM block \(4 KB\) still allocated when the kernel returned \(call tcm_free, and close\(\) stream accessors\): the first at TCM\+0x[0-9a-f]+$/);
  });
});
