// Loading and registering libraries: names registered twice, too many
// functions, unknown kernels, NEURON_LIBRARY outside custom_op.load, kernels
// that do not build, missing library files and bad options.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  custom_op, ops, NEURON_LIBRARY, zeros, kFloat,
  RegistryError, BuildError, LibraryFormatError, OptionError, type Library, type LoadOptions,
} from "gpsimd";
import { loadFixture, fixturePath, expectGpsimdError, expectNegateWorks, TEST_BUILD_DIR } from "../helpers.js";

const LIB = "errors_registry";

/** Line (1-based) of fixture `file` marked `// @marker`. */
function lineOf(file: string, marker: string): number {
  return readFileSync(fixturePath("errors", file), "utf8").split("\n").findIndex((l) => l.includes(`// @${marker}`)) + 1;
}

/** custom_op.load options for a fixture library built from good.ts (and optionally other kernel sources). */
function options(name: string, register: string, compute = ["good.ts"]): LoadOptions {
  return {
    name, build_directory: TEST_BUILD_DIR,
    compute_srcs: compute.map((f) => fixturePath("errors", f)),
    shape_srcs: [fixturePath("errors", register), fixturePath("errors", "shape.ts")],
  };
}

describe("registry", () => {
  let lib: Library;

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["good.ts"], shape: ["register-registry.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());

  it("a library name registered twice names both library files; the first keeps working", () => {
    const again = path.join(TEST_BUILD_DIR, "liberrors_registry_again.wasm");
    const e = expectGpsimdError(() => custom_op.load(options("errors_registry_again", "register-registry-again.ts")), RegistryError, "E_DUPLICATE_LIBRARY", [
      `library ${LIB} is already registered by lib${LIB} (${lib.path})`, `liberrors_registry_again (${again}) registers it again`,
    ]);
    expect(e.details).toMatchObject({ first: lib.path, second: again });
    expectNegateWorks(ops[LIB].negate);
  });

  it("after unload, the name is free and load_library loads the built file again", () => {
    lib.unload();
    expect(() => ops[LIB]).toThrow(RegistryError);
    lib = custom_op.load_library(path.join(TEST_BUILD_DIR, `lib${LIB}.wasm`));
    expectNegateWorks(ops[LIB].negate);
  });

  it("more than 10 functions in one library", () => {
    expectGpsimdError(() => custom_op.load(options("errors_eleven", "register-eleven.ts")), RegistryError, "E_TOO_MANY_FUNCTIONS", [
      "library errors_eleven defines more than 10 functions (errors_eleven::negate_10 would be number 11)",
    ]);
    expect(() => ops.errors_eleven).toThrow(RegistryError);
  });

  it("m.def with a kernel the sources do not export lists the exported kernels", () => {
    expectGpsimdError(() => custom_op.load(options("errors_unknown_kernel", "register-unknown-kernel.ts")), RegistryError, "E_UNKNOWN_KERNEL", [
      `errors_unknown_kernel::negate_twice: no exported kernel function named "negate_twice" in the compute sources; exported kernels: negate`,
    ]);
  });

  it("NEURON_LIBRARY outside custom_op.load", () => {
    expectGpsimdError(() => NEURON_LIBRARY("errors_stray", (m) => m.def("f", () => zeros([1], kFloat), "negate")), RegistryError, "E_OUTSIDE_LOAD", [
      `NEURON_LIBRARY("errors_stray") ran outside custom_op.load`, "shape_srcs",
    ]);
  });

  it("a type error in a kernel: BuildError with the file and line", () => {
    const file = fixturePath("errors", "broken-compile.ts");
    const e = expectGpsimdError(() => custom_op.load(options("errors_broken_compile", "register-broken.ts", ["broken-compile.ts"])), BuildError, "E_BUILD", [
      "custom_op.load(errors_broken_compile): the build failed", `${file}:${lineOf("broken-compile.ts", "compile-error")}:`,
    ]);
    expect(e.message).toMatch(/not assignable/);
  });

  it("a kernel parameter of a type kernels cannot take: BuildError with the file and line", () => {
    const file = fixturePath("errors", "broken-signature.ts");
    expectGpsimdError(() => custom_op.load(options("errors_broken_signature", "register-broken.ts", ["broken-signature.ts"])), BuildError, "E_BUILD", [
      `${file}:${lineOf("broken-signature.ts", "signature-error")}: error: kernel broken: parameter 'label' has type 'string'`,
    ]);
  });

  it("a missing source file", () => {
    const missing = fixturePath("errors", "no-such-kernel.ts");
    expectGpsimdError(() => custom_op.load(options("errors_missing_source", "register-registry.ts", ["no-such-kernel.ts"])), OptionError, "E_NO_SOURCE", [
      `source file ${missing} does not exist`,
    ]);
  });

  it("load_library of a missing file, and of a file that is not a library", () => {
    const missing = path.join(TEST_BUILD_DIR, "liberrors_never_built.wasm");
    expectGpsimdError(() => custom_op.load_library(missing), LibraryFormatError, "E_NO_LIBRARY", [`custom_op.load_library: ${missing} does not exist`]);
    const notWasm = fixturePath("errors", "good.ts");
    expectGpsimdError(() => custom_op.load_library(notWasm), LibraryFormatError, "E_LIBRARY_FORMAT", [`${notWasm} is not a WebAssembly file`]);
  });

  it("an unknown option names it and lists the known ones", () => {
    const bad = { ...options("errors_bad_option", "register-registry.ts"), colour: "blue" } as LoadOptions;
    const e = expectGpsimdError(() => custom_op.load(bad), OptionError, "E_OPTION", ["custom_op.load: unknown option colour", "known options: "]);
    expect(e.details).toMatchObject({ option: "colour" });
  });

  it("an option of the wrong type names the option and the value", () => {
    const bad = { ...options("errors_bad_option", "register-registry.ts"), multicore: "yes" } as unknown as LoadOptions;
    const e = expectGpsimdError(() => custom_op.load(bad), OptionError, "E_OPTION", ['option multicore: "yes" is not valid; expected true or false']);
    expect(e.details).toMatchObject({ option: "multicore", value: "yes" });
  });

  it("configure rejects unknown settings and wrong values, naming them", () => {
    expectGpsimdError(() => lib.configure({ leak_is_error: 1 as unknown as boolean }), OptionError, "E_OPTION", ["option leak_is_error: 1 is not valid"]);
    expectGpsimdError(() => lib.configure({ multicore: true } as never), OptionError, "E_OPTION", ["unknown option multicore"]);
    expect(lib.options.leak_is_error).toBe(false);
  });
});

describe("library-level rules are checked before the kernels compile", () => {
  // A fresh build folder: the build writes lib<name>.wasm there, so a file that is absent after the error shows that
  // no compile ran (a compile takes seconds; these checks run the shape sources only).
  let dir: string;
  let first: Library;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "gpsimd-registry-"));
    first = loadFixture({ group: "errors", name: LIB, compute: ["good.ts"], shape: ["register-registry.ts", "shape.ts"] });
  });
  afterAll(() => {
    first.unload();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Loads a library from good.ts into the fresh folder; expects `code` and that nothing was built. */
  function expectRejectedUnbuilt(name: string, register: string, code: string, fragments: string[]): void {
    const file = path.join(dir, `lib${name}.wasm`);
    expectGpsimdError(() => custom_op.load({ ...options(name, register), build_directory: dir }), RegistryError, code, [`lib${name} (${file})`, ...fragments]);
    expect(existsSync(file), `${file} was built`).toBe(false);
    expect(() => ops[name]).toThrow(RegistryError);
  }

  it("more than 10 functions", () => {
    expectRejectedUnbuilt("errors_eleven", "register-eleven.ts", "E_TOO_MANY_FUNCTIONS", ["errors_eleven::negate_10 would be number 11"]);
  });

  it("an operator name defined twice", () => {
    expectRejectedUnbuilt("errors_duplicate_op", "register-duplicate-op.ts", "E_DUPLICATE_OP", ["errors_duplicate_op::negate is defined twice"]);
  });

  it("the reserved library name builtin", () => {
    expectRejectedUnbuilt("errors_builtin", "register-builtin.ts", "E_LIB_NAME", ['the library name "builtin" is reserved by the device']);
  });

  it("a library name another loaded library registered", () => {
    expectRejectedUnbuilt("errors_registry_again", "register-registry-again.ts", "E_DUPLICATE_LIBRARY", [`library ${LIB} is already registered by lib${LIB} (${first.path})`]);
    expectNegateWorks(ops[LIB].negate);
  });

  it("a kernel the compute sources do not export", () => {
    expectRejectedUnbuilt("errors_unknown_kernel", "register-unknown-kernel.ts", "E_UNKNOWN_KERNEL", ['no exported kernel function named "negate_twice"']);
  });
});
