// custom_op.load writes lib<name>.d.ts: with it, ops.<lib>.<op>(...) is
// type-checked against the kernel's parameters.
import { it, expect, afterAll } from "vitest";
import path from "node:path";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { custom_op, type Library } from "gpsimd";

const here = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(here, "fixtures", "output");
let lib: Library;
afterAll(() => lib?.unload());

it("declares each operator with the kernel's parameter types", () => {
  lib = custom_op.load({
    name: "output_fixtures", compute_srcs: [path.join(dir, "kernels.ts")], shape_srcs: [path.join(dir, "register.ts")],
    build_directory: path.join(here, "..", "build", "out"),
  });
  const dts = readFileSync(lib.path.replace(/\.wasm$/, ".d.ts"), "utf8");
  expect(dts).toContain("    output_fixtures: {");
  expect(dts).toContain("      copy_prefix: OpFunction<[t_in: Tensor, count: number | bigint]>;");
  expect(dts).toContain("      every_other: OpFunction<[t_in: Tensor]>;");

  // A program using the operators: a right call and two wrong ones, checked by TypeScript.
  const work = mkdtempSync(path.join(here, "..", "build", "out", "typings-"));
  const use = path.join(work, "use.ts");
  writeFileSync(use, [
    `import { ops, randn, zeros, kFloat, kInt, type DType } from "gpsimd";`,
    `ops.output_fixtures.copy_prefix(randn([4]), 4n);`,
    `ops.output_fixtures.copy_prefix(randn([4]), "four");`,
    `ops.output_fixtures.every_other(randn([4]), 1);`,
    // dtypes are DType objects (or names): a kernel-side ScalarType number is a type error too.
    `const d: DType = zeros([2], kInt).dtype; console.log(d === kFloat, zeros([2], "int32").dtype.name);`,
    `zeros([2], 3);`,
  ].join("\n"));
  const program = ts.createProgram([lib.path.replace(/\.wasm$/, ".d.ts"), use], {
    module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true,
    target: ts.ScriptTarget.ES2022, types: [],
  });
  const errors = ts.getPreEmitDiagnostics(program).filter((d) => d.file?.fileName === use);
  rmSync(work, { recursive: true, force: true });
  const lines = errors.map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1).sort();
  expect(lines).toEqual([3, 4, 6]);
});
