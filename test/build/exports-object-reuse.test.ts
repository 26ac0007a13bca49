// The exports unit gpsimd adds to every C++ library (build/cpp/kernel-exports.ts) took clang about as long as the
// seed's giou.cpp itself, though a kernel edit that keeps the kernels' signatures leaves it unchanged: its object is
// reused (build/cpp/clang-driver.ts, recentExports). The library built so must be the one a full compile gives, byte
// for byte; a changed signature or other flags compile it again.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildCpp, type CppBuild } from "../../build/cpp/build-cpp.js";
import { EXPORTS_REUSED_STAGE } from "../../build/cpp/clang-driver.js";
import { takeBuildStages } from "../../build/build-stages.js";

const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-exports-reuse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kernelFile = path.join(dir, "negate.cpp");
const KERNEL = `#include <torch/torch.h>\n${readFileSync(path.join(import.meta.dirname, "..", "..", "examples", "seeds-cpp", "negate-tcm.cpp"), "utf8")}`;

/** buildCpp of `text` (at -O1, as gpsimd watch builds) with the stage names it recorded. */
async function build(text: string, extraCflags: string[] = []): Promise<{ built: CppBuild; stages: string[] }> {
  writeFileSync(kernelFile, text);
  takeBuildStages();
  const built = await buildCpp({ computeSrcs: [kernelFile], extraCflags, sanitize: false, optimizeLevel: 1 });
  const stages = takeBuildStages().map((s) => s.name);
  if ("messages" in built) throw new Error(built.messages.join("\n"));
  return { built, stages };
}

describe("the exports unit's object in one process", () => {
  it("is reused while the kernels' signatures and the flags are the same, and the library is a full compile's", async () => {
    const first = await build(KERNEL);
    expect(first.stages).not.toContain(EXPORTS_REUSED_STAGE);

    // An edit of the kernel's body: reused.
    const edited = await build(`${KERNEL}// an edit\n`);
    expect(edited.stages).toContain(EXPORTS_REUSED_STAGE);

    // The first text again, with the reused object: the library is the full compile's, byte for byte.
    const again = await build(KERNEL);
    expect(again.stages).toContain(EXPORTS_REUSED_STAGE);
    expect(Buffer.from(again.built.reloc.wasm).equals(Buffer.from(first.built.reloc.wasm))).toBe(true);
    expect(again.built.sourceMap).toBe(first.built.sourceMap);

    // Another signature (a second parameter): the exports unit changes, so it is compiled again, and exports it.
    const widened = await build(KERNEL.replace("(const torch::Tensor& t_in)", "(const torch::Tensor& t_in, double scale)"));
    expect(widened.stages).not.toContain(EXPORTS_REUSED_STAGE);
    expect(widened.built.kernels[0].params.map((p) => p.kind)).toEqual(["tensor", "f64"]);

    // Other flags: compiled again too.
    const flagged = await build(KERNEL, ["-DUNUSED_FLAG=1"]);
    expect(flagged.stages).not.toContain(EXPORTS_REUSED_STAGE);
  }, 600_000);
});
