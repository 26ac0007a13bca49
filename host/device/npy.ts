// NumPy .npy files (format versions 1.0, 2.0 and 3.0), so tensors captured
// from numpy or PyTorch (np.save(f, t.numpy())) load as gpsimd tensors and
// results go back. Every dtype numpy shares with gpsimd maps one to one:
// <f4 float32, <f2 float16, <i4 int32, |i1 int8, <i8 int64, <i2 int16,
// |u1 uint8. numpy has no bfloat16: a bfloat16 tensor is saved as <u2 (its
// raw 16-bit patterns, as t.view(torch.int16).numpy().astype(np.uint16)
// gives them), and a <u2 file loads as bfloat16 only when asked for
// ({ dtype: "bfloat16" }). Big-endian data and fortran_order arrays are
// rejected with a typed error rather than silently reordered.
import { readFileSync, writeFileSync } from "node:fs";
import { kFloat, kBFloat16, kHalf, kInt, kChar, kLong, kShort, kByte, dtypeInfo, parseDType, type DType, type DTypeName } from "./dtype.js";
import { Tensor } from "./tensor.js";
import { empty, type DTypeLike } from "./factories.js";
import { NpyFormatError } from "../checks/errors.js";

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"

/** The descr numpy writes for each dtype (little-endian; "|" where byte order does not apply). */
const DESCR: Record<DTypeName, string> = {
  float32: "<f4", bfloat16: "<u2", float16: "<f2", int32: "<i4", int8: "|i1", int64: "<i8", int16: "<i2", uint8: "|u1",
};

/** descr (byte order "<", "|" or "=") -> dtype; <u2 is bfloat16 only when the caller says so. */
const FROM_DESCR: Record<string, DType> = {
  f4: kFloat, f2: kHalf, i4: kInt, i1: kChar, i8: kLong, i2: kShort, u1: kByte, u2: kBFloat16,
};

/** Options of loadNpy. */
export interface LoadNpyOptions {
  /** Only "bfloat16" is meaningful: read a <u2 file as bfloat16 bit patterns (see the file's comment). */
  dtype?: DTypeLike;
}

/**
 * The header numpy's np.save writes (numpy/lib/format.py): the dict literal, room for the first size to grow to
 * 21 digits, then spaces and a newline so the data starts on a 64-byte boundary (a full 64 when already aligned).
 */
function header(t: Tensor): Uint8Array {
  const sizes = t.sizes();
  const shape = sizes.length === 1 ? `(${sizes[0]},)` : `(${sizes.join(", ")})`;
  let dict = `{'descr': '${DESCR[t.dtype.name]}', 'fortran_order': False, 'shape': ${shape}, }`;
  if (sizes.length > 0) dict += " ".repeat(21 - String(sizes[0]).length);
  const long = 10 + dict.length + 1 >= 65536;
  const prefix = long ? 12 : 10;
  const pad = 64 - ((prefix + dict.length + 1) % 64);
  const text = `${dict}${" ".repeat(pad)}\n`;
  const total = prefix + text.length;
  const out = new Uint8Array(total);
  out.set(MAGIC);
  out[6] = long ? 2 : 1;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (long) view.setUint32(8, text.length, true); else view.setUint16(8, text.length, true);
  out.set(new TextEncoder().encode(text), prefix);
  return out;
}

/** The bytes of a .npy file holding t (a copy of its data). */
export function toNpy(t: Tensor): Uint8Array {
  const data = t.storageView();
  const head = header(t);
  const out = new Uint8Array(head.length + data.byteLength);
  out.set(head);
  out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), head.length);
  return out;
}

/** Writes t to a .npy file (bfloat16 as <u2 raw bits). */
export function saveNpy(file: string, t: Tensor): void {
  writeFileSync(file, toNpy(t));
}

function bad(code: string, message: string, details: Record<string, unknown> = {}): NpyFormatError {
  return new NpyFormatError(code, message, { details });
}

