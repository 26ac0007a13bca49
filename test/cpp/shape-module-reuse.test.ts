// A C++ rebuild in `gpsimd watch` after a kernel edit compiled the unchanged shape sources again (1.5-2.3 s of each
// save). build/cpp/shape-module.ts now reuses the module of an earlier build in the process when everything it is
// made of is the same: the flags and every source and header text. A changed header of the author's compiles again.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compileCppShapes } from "../../build/cpp/shape-module.js";
import { takeBuildStages } from "../../build/build-stages.js";

const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-shape-reuse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const shape = path.join(dir, "shape.cpp"), header = path.join(dir, "extra_rows.h");
writeFileSync(shape, `#include <torch/torch.h>
#include "torchneuron/register.h"
#include "extra_rows.h"

torch::Tensor grow_shape(torch::Tensor t_in) {
    return torch::zeros({t_in.size(0) + EXTRA_ROWS}, torch::kFloat);
}

NEURON_LIBRARY(reuse_ops, m) {
    m.def("grow", &grow_shape, "grow");
}
`);

/** compileCppShapes with the stage names it recorded and how often it said the module was compiled. */
async function compileShapes(flags: string[] = []) {
  takeBuildStages();
  let compiled = 0;
  const result = await compileCppShapes([shape], flags, () => { compiled++; });
  if ("messages" in result) throw new Error(result.messages.join("\n"));
  return { result, compiled, stages: takeBuildStages().map((s) => s.name) };
}

describe("C++ shape modules in one process", () => {
  it("are reused while the flags and every text they are made of are the same, and compiled again when one changes", async () => {
    writeFileSync(header, "#define EXTRA_ROWS 1\n");
    const first = await compileShapes();
    expect(first.stages.some((s) => s.startsWith("compile shape function"))).toBe(true);
    expect(first.compiled).toBe(1);

    const again = await compileShapes();
    expect(again.stages).toContain("shape function: unchanged, the last build's module");
    expect(again.stages.some((s) => s.startsWith("compile shape function"))).toBe(false);
    expect(again.compiled).toBe(1);
    expect(Buffer.from(again.result.wasm).equals(Buffer.from(first.result.wasm))).toBe(true);

    // The author's header changed: compiled again, and the library's texts (its hash) hold the new header.
    writeFileSync(header, "#define EXTRA_ROWS 2\n");
    const changed = await compileShapes();
    expect(changed.stages.some((s) => s.startsWith("compile shape function"))).toBe(true);
    expect(changed.result.texts.get(header)).toBe("#define EXTRA_ROWS 2\n");
    expect(Buffer.from(changed.result.wasm).equals(Buffer.from(first.result.wasm))).toBe(false);

    // Other flags: compiled again too.
    const flagged = await compileShapes(["-DUNUSED_FLAG=1"]);
    expect(flagged.stages.some((s) => s.startsWith("compile shape function"))).toBe(true);
  }, 600_000);
});
