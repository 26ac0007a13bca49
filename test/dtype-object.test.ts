// tensor.dtype is a dtype object (kFloat, kInt, ...): compared by identity with the exported constants,
// printed as its name, and taken by every factory, by .npy and by shape functions (TypeScript here, C++ in
// test/cpp/shape.test.ts), as is its name; a ScalarType number is a DTypeNameError wherever a dtype is taken.
import { describe, it, expect, beforeAll } from "vitest";
import { inspect } from "node:util";
import {
  ops, empty, zeros, ones, full, eye, tensor, rand, randn, fromNpy, toNpy, dtypeInfo, DTypeNameError,
  kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte, type DType, type Tensor,
} from "gpsimd";
import { loadFixture } from "./helpers.js";

const DTYPES = [kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte];
const FLOATING = [kFloat, kBFloat16, kHalf];

/** Every factory, making a [2, 2] tensor of dtype d (rand and randn only for floating dtypes). */
function factories(d: DType | string): [string, () => Tensor][] {
  const integral = typeof d === "object" && !dtypeInfo(d).isFloating;
  const data = integral ? (d === kLong ? BigInt64Array.of(1n, 2n, 3n, 4n) : Int32Array.of(1, 2, 3, 4)) : Float32Array.of(1, 2, 3, 4);
  return [
    ["empty", () => empty([2, 2], d)],
    ["zeros", () => zeros([2, 2], d)],
    ["ones", () => ones([2, 2], d)],
    ["full", () => full([2, 2], 3, d)],
    ["eye(n, dtype)", () => eye(2, d)],
    ["eye(n, m, dtype)", () => eye(2, 2, d)],
    ["tensor", () => tensor(data, [2, 2], d)],
  ];
}

describe("the dtype of a tensor made by a factory", () => {
  it("is the exported constant itself, whether given as the constant or by name", () => {
    for (const d of DTYPES) {
      for (const [what, make] of [...factories(d), ...factories(d.name)]) expect(make().dtype, `${what} ${d}`).toBe(d);
    }
    for (const d of FLOATING) {
      expect(rand([3], { dtype: d }).dtype).toBe(d);
      expect(randn([3], { dtype: d.name }).dtype).toBe(d);
    }
    expect(randn([3]).dtype).toBe(kFloat);
    expect(tensor([1, 2]).dtype).toBe(kFloat);
    expect(tensor(Int16Array.of(1)).dtype).toBe(kShort);
  });

  it("prints as its name", () => {
    const t = zeros([2], kByte);
    expect(inspect(t.dtype)).toBe("uint8");
    expect(String(t.dtype)).toBe("uint8");
    expect(JSON.stringify({ dtype: t.dtype })).toBe('{"dtype":"uint8"}');
    expect(t.dtype === kByte && t.dtype !== kChar).toBe(true);
  });

  it("a ScalarType number is rejected by every factory with a DTypeNameError naming the constant to use", () => {
    // (eye(2, 3) is a 2 x 3 matrix: a number there is the column count.)
    for (const [what, make] of factories(3 as unknown as DType).filter(([what]) => what !== "eye(n, dtype)")) {
      expect(make, what).toThrow(DTypeNameError);
      expect(make, what).toThrow(/Unknown dtype 3 \(a number is the kernel's ScalarType; on the host write kInt\)/);
    }
    expect(() => rand([2], { dtype: 0 as unknown as DType })).toThrow(/write kFloat/);
    expect(() => zeros([2], 9 as unknown as DType)).toThrow(DTypeNameError);
  });
});

describe(".npy", () => {
  it("loads with the dtype object or its name, and the loaded dtype is the constant", () => {
    const bf = toNpy(tensor([1, -2], [2], kBFloat16));
    expect(fromNpy(bf, { dtype: kBFloat16 }).dtype).toBe(kBFloat16);
    expect(fromNpy(bf, { dtype: "bfloat16" }).dtype).toBe(kBFloat16);
    expect(fromNpy(toNpy(zeros([2], kLong))).dtype).toBe(kLong);
    expect(() => fromNpy(bf, { dtype: 1 as unknown as DType })).toThrow(DTypeNameError);
  });
});

describe("TypeScript shape functions", () => {
  beforeAll(() => {
    loadFixture({ group: "tools", name: "tools_fixtures", compute: ["kernels.ts"], shape: ["register.ts"] });
  }, 180_000);

  it("zeros([n], kInt) in a shape function gives an output whose dtype is kInt", () => {
    const out = ops.tools_fixtures.bins(randn([4]), 3);
    expect(out.dtype).toBe(kInt);
    expect(Array.from(out.data() as Int32Array)).toEqual([0, 1, 2]);
    expect(ops.tools_fixtures.doubled(randn([2])).dtype).toBe(kFloat);
  });
});
