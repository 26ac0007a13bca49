// Shape sources are transpiled once per text (build/shape-sources.ts keeps recent transpiles): an edit must give the
// new code and its own errors, and returning to an earlier text the earlier code, with file names and lines intact.
import { describe, it, expect } from "vitest";
import { transpileShapeSources } from "../dist/build/shape-sources.js";

const FILE = "/tmp/gpsimd-transpile-cache/shape.ts";

describe("transpiled shape sources", () => {
  it("follow the text: an edit gives the new code, the old text its old code", () => {
    const one = transpileShapeSources([{ file: FILE, text: "export const size = 1;\n" }]);
    const two = transpileShapeSources([{ file: FILE, text: "export const size = 2;\n" }]);
    expect(one.modules[0].code).toContain("exports.size = 1;");
    expect(two.modules[0].code).toContain("exports.size = 2;");
    expect(transpileShapeSources([{ file: FILE, text: "export const size = 1;\n" }]).modules[0].code).toBe(one.modules[0].code);
  });

  it("report a syntax error at its line each time, and not once the text is fixed", () => {
    const broken = "export const a = 1;\nexport const b = ;\n";
    for (let i = 0; i < 2; i++) {
      const { errors } = transpileShapeSources([{ file: FILE, text: broken }]);
      expect(errors).toEqual([`${FILE}:2:18: Expression expected.`]);
    }
    expect(transpileShapeSources([{ file: FILE, text: "export const a = 1;\nexport const b = 2;\n" }]).errors).toEqual([]);
  });

  it("name each module by its path from the first source's folder, whatever was transpiled before", () => {
    const other = "/tmp/gpsimd-transpile-cache/lib/helper.ts";
    transpileShapeSources([{ file: other, text: "export const h = 1;\n" }]);
    const { modules } = transpileShapeSources([{ file: FILE, text: "export const size = 1;\n" }, { file: other, text: "export const h = 1;\n" }]);
    expect(modules.map((m) => m.path)).toEqual(["shape.ts", "lib/helper.ts"]);
  });
});
