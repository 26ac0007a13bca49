// How a tensor prints: console.log / util.inspect / String() show values, dtype and sizes like torch's repr
// (summarised with … above 1000 elements), never internals; tensor.dtype prints as its name.
import { describe, it, expect } from "vitest";
import { inspect } from "node:util";
import { tensor, zeros, kShort } from "gpsimd";

describe("tensor repr", () => {
  it("shows small tensors in full, aligned, with dtype and sizes", () => {
    expect(inspect(tensor([[1, -2.5], [3, 4]], [2, 2]))).toBe("tensor([[ 1.0000, -2.5000],\n        [ 3.0000,  4.0000]], dtype=float32, size=[2, 2])");
    expect(inspect(tensor([1, 2, 3], [3]))).toBe("tensor([1., 2., 3.], dtype=float32, size=[3])");
    expect(inspect(tensor(Int32Array.of(1, -20, 300), [3], "int32"))).toBe("tensor([  1, -20, 300], dtype=int32, size=[3])");
    expect(inspect(tensor(BigInt64Array.of(5n, -6n), [2], "int64"))).toBe("tensor([ 5, -6], dtype=int64, size=[2])");
    expect(inspect(tensor([1e-6, 1, 1e5], [3]))).toBe("tensor([1.0000e-06, 1.0000e+00, 1.0000e+05], dtype=float32, size=[3])");
    expect(inspect(tensor([NaN, Infinity, -0.5], [3], "float16"))).toBe("tensor([    nan,     inf, -0.5000], dtype=float16, size=[3])");
    expect(inspect(zeros([2, 1, 2], "bfloat16"))).toBe("tensor([[[0., 0.]],\n\n        [[0., 0.]]], dtype=bfloat16, size=[2, 1, 2])");
    expect(inspect(zeros([0], "float32"))).toBe("tensor([], dtype=float32, size=[0])");
  });

  it("summarises a tensor of more than 1000 elements with the edges of each dimension", () => {
    const t = tensor(Float32Array.from({ length: 40 * 50 }, (_, i) => i), [40, 50]);
    expect(String(t)).toBe([
      "tensor([[   0.,    1.,    2., …,   47.,   48.,   49.],",
      "        [  50.,   51.,   52., …,   97.,   98.,   99.],",
      "        [ 100.,  101.,  102., …,  147.,  148.,  149.],",
      "        …,",
      "        [1850., 1851., 1852., …, 1897., 1898., 1899.],",
      "        [1900., 1901., 1902., …, 1947., 1948., 1949.],",
      "        [1950., 1951., 1952., …, 1997., 1998., 1999.]], dtype=float32, size=[40, 50])",
    ].join("\n"));
  });

  it("is what console.log shows: no storage address", () => {
    const shown = inspect({ t: tensor([1], [1]) });
    expect(shown).toBe("{ t: tensor([1.], dtype=float32, size=[1]) }");
  });

  it("dtype is the dtype object, which prints as its name", () => {
    const t = zeros([2], "int16");
    expect(t.dtype).toBe(kShort);
    expect(inspect(t.dtype)).toBe("int16");
    expect(`${t.dtype}`).toBe("int16");
    expect(inspect({ dtype: t.dtype, sizes: t.sizes() })).toBe("{ dtype: int16, sizes: [ 2 ] }");
  });
});