/** The value of one key of the header dict, as text. */
function field(dict: string, key: string, where: string): string {
  const m = new RegExp(`['"]${key}['"]\\s*:\\s*('[^']*'|"[^"]*"|True|False|\\([^)]*\\))`).exec(dict);
  if (!m) throw bad("E_NPY_FORMAT", `${where}: the header has no '${key}': ${dict.trim()}`);
  return m[1];
}

/** A tensor from the bytes of a .npy file. */
export function fromNpy(bytes: Uint8Array, options: LoadNpyOptions = {}, where = ".npy data"): Tensor {
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) throw bad("E_NPY_FORMAT", `${where}: not a .npy file (it does not start with \\x93NUMPY)`);
  const major = bytes[6];
  if (major < 1 || major > 3) throw bad("E_NPY_FORMAT", `${where}: .npy format version ${major}.${bytes[7]} (gpsimd reads 1.0, 2.0 and 3.0)`, { version: major });
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const prefix = major === 1 ? 10 : 12;
  const length = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (prefix + length > bytes.length) throw bad("E_NPY_FORMAT", `${where}: the header says ${length} bytes but the file ends first`);
  const dict = new TextDecoder(major === 3 ? "utf-8" : "latin1").decode(bytes.subarray(prefix, prefix + length));
  const descr = field(dict, "descr", where).slice(1, -1);
  if (field(dict, "fortran_order", where) !== "False") {
    throw bad("E_NPY_FORTRAN", `${where}: the array is in fortran_order (column-major); save it C-ordered (np.ascontiguousarray) first`);
  }
  const shapeText = field(dict, "shape", where);
  const sizes = shapeText.slice(1, -1).split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  if (sizes.some((s) => !Number.isSafeInteger(s) || s < 0)) throw bad("E_NPY_FORMAT", `${where}: shape ${shapeText} is not a tuple of sizes`);
  const order = descr[0], code = descr.slice(1);
  if (order === ">" || (order === "|" && !/^[iu]1$/.test(code))) {
    throw bad("E_NPY_BYTE_ORDER", `${where}: descr '${descr}' is big-endian; gpsimd reads little-endian data (arr.astype(arr.dtype.newbyteorder('<')) in numpy)`, { descr });
  }
  let dtype: DType | undefined = FROM_DESCR[code];
  const wanted = options.dtype === undefined ? undefined : parseDType(options.dtype);
  if (dtype === kBFloat16 && wanted !== kBFloat16) dtype = undefined;
  if (dtype === undefined || !"<|=".includes(order)) {
    const names = Object.entries(FROM_DESCR).filter(([c]) => c !== "u2").map(([c, t]) => `${c} (${dtypeInfo(t).name})`).join(", ");
    throw bad("E_NPY_DTYPE", `${where}: descr '${descr}' is not a gpsimd dtype; gpsimd reads ${names}, and u2 as bfloat16 bits with { dtype: "bfloat16" }`, { descr });
  }
  if (wanted !== undefined && wanted !== dtype) throw bad("E_NPY_DTYPE", `${where}: holds ${dtypeInfo(dtype).name} ('${descr}'), not ${dtypeInfo(wanted).name}`, { descr });
  const numel = sizes.reduce((a, b) => a * b, 1);
  const start = prefix + length;
  const nbytes = numel * dtypeInfo(dtype).bytes;
  if (bytes.length - start !== nbytes) throw bad("E_NPY_FORMAT", `${where}: ${dtypeInfo(dtype).name}[${sizes.join(", ")}] needs ${nbytes} bytes of data, the file has ${bytes.length - start}`);
  const t = empty(sizes, dtype);
  const dst = t.storageView();
  new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(bytes.subarray(start, start + nbytes));
  return t;
}

/** Loads a .npy file (a path, or its bytes) as a tensor. */
export function loadNpy(source: string | Uint8Array, options: LoadNpyOptions = {}): Tensor {
  return typeof source === "string" ? fromNpy(readFileSync(source), options, source) : fromNpy(source, options);
}
