// Values in tensors made on the host: a value an integer dtype cannot hold
// is a typed error naming the value and the dtype (never a bare RangeError),
// and float bit patterns given as typed arrays survive exactly, signalling
// NaNs and NaN payloads included.
import { describe, it, expect } from "vitest";
import { tensor, zeros, kInt, kChar, kShort, kByte, kLong, kFloat, kBFloat16, kHalf, TensorValueError } from "gpsimd";
import { expectGpsimdError } from "../helpers.js";

const F32_NANS = [0x7f800001, 0xff800001, 0x7fa00000, 0x7fbfffff, 0x7fc00001, 0xffffffff, 0x80000000, 0x7f800000];
const bitsOf = (a: Float32Array) => Array.from(new Uint32Array(a.buffer, a.byteOffset, a.length));

describe("values an integer dtype cannot hold", () => {
  for (const [dtype, name] of [[kInt, "int32"], [kChar, "int8"], [kShort, "int16"], [kByte, "uint8"], [kLong, "int64"]] as const) {
    it(`NaN and ±Infinity to ${name} are TensorValueError naming the value and the dtype`, () => {
      for (const v of [NaN, Infinity, -Infinity]) {
        const e = expectGpsimdError(() => tensor([1, v], undefined, dtype), TensorValueError, "E_NOT_REPRESENTABLE", [`Cannot convert ${v} to ${name}`]);
        expect(e.details).toMatchObject({ value: String(v), dtype: name });
        expectGpsimdError(() => tensor(new Float32Array([2, v]), undefined, dtype), TensorValueError, "E_NOT_REPRESENTABLE", [String(v), name]);
        expectGpsimdError(() => zeros([2], dtype).copy_([0, v]), TensorValueError, "E_NOT_REPRESENTABLE", [String(v), name]);
      }
    });
  }

  it("int64 from fractional numbers truncates toward zero, as the other integer dtypes do", () => {
    expect(Array.from(tensor([1.75, -2.5], undefined, kLong).data() as BigInt64Array)).toEqual([1n, -2n]);
  });
});

describe("float bit patterns survive exactly", () => {
  it("float32 from a Float32Array keeps signalling NaNs, payloads, signs and -0 bit for bit", () => {
    const src = new Float32Array(new Uint32Array(F32_NANS).buffer);
    const t = tensor(src, undefined, kFloat);
    expect(bitsOf(t.data() as Float32Array).map((b) => b.toString(16))).toEqual(F32_NANS.map((b) => b.toString(16)));
    const copy = zeros([F32_NANS.length], kFloat).copy_(src);
    expect(bitsOf(copy.data() as Float32Array)).toEqual(F32_NANS);
    expect(bitsOf(zeros([F32_NANS.length], kFloat).copy_(t).data() as Float32Array)).toEqual(F32_NANS);
  });

  it("bfloat16 and float16 from 16-bit patterns keep signalling NaNs, and read back widened exactly", () => {
    const bf16 = [0x7f81, 0xff81, 0x7fc1, 0x7f80, 0x8000];
    const t = tensor(new Uint16Array(bf16), undefined, kBFloat16);
    expect(Array.from(t.storageView() as Uint16Array)).toEqual(bf16);
    expect(bitsOf(t.data() as Float32Array)).toEqual(bf16.map((b) => (b << 16) >>> 0));
    const f16 = [0x7c01, 0xfc01, 0x7e01, 0x7c00, 0x8000];
    const h = tensor(new Uint16Array(f16), undefined, kHalf);
    expect(Array.from(h.storageView() as Uint16Array)).toEqual(f16);
    expect(bitsOf(h.data() as Float32Array).map((b) => b.toString(16))).toEqual(["7f802000", "ff802000", "7fc02000", "7f800000", "80000000"]);
  });
});
