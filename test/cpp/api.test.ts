// Pieces of the kernel-side C++ API: c10::BFloat16 / c10::Half elements through every accessor kind (bit for bit
// against host/device/dtype.ts's conversions), Tensor-Scalar and Scalar-Tensor operations with integral and floating
// Scalars (against plain TypeScript), and assert() (the runtime's abort error, naming the .cpp line).
import { describe, it, expect, afterAll } from "vitest";
import { custom_op, tensor, zeros, shutdown, BuildError, KernelAbortError, kBFloat16, kHalf, kFloat, kInt, type Library, type Tensor } from "gpsimd";
import { f32ToBf16Bits, f32ToF16Bits, bf16BitsToF32, f16BitsToF32 } from "../../host/device/dtype.js";
import { fixturePath, TEST_BUILD_DIR, expectGpsimdError } from "../helpers.js";

const api = (file: string) => fixturePath("cpp/api", file);
const libraries: Library[] = [];
function load(name: string, kernel: string): Library {
  const lib = custom_op.load({ name, compute_srcs: [api(kernel)], shape_srcs: [api("shape.ts"), api(`register-${name.replace("cpp_api_", "")}.ts`)], build_directory: TEST_BUILD_DIR });
  libraries.push(lib);
  return lib;
}
afterAll(async () => {
  libraries.forEach((l) => l.unload());
  await shutdown();
});

/** float32 bit patterns every conversion must get right (zeros, infinities, NaNs, subnormals, ties, overflow) and seeded random ones. */
function float32Cases(): Float32Array {
  const special = [
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001, 0x807fffff, 0x7f7fffff,
    0x3f808000, 0x3f818000, 0x3f80ffff, 0x477fe000, 0x477ff000, 0x387fc000, 0x33000000, 0x33000001, 0xb3800000, 0x3f801000, 0x3f803000,
  ];
  const bits = new Uint32Array(4096);
  bits.set(special);
  let s = 12345;
  for (let i = special.length; i < bits.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    // Exponents spread over the float16 and bfloat16 ranges and beyond.
    bits[i] = (s & 0x807fffff) | ((((s >>> 8) % 80) + 88) << 23);
  }
  return new Float32Array(bits.buffer);
}

/** A tensor of dtype with the given raw 16-bit patterns. */
function halves(bits: Uint16Array, sizes: number[], dtype: typeof kBFloat16 | typeof kHalf): Tensor {
  const t = zeros(sizes, dtype);
  (t.storageView() as Uint16Array).set(bits);
  return t;
}

function bitsOf(t: Tensor): number[] { return Array.from(t.storageView() as Uint16Array); }

/** The bfloat16/float16 library, built once for both describes below. */
let halvesLib: Library | null = null;
const halves16 = () => (halvesLib ??= load("cpp_api_halves", "halves.cpp"));

describe("c10::BFloat16 and c10::Half elements", () => {
  const lib = halves16();
  const x = float32Cases();

  it("float -> BFloat16 rounds as the host does, through a write stream", () => {
    const out = lib.call("to_bf16", [tensor(x, [x.length])]) as Tensor;
    expect(out.dtype).toBe(kBFloat16);
    expect(bitsOf(out)).toEqual(Array.from(x, f32ToBf16Bits));
  });

  it("float -> Half rounds as the host does (subnormals, ties, overflow), through an element-wise accessor", () => {
    const out = lib.call("to_half", [tensor(x, [x.length])]) as Tensor;
    expect(out.dtype).toBe(kHalf);
    expect(bitsOf(out)).toEqual(Array.from(x, f32ToF16Bits));
  });

  it("BFloat16 -> float is exact, through TCM copies", () => {
    const bits = Uint16Array.from({ length: 2000 }, (_, i) => (i * 40503) & 0xffff).filter((b) => (b & 0x7f80) !== 0x7f80);
    const out = lib.call("bf16_twice", [halves(bits, [bits.length], kBFloat16)]) as Tensor;
    expect(out.dtype).toBe(kFloat);
    expect(Array.from(out.data() as Float32Array)).toEqual(Array.from(bits, (b) => Math.fround(2 * bf16BitsToF32(b))));
  });

  it("Half -> float -> Half through a 2-d accessor: negation flips only the sign bit", () => {
    const bits = Uint16Array.from({ length: 30 * 40 }, (_, i) => (i * 2654435761) >>> 16).filter((_, i) => i < 1200);
    const out = lib.call("half_negate2d", [halves(bits, [30, 40], kHalf)]) as Tensor;
    expect(out.sizes()).toEqual([30, 40]);
    // NaN payloads are quieted by the round trip through float; every other value comes back with its sign flipped.
    const expected = Array.from(bits, (b) => f32ToF16Bits(-f16BitsToF32(b)));
    expect(bitsOf(out)).toEqual(expected);
    expect(bitsOf(out).filter((b, i) => (bits[i] & 0x7c00) !== 0x7c00 && b !== (bits[i] ^ 0x8000))).toEqual([]);
  });
});

