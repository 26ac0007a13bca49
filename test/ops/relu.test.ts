// The shipped ReLU libraries (element-wise accessor, TCM, TCM multicore)
// against the plain-TypeScript reference, forward and backward. ReLU is
// exact, so results must match bit for bit.
import { describe, it, expect, afterAll } from "vitest";
import { ops, randn, shutdown } from "gpsimd";
import { loadOp } from "../../ops/index.js";
import { floats, STRICT, bitDifference } from "../helpers.js";
import { reluForward, reluBackward } from "../../ops/relu/reference.js";


const elementwise = loadOp("relu_elementwise", STRICT);
const tcm = loadOp("relu_tcm", STRICT);
const multicore = loadOp("relu_multicore", STRICT);
afterAll(async () => {
  elementwise.unload();
  tcm.unload();
  multicore.unload();
  await shutdown();
});

describe("relu_elementwise (the tutorial's 2-d accessor kernel)", () => {
  const shapes = [[1, 1], [3, 5], [7, 13], [33, 64], [0, 5], [5, 0]];

  it("forward and backward equal the reference on 2-d tensors, empty ones included", () => {
    shapes.forEach((sizes, k) => {
      const x = randn(sizes, { seed: 10 + k }), grad = randn(sizes, { seed: 50 + k });
      expect(ops.relu_elementwise.relu_forward(x).sizes()).toEqual(sizes);
      expect(bitDifference(floats(ops.relu_elementwise.relu_forward(x)), reluForward(floats(x)))).toBeNull();
      expect(bitDifference(floats(ops.relu_elementwise.relu_backward(grad, x)), reluBackward(floats(grad), floats(x)))).toBeNull();
    });
  });

  it("keeps the seed's 2-d contract: a 3-d input is an accessor rank error", () => {
    expect(() => ops.relu_elementwise.relu_forward(randn([2, 3, 4], { seed: 1 }))).toThrow(/accessor for 2 dimensions/);
  });
});

describe("relu_tcm", () => {
  const shapes = [[0], [1], [7], [1023], [1024], [1025], [3, 700, 5], [999, 1001]];

  it("forward and backward equal the reference on odd, chunk-edge and empty sizes", () => {
    shapes.forEach((sizes, k) => {
      const x = randn(sizes, { seed: 100 + k }), grad = randn(sizes, { seed: 200 + k });
      const y = ops.relu_tcm.relu_forward(x);
      expect(y.sizes()).toEqual(sizes);
      expect(bitDifference(floats(y), reluForward(floats(x)))).toBeNull();
      expect(bitDifference(floats(ops.relu_tcm.relu_backward(grad, x)), reluBackward(floats(grad), floats(x)))).toBeNull();
    });
  });

  it("rejects a gradient whose sizes differ from the input's, naming both", () => {
    expect(() => ops.relu_tcm.relu_backward(randn([2, 3]), randn([3, 2]))).toThrow(/float32\[2, 3\].*float32\[3, 2\]/);
  });
});

describe("relu_multicore", () => {
  // Sizes below 8, not divisible by 8, and spanning several chunks per core.
  const shapes = [[0], [1], [3], [7], [8], [9], [1025], [8 * 1024 + 3], [999, 1001]];

  it("forward and backward equal the single-core TCM results bitwise, and the reference", () => {
    shapes.forEach((sizes, k) => {
      const x = randn(sizes, { seed: 300 + k }), grad = randn(sizes, { seed: 400 + k });
      const forward = floats(ops.relu_multicore.relu_forward(x));
      const backward = floats(ops.relu_multicore.relu_backward(grad, x));
      expect(bitDifference(forward, floats(ops.relu_tcm.relu_forward(x)))).toBeNull();
      expect(bitDifference(backward, floats(ops.relu_tcm.relu_backward(grad, x)))).toBeNull();
      expect(bitDifference(forward, reluForward(floats(x)))).toBeNull();
      expect(bitDifference(backward, reluBackward(floats(grad), floats(x)))).toBeNull();
    });
  });
});
