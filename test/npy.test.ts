// .npy load and save: files byte for byte as numpy's format spec (numpy/lib/format.py) lays them out, round
// trips of every dtype, bfloat16 as raw <u2 bits, and typed errors for what gpsimd does not read.
import { describe, it, expect, afterAll } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { tensor, loadNpy, saveNpy, toNpy, fromNpy, NpyFormatError, dtypeInfo, kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte, type Tensor } from "gpsimd";

const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-npy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));

/** A version 1.0 file: magic, version, little-endian header length, header text, data. */
function npyFile(headerText: string, data: Uint8Array): Uint8Array {
  return Uint8Array.from([0x93, ...ascii("NUMPY"), 1, 0, headerText.length & 0xff, headerText.length >> 8, ...ascii(headerText), ...data]);
}

function bytesOf(t: Tensor): number[] {
  const v = t.storageView();
  return Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
}

describe("the bytes np.save writes", () => {
  it("float32 [2, 3]: the dict, 20 spaces of room for the first size, padding to 128 bytes, then the data", () => {
    // 59-character dict + 20 growth spaces + 38 padding spaces + "\n" = 118 header bytes; 10 + 118 = 128.
    const text = `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }${" ".repeat(58)}\n`;
    expect(text.length).toBe(118);
    const values = Float32Array.of(0, 1.5, -2, 3, 4, 5);
    const expected = npyFile(text, new Uint8Array(values.buffer));
    const t = tensor(values, [2, 3]);
    expect(Array.from(toNpy(t))).toEqual(Array.from(expected));
    const back = fromNpy(expected);
    expect(back.dtype).toBe(kFloat);
    expect(back.sizes()).toEqual([2, 3]);
    expect(Array.from(back.data() as Float32Array)).toEqual(Array.from(values));
  });

  it("an int8 scalar (shape ()): no growth room, 62 padding spaces", () => {
    const text = `{'descr': '|i1', 'fortran_order': False, 'shape': (), }${" ".repeat(62)}\n`;
    const expected = npyFile(text, Uint8Array.of(0xfb));
    expect(Array.from(toNpy(tensor(Int8Array.of(-5), [], "int8")))).toEqual(Array.from(expected));
    expect(fromNpy(expected).item()).toBe(-5);
  });

  it("reads headers other writers make: 1-tuples, double quotes, unpadded", () => {
    const t = fromNpy(npyFile(`{"descr": "<i2", "shape": (3,), "fortran_order": False}\n`, new Uint8Array(Int16Array.of(1, -2, 300).buffer)));
    expect(t.dtype).toBe(kShort);
    expect(Array.from(t.data() as Int16Array)).toEqual([1, -2, 300]);
  });
});

describe("round trips", () => {
  it("every dtype through a file, bit for bit (bfloat16 as <u2 when asked for)", () => {
    const values = Array.from({ length: 15 }, (_, i) => (i * 37) % 23 - 11 + (i % 3) / 4);
    for (const dtype of [kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte]) {
      const info = dtypeInfo(dtype);
      const data = info.isFloating ? Float32Array.from(values) : dtype === kLong ? BigInt64Array.from(values, (v) => BigInt(Math.trunc(v))) : Int32Array.from(values, Math.trunc);
      const t = tensor(data, [3, 5], dtype);
      const file = path.join(dir, `${info.name}.npy`);
      saveNpy(file, t);
      const back = loadNpy(file, dtype === kBFloat16 ? { dtype: kBFloat16 } : {});
      expect(back.dtype, info.name).toBe(dtype);
      expect(back.sizes()).toEqual([3, 5]);
      expect(bytesOf(back), info.name).toEqual(bytesOf(t));
    }
  });

  it("a bfloat16 file is <u2 and does not load as bfloat16 unless asked for", () => {
    const bytes = toNpy(tensor([1, -2], [2], "bfloat16"));
    expect(new TextDecoder().decode(bytes.subarray(10, 30))).toBe("{'descr': '<u2', 'fo");
    expect(() => loadNpy(bytes)).toThrow(NpyFormatError);
    expect(Array.from(loadNpy(bytes, { dtype: "bfloat16" }).data() as Float32Array)).toEqual([1, -2]);
  });
});

describe("what gpsimd does not read is a typed error", () => {
  const code = (fn: () => unknown) => { try { fn(); } catch (e) { expect(e).toBeInstanceOf(NpyFormatError); return (e as NpyFormatError).code; } return "no error"; };
  it("big-endian, fortran_order, other dtypes, not .npy, short data", () => {
    const f4 = new Uint8Array(Float32Array.of(1, 2).buffer);
    expect(code(() => fromNpy(npyFile(`{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n`, f4)))).toBe("E_NPY_BYTE_ORDER");
    expect(code(() => fromNpy(npyFile(`{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n`, f4)))).toBe("E_NPY_FORTRAN");
    expect(code(() => fromNpy(npyFile(`{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n`, f4)))).toBe("E_NPY_DTYPE");
    expect(code(() => fromNpy(npyFile(`{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n`, f4)))).toBe("E_NPY_FORMAT");
    expect(code(() => fromNpy(Uint8Array.from(ascii("PK\u0003\u0004 a zip file"))))).toBe("E_NPY_FORMAT");
    const file = path.join(dir, "big.npy");
    writeFileSync(file, npyFile(`{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }\n`, Uint8Array.of(0, 0, 0, 1)));
    expect(() => loadNpy(file)).toThrow(`${file}: descr '>i4' is big-endian`);
  });
});