describe("c10's arithmetic on 16-bit floats", () => {
  const lib = halves16();
  // A product whose bits below 16-bit precision are cancelled by the addend: 0 when the product is rounded first (as
  // c10's operators do), 2^-14 (bfloat16) or 2^-20 (float16) when computed in float throughout. Then seeded values.
  const cases = (toBits: (f: number) => number, fromBits: (b: number) => number, one: number, ulp: number) => {
    const values = [one + ulp, one + ulp, -(one + 2 * ulp)];
    const seeded = Array.from({ length: 3 * 600 }, (_, i) => fromBits(toBits(Math.fround(Math.sin(i * 12.9898) * 4))));
    return [0, 1, 2].map((k) => Uint16Array.from([values[k], ...seeded.slice(k * 600, (k + 1) * 600)], toBits));
  };
  const fma = (a: number, b: number, c: number, toBits: (f: number) => number, fromBits: (b: number) => number) =>
    toBits(Math.fround(fromBits(toBits(Math.fround(a * b))) + c));

  it.each([
    ["bf16_fma", kBFloat16, f32ToBf16Bits, bf16BitsToF32, 2 ** -7],
    ["half_fma", kHalf, f32ToF16Bits, f16BitsToF32, 2 ** -10],
  ] as const)("%s: a * b + c rounds the product to 16 bits first, as c10 does (bit for bit)", (op, dtype, toBits, fromBits, ulp) => {
    const [a, b, c] = cases(toBits, fromBits, 1, ulp);
    const out = lib.call(op, [a, b, c].map((bits) => halves(bits, [bits.length], dtype))) as Tensor;
    const want = Array.from(a, (_, i) => fma(fromBits(a[i]), fromBits(b[i]), fromBits(c[i]), toBits, fromBits));
    expect(bitsOf(out)[0], "the cancelling case is exactly 0").toBe(0);
    expect(bitsOf(out)).toEqual(want);
  });

  it("a BFloat16 element with a float is a float; with an integer (size_t too), a BFloat16; negation and / 3 as c10", () => {
    const [a] = cases(f32ToBf16Bits, bf16BitsToF32, 1, 2 ** -7);
    const out = Array.from(lib.call("bf16_mixed", [halves(a, [a.length], kBFloat16)]).data() as Float32Array);
    const n = a.length;
    const bf = (f: number) => bf16BitsToF32(f32ToBf16Bits(Math.fround(f)));
    a.forEach((bits, i) => {
      const x = bf16BitsToF32(bits);
      expect(out[i], `float ${i}`).toBe(Math.fround(Math.fround(x * Math.fround(0.3)) + 1));
      expect(out[n + i], `size_t ${i}`).toBe(bf(bf(x * 3) + 1));
      expect(out[2 * n + i], `negated ${i}`).toBe(bf(-x / 3));
    });
  });
});

describe("the other element types", () => {
  const lib = load("cpp_api_elements", "elements.cpp");
  const n = 300;
  const cases: [string, string, ArrayLike<number | bigint>, (v: never) => number | bigint][] = [
    ["f32", "float32", Float32Array.from({ length: n }, (_, i) => (i - 150) * 0.37), (v: number) => Math.fround(v + 1)],
    ["i64", "int64", BigInt64Array.from({ length: n }, (_, i) => BigInt(i - 150) * 3000000000n + (i === 0 ? 9223372036854775807n : 0n)), (v: bigint) => BigInt.asIntN(64, v + 1n)],
    ["i32", "int32", Int32Array.from({ length: n }, (_, i) => (i - 150) * 14000000 + (i === 0 ? 2147483647 : 0)), (v: number) => (v + 1) | 0],
    ["i16", "int16", Int16Array.from({ length: n }, (_, i) => i * 219 - 32768), (v: number) => ((v + 1) << 16) >> 16],
    ["i8", "int8", Int8Array.from({ length: n }, (_, i) => i - 128), (v: number) => ((v + 1) << 24) >> 24],
    ["u8", "uint8", Uint8Array.from({ length: n }, (_, i) => i), (v: number) => (v + 1) & 0xff],
  ];
  it.each(cases)("%s: tensor_to_tcm, accessor<T, 1>, read and write streams", (suffix, dtype, input, plusOne) => {
    const out = lib.call(`plus_one_${suffix}`, [tensor(input as never, [n], dtype)]) as Tensor;
    expect(String(out.dtype)).toBe(dtype);
    expect(Array.from(out.data() as ArrayLike<number | bigint>)).toEqual(Array.from(input as ArrayLike<never>, plusOne));
  });
});

describe("long elements", () => {
  it("are a compile error that says to write int64_t (long is 32 bits in WebAssembly, 64 on the device)", () => {
    expectGpsimdError(() => custom_op.load({ name: "cpp_api_long", compute_srcs: [api("long.cpp")], shape_srcs: [api("shape.ts"), api("register-long.ts")], build_directory: TEST_BUILD_DIR }),
      BuildError, "E_BUILD", [`${api("long.cpp")}:7:`, "'long' is 32 bits in gpsimd's WebAssembly build (64 on the device): write int64_t for int64 (kLong) elements"]);
  });
});

