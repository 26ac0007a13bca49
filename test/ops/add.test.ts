// The shipped tensor_add libraries (TCM, TCM multicore) against the
// plain-TypeScript reference, and W5 = (a + b) * a * b with the addition on
// the device and the rest composed on the host. Float32 addition rounds the
// same way everywhere: results must match bit for bit.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, shutdown } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { floats, STRICT, bitDifference } from "../helpers.js";
import { add, w5 } from "../../ops/add/reference.js";


const tcm = loadOp("add_tcm", STRICT);
const multicore = loadOp("add_multicore", STRICT);
afterAll(async () => {
  tcm.unload();
  multicore.unload();
  await shutdown();
});

// Sizes below 8, not divisible by 8, chunk edges, several chunks per core, and empty.
const shapes = [[0], [1], [3], [7], [9], [1023], [1025], [8 * 1024 + 5], [17, 0], [37, 3, 41], [999, 1001]];

describe("add_tcm", () => {
  it("equals a + b on odd and empty sizes", () => {
    shapes.forEach((sizes, k) => {
      const a = randn(sizes, { seed: 30 + k }), b = randn(sizes, { seed: 60 + k });
      const y = ops.add_tcm.tensor_add(a, b);
      expect(y.sizes()).toEqual(sizes);
      expect(bitDifference(floats(y), add(floats(a), floats(b)))).toBeNull();
    });
  });

  it("rejects inputs of different sizes with an error naming both (kernels do not broadcast)", () => {
    expect(() => ops.add_tcm.tensor_add(randn([2, 3]), randn([3, 2]))).toThrow(/float32\[2, 3\].*float32\[3, 2\]/);
    expect(() => ops.add_multicore.tensor_add(randn([4]), randn([1]))).toThrow(/float32\[4\].*float32\[1\]/);
  });

  it("computes W5, (a + b) * a * b, with the addition on the device and the products on the host", () => {
    const a = randn([256, 1024], { seed: 5 }), b = randn([256, 1024], { seed: 6 });
    const sum = floats(ops.add_tcm.tensor_add(a, b));
    const av = floats(a), bv = floats(b);
    // Host composition, one float32 operation at a time, as a tensor library does it.
    const product = new Float32Array(sum.length);
    for (let i = 0; i < sum.length; i++) product[i] = sum[i] * av[i];
    for (let i = 0; i < sum.length; i++) product[i] = product[i] * bv[i];
    expect(bitDifference(product, w5(av, bv))).toBeNull();
  });
});

describe("add_multicore", () => {
  it("equals the single-core result bitwise, and the reference", () => {
    shapes.forEach((sizes, k) => {
      const a = randn(sizes, { seed: 90 + k }), b = randn(sizes, { seed: 120 + k });
      const y = floats(ops.add_multicore.tensor_add(a, b));
      expect(bitDifference(y, floats(ops.add_tcm.tensor_add(a, b)))).toBeNull();
      expect(bitDifference(y, add(floats(a), floats(b)))).toBeNull();
    });
  });
});
