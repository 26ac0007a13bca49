// gpsimd watch keeps the inputs it drew (cli/inputs.ts, keepDrawnValues): a rerun must get exactly the values a fresh
// draw gives, and nothing a call does to its input tensor may reach the kept values.
import { describe, it, expect, afterEach } from "vitest";
import { kFloat } from "gpsimd";
import { randomTensor, keepDrawnValues } from "../../dist/cli/inputs.js";

const values = (sizes: number[], kind: "normal" | "boxes", seed: number) => Array.from(randomTensor(sizes, kFloat, { kind, seed }).data() as Float32Array);

afterEach(() => keepDrawnValues(false));

describe("kept input values", () => {
  it("are the values a fresh draw gives, for each kind, seed and size", () => {
    const fresh = [values([64], "normal", 1), values([64], "normal", 2), values([16, 4], "boxes", 1), values([65], "normal", 1)];
    keepDrawnValues(true);
    for (let round = 0; round < 2; round++) {
      expect([values([64], "normal", 1), values([64], "normal", 2), values([16, 4], "boxes", 1), values([65], "normal", 1)]).toEqual(fresh);
    }
    expect(fresh[0]).not.toEqual(fresh[1]); // the seed matters
  });

  it("are not changed by writes to a tensor made from them", () => {
    keepDrawnValues(true);
    const first = randomTensor([8], kFloat, { kind: "normal", seed: 7 });
    const before = Array.from(first.data() as Float32Array);
    (first.storageView() as Float32Array).fill(0); // a kernel writing its input in place
    expect(Array.from(randomTensor([8], kFloat, { kind: "normal", seed: 7 }).data() as Float32Array)).toEqual(before);
  });
});