describe("Tensor-Scalar and Scalar-Tensor operations", () => {
  const lib = load("cpp_api_scalars", "scalars.cpp");
  const a = Int32Array.from({ length: 50 }, (_, i) => i * 7 - 170);
  const b = Int32Array.from({ length: 50 }, (_, i) => 3 - i * 5);
  const ints = (v: Int32Array) => tensor(v, [v.length], kInt);
  const run = (op: string, ...args: Tensor[]) => lib.call(op, args) as Tensor;
  const values = (t: Tensor) => Array.from(t.data() as ArrayLike<number>);

  it("an integral alpha or Scalar keeps int32 tensors int32 (torch::add(a, b), sub(a, b, 3), mul(a, 3), clamp(a, -3, 3))", () => {
    const cases: [string, Tensor, number[]][] = [
      ["int_add", run("int_add", ints(a), ints(b)), Array.from(a, (v, i) => v + b[i])],
      ["int_sub_alpha", run("int_sub_alpha", ints(a), ints(b)), Array.from(a, (v, i) => v - 3 * b[i])],
      ["int_mul3", run("int_mul3", ints(a)), Array.from(a, (v) => v * 3)],
      ["int_clamp", run("int_clamp", ints(a)), Array.from(a, (v) => Math.min(3, Math.max(-3, v)))],
    ];
    for (const [op, out, expected] of cases) {
      expect(out.dtype, op).toBe(kInt);
      expect(values(out), op).toEqual(expected);
    }
  });

  it("a floating Scalar promotes int32 to float32 (torch::add(a, 2.5))", () => {
    const out = run("int_add_half", ints(a));
    expect(out.dtype).toBe(kFloat);
    expect(values(out)).toEqual(Array.from(a, (v) => v + 2.5));
  });

  it("floating alpha and Scalars on float32 (torch::clamp(torch::sub(a, b, 0.5), -0.5, 0.25))", () => {
    const x = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i) * 2);
    const y = Float32Array.from({ length: 64 }, (_, i) => Math.cos(i * 3));
    const out = run("float_sub_clamp", tensor(x, [64]), tensor(y, [64]));
    expect(out.dtype).toBe(kFloat);
    // alpha * other is rounded to float32 before the subtraction (no fused multiply-add), as tensor-ops.ts documents.
    expect(values(out)).toEqual(Array.from(x, (v, i) => Math.min(0.25, Math.max(-0.5, Math.fround(v - Math.fround(0.5 * y[i]))))));
  });

  it("Scalar-first forms: pow(2, t), pow(0.5, t), bitwise_and(0xF0, t), bitwise_or_out(out, 0x0F, t)", () => {
    const small = Int32Array.from({ length: 31 }, (_, i) => i);
    const two = run("two_pow", ints(small));
    expect(two.dtype).toBe(kInt);
    expect(values(two)).toEqual(Array.from(small, (v) => 2 ** v | 0));
    const half = run("half_pow", ints(small));
    expect(half.dtype).toBe(kFloat);
    expect(values(half)).toEqual(Array.from(small, (v) => Math.fround(0.5 ** v)));
    expect(values(run("mask_and", ints(a)))).toEqual(Array.from(a, (v) => v & 0xf0));
    expect(values(run("mask_or_out", ints(a)))).toEqual(Array.from(a, (v) => v | 0x0f));
  });
});

describe("assert() in a C++ kernel", () => {
  const lib = custom_op.load({ name: "cpp_api_asserts", compute_srcs: [api("asserts.cpp"), api("asserts-cassert.cpp")], shape_srcs: [api("shape.ts"), api("register-asserts.ts")], build_directory: TEST_BUILD_DIR });
  libraries.push(lib);
  it("passes through when it holds", () => {
    const out = lib.call("same_sizes", [tensor([1, 2, 3]), tensor([4, 5, 6])]) as Tensor;
    expect(Array.from(out.data() as Float32Array)).toEqual([5, 7, 9]);
  });
  it("a failed one is the runtime's abort error with the expression and the .cpp line", () => {
    expectGpsimdError(() => lib.call("same_sizes", [tensor([1, 2, 3]), tensor([4, 5])]), KernelAbortError, "E_ABORT",
      ["cpp_api_asserts::same_sizes (core 0): abort: assertion failed: a.sizes() == b.sizes()", `${api("asserts.cpp")}:6`]);
  });
  it("so is one whose <cassert> was included after torch.h (the C library's macro, through __assert_fail)", () => {
    expect(Array.from((lib.call("same_numel", [tensor([1, 2]), tensor([3, 4])]) as Tensor).data() as Float32Array)).toEqual([4, 6]);
    expectGpsimdError(() => lib.call("same_numel", [tensor([1, 2, 3]), tensor([4, 5])]), KernelAbortError, "E_ABORT",
      ["cpp_api_asserts::same_numel (core 0): abort: assertion failed: a.numel() == b.numel()", `${api("asserts-cassert.cpp")}:8`]);
  });
});
