// Building C++ libraries: clang's errors as BuildErrors with file:line:column,
// one language per library, the cache (an unchanged C++ library is not
// compiled again), and a clear error when the compiler package is missing.
import { describe, it, expect } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, copyFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { custom_op, BuildError } from "gpsimd";
import { fixturePath, TEST_BUILD_DIR, expectGpsimdError, REPO } from "../helpers.js";

const file = (name: string) => fixturePath("cpp/build", name);

describe("C++ builds", () => {
  it("a compile error is a BuildError naming the .cpp file, line and column with clang's message", () => {
    expectGpsimdError(() => custom_op.load({ name: "cpp_broken", compute_srcs: [file("broken.cpp")], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR }),
      BuildError, "E_BUILD", [`${file("broken.cpp")}:6:18: error: no member named 'no_such_method' in 'torch::Tensor'`]);
  });

  it("a library's compute sources are all C++ or all AssemblyScript", () => {
    expectGpsimdError(() => custom_op.load({ name: "cpp_mixed", compute_srcs: [file("broken.cpp"), file("mixed.ts")], shape_srcs: [file("register.ts")], build_directory: TEST_BUILD_DIR }),
      BuildError, "E_BUILD", ["all C++ (.cpp, .cc, .cxx) or all AssemblyScript", "broken.cpp, mixed.ts"]);
  });

  it("without @yowasp/clang, a C++ source is a BuildError that says what to install", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-noclang-"));
    copyFileSync(fixturePath("cpp/twins", "bugs.cpp"), path.join(dir, "k.cpp"));
    const script = `import { custom_op } from ${JSON.stringify(path.join(REPO, "dist/host/index.js"))};
try { custom_op.load({ name: "k", compute_srcs: ["k.cpp"], shape_srcs: [${JSON.stringify(fixturePath("cpp/twins", "register-cpp.ts"))}], build_directory: "." }); }
catch (e) { console.log(JSON.stringify({ name: e.constructor.name, code: e.code, message: e.message })); }`;
    writeFileSync(path.join(dir, "load.mjs"), script);
    const out = execFileSync(process.execPath, ["load.mjs"], { cwd: dir, env: { ...process.env, GPSIMD_NO_CLANG: "1" }, encoding: "utf8" });
    const e = JSON.parse(out.trim().split("\n").pop()!) as { name: string; code: string; message: string };
    expect(e.name).toBe("BuildError");
    expect(e.code).toBe("E_BUILD");
    expect(e.message).toContain("npm install @yowasp/clang");
  });
});
