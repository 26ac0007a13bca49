// gpsimd's precompiled headers (build/cpp/header-pch.ts): which units may start from them, and that a kernel
// compiled from them is the same library code as the kernel compiled from the headers' text.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { unitTakesPch, precompiledHeadersSettled } from "../../build/cpp/header-pch.js";
import { buildCpp } from "../../build/cpp/build-cpp.js";
import { takeBuildStages } from "../../build/build-stages.js";
import { SEEDS_CPP } from "../../examples/seeds-cpp.js";

describe("unitTakesPch", () => {
  it("takes a unit whose leading lines are comments and system includes, <torch/torch.h> among them", () => {
    expect(unitTakesPch("#include <torch/torch.h>\nint x;\n")).toBe(true);
    expect(unitTakesPch("// giou\n/* boxes */\n\n#include <stdint.h>\n#include <stdlib.h>\n#include <torch/torch.h>\n#include \"mine.h\"\n")).toBe(true);
  });
  it("refuses a unit where something before <torch/torch.h> could change what the headers mean, or without it", () => {
    expect(unitTakesPch("#define GPSIMD_WITHOUT_OWNERSHIP_CHECKS 1\n#include <torch/torch.h>\n")).toBe(false);
    expect(unitTakesPch("#include \"config.h\"\n#include <torch/torch.h>\n")).toBe(false);
    expect(unitTakesPch("#if 1\n#include <torch/torch.h>\n#endif\n")).toBe(false);
    expect(unitTakesPch("int before;\n#include <torch/torch.h>\n")).toBe(false);
    expect(unitTakesPch("#include <stdint.h>\nint f();\n")).toBe(false);
  });
});

describe("a kernel compiled from the precompiled headers (made after a build that parsed the headers itself)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-pch-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is the same code as the kernel compiled from the headers' text", async () => {
    const seed = readFileSync(path.join(SEEDS_CPP, "giou-fixed.cpp"), "utf8");
    const withPch = path.join(dir, "with.cpp"), without = path.join(dir, "without.cpp");
    writeFileSync(withPch, seed);
    // A macro nobody reads in place of the first line (<stdint.h>, which <torch/torch.h> includes anyway): the unit
    // may not start from the precompiled headers, and its lines stay where they were.
    expect(seed.startsWith("#include <stdint.h>\n")).toBe(true);
    writeFileSync(without, seed.replace("#include <stdint.h>\n", "#define GPSIMD_PCH_TEST_UNUSED 1\n"));
    expect(unitTakesPch(readFileSync(withPch, "utf8"))).toBe(true);
    expect(unitTakesPch(readFileSync(without, "utf8"))).toBe(false);
    // The first build parses the headers itself and has the precompiled ones made meanwhile, for the next build.
    takeBuildStages();
    const first = await buildCpp({ computeSrcs: [withPch], extraCflags: [], sanitize: false });
    if ("messages" in first) throw new Error(first.messages.join("\n"));
    await precompiledHeadersSettled();
    takeBuildStages();
    const a = await buildCpp({ computeSrcs: [withPch], extraCflags: [], sanitize: false });
    const stagesA = takeBuildStages().map((s) => s.name);
    const b = await buildCpp({ computeSrcs: [without], extraCflags: [], sanitize: false });
    const stagesB = takeBuildStages().map((s) => s.name);
    if ("messages" in a || "messages" in b) throw new Error(JSON.stringify(["messages" in a ? a.messages : [], "messages" in b ? b.messages : []]));
    expect(stagesA).toContain("compile kernel (from precompiled headers)");
    expect(stagesB).toContain("compile kernel");
    expect(stagesB).not.toContain("compile kernel (from precompiled headers)");
    expect(Buffer.from(a.reloc.wasm).equals(Buffer.from(b.reloc.wasm))).toBe(true);
    expect(Buffer.from(a.reloc.data).equals(Buffer.from(b.reloc.data))).toBe(true);
  }, 600_000);
});
