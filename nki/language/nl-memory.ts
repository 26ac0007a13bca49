// nl's tile and tensor creation (ndarray, zeros, full, *_like) and data movement (load, store,
// copy, broadcast_to, transpose, load_transpose2d), and device_print.
import { PyException, PyFloat, type CallContext, type PyValue } from "../python/values.js";
import { tileEngine } from "../machine/engine.js";
import { NkiArray, Storage, contiguousStrides, wholeArray } from "../machine/tile.js";
import { Tensor } from "../../host/device/tensor.js";
import { HostArray } from "./numpy.js";
import { currentRun } from "../machine/kernel-run.js";
import { float32, uint8, type NkiDType } from "../machine/nki-dtype.js";
import { operand, checkUninit, shapeError } from "../machine/instructions.js";
import { checkAccess, fullBox } from "../machine/access.js";
import { hbm } from "../../host/device/hbm.js";
import { output } from "../../host/output.js";
import { native, partitionAxisOf, shapeArg, typeName } from "./args.js";
import { dtypeArg, requiredDType } from "./dtype-arg.js";
import { bufferArg, type BufferName } from "./constants.js";
import { arrayArg, boxOf, copyInto, fillView, newTile, scalarOf } from "./compute.js";
import { transposedView } from "./nl-math.js";

/** A new tile or HBM tensor of the buffer asked for (its elements unwritten). */
export function allocate(shape: readonly number[], dtype: NkiDType, buffer: BufferName, name: PyValue, ctx: CallContext, partitionAxis = 0): NkiArray {
  const run = currentRun(ctx.site);
  const nm = typeof name === "string" && name !== "" ? name : undefined;
  if (buffer === "sbuf" || buffer === "psum") return run.allocTile(buffer, shape, dtype, ctx.site, nm, partitionAxis);
  return run.allocHbm(buffer, shape, dtype, ctx.site, nm);
}

function filled(shape: readonly number[], value: number, dtype: NkiDType, buffer: BufferName, name: PyValue, instr: string, ctx: CallContext, partitionAxis = 0): NkiArray {
  const t = allocate(shape, dtype, buffer, name, ctx, partitionAxis);
  fillView(instr, t, value, ctx);
  return t;
}

export function makeMemoryFunctions(): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  const add = (name: string, f: PyValue) => out.set(name, f);
  add("ndarray", native("nl.ndarray", [["shape"], ["dtype"], ["buffer", null], ["name", ""], ["address", null]], (a, ctx) =>
    allocate(shapeArg(a.shape, "shape", ctx), requiredDType(a.dtype, "nl.ndarray", ctx), bufferArg(a.buffer, "sbuf", ctx), a.name, ctx, partitionAxisOf(a.shape))));
  add("empty", out.get("ndarray")!);
  add("zeros", native("nl.zeros", [["shape"], ["dtype"], ["buffer", null], ["name", ""]], (a, ctx) =>
    filled(shapeArg(a.shape, "shape", ctx), 0, requiredDType(a.dtype, "nl.zeros", ctx), bufferArg(a.buffer, "sbuf", ctx), a.name, "nl.zeros", ctx, partitionAxisOf(a.shape)), true));
  add("ones", native("nl.ones", [["shape"], ["dtype"], ["buffer", null], ["name", ""]], (a, ctx) =>
    filled(shapeArg(a.shape, "shape", ctx), 1, requiredDType(a.dtype, "nl.ones", ctx), bufferArg(a.buffer, "sbuf", ctx), a.name, "nl.ones", ctx, partitionAxisOf(a.shape)), true));
  add("full", native("nl.full", [["shape"], ["fill_value"], ["dtype"], ["buffer", null], ["name", ""]], (a, ctx) => {
    const v = scalarOf(a.fill_value);
    if (v === undefined) throw new PyException("TypeError", `nl.full: fill_value must be a number, not ${typeName(a.fill_value)}`, ctx.site);
    return filled(shapeArg(a.shape, "shape", ctx), v, requiredDType(a.dtype, "nl.full", ctx), bufferArg(a.buffer, "sbuf", ctx), a.name, "nl.full", ctx, partitionAxisOf(a.shape));
  }, true));
  const like = (name: string, value: number | null) => native(`nl.${name}`, [["x"], ["dtype", null], ["buffer", null], ["name", ""]], (a, ctx) => {
    const x = arrayArg(a.x, "x", `nl.${name}`, ctx);
    const dflt: BufferName = x.storage.isHbm ? (x.storage.kind === "shared_hbm" ? "shared_hbm" : "private_hbm") : (x.storage.kind as BufferName);
    const t = allocate(x.shape, dtypeArg(a.dtype, ctx) ?? x.dtype, bufferArg(a.buffer, dflt, ctx), a.name, ctx);
    if (value !== null) fillView(`nl.${name}`, t, value, ctx);
    return t;
  }, true);
  add("empty_like", like("empty_like", null));
  add("ndarray_like", like("ndarray_like", null));
  add("zeros_like", like("zeros_like", 0));
  add("ones_like", like("ones_like", 1));

  add("load", native("nl.load", [["src"], ["dtype", null], ["mask", null]], (a, ctx) => load("nl.load", a.src, dtypeArg(a.dtype, ctx), a.mask, ctx), true));
  add("store", native("nl.store", [["dst"], ["value"], ["mask", null]], (a, ctx) => {
    const dst = arrayArg(a.dst, "dst", "nl.store", ctx);
    copyInto("nl.store", dst, a.value, a.mask, ctx);
    return null;
  }, true));
  add("load_transpose2d", native("nl.load_transpose2d", [["src"], ["dtype", null], ["mask", null]], (a, ctx) => {
    const src = arrayArg(a.src, "src", "nl.load_transpose2d", ctx);
    if (src.shape.length !== 2) throw shapeError("nl.load_transpose2d", `src must be 2-D; it has shape (${src.shape.join(", ")})`, ctx);
    return load("nl.load_transpose2d", transposedView(src), dtypeArg(a.dtype, ctx), a.mask, ctx);
  }, true));
  add("copy", native("nl.copy", [["x"], ["dtype", null], ["mask", null]], (a, ctx) => load("nl.copy", a.x, dtypeArg(a.dtype, ctx), a.mask, ctx), true));
  add("broadcast_to", native("nl.broadcast_to", [["x"], ["shape"], ["dtype", null]], (a, ctx) => {
    const x = arrayArg(a.x, "x", "nl.broadcast_to", ctx);
    const shape = shapeArg(a.shape, "shape", ctx);
    const t = newTile(shape, dtypeArg(a.dtype, ctx) ?? x.dtype, ctx);
    copyInto("nl.broadcast_to", t, x, null, ctx);
    return t;
  }, true));
  add("transpose", native("nl.transpose", [["x"], ["dtype", null], ["mask", null]], (a, ctx) => transpose("nl.transpose", a.x, dtypeArg(a.dtype, ctx), null, ctx), true));
  add("shared_constant", native("nl.shared_constant", [["constant"], ["dtype", null]], (a, ctx) => {
    if (!(a.constant instanceof HostArray)) throw new PyException("TypeError", `nl.shared_constant takes a numpy array made in the kernel (np.identity(...)), not ${typeName(a.constant)}`, ctx.site);
    return constantTensor(a.constant.shape, a.constant.values, dtypeArg(a.dtype, ctx) ?? a.constant.dtype, ctx);
  }, true));
  add("shared_identity_matrix", native("nl.shared_identity_matrix", [["n"], ["dtype", uint8], ["dst", null]], (a, ctx) => {
    const n = Number(scalarOf(a.n));
    const v = new Float64Array(n * n);
    for (let i = 0; i < n; i++) v[i * n + i] = 1;
    const identity = constantTensor([n, n], v, dtypeArg(a.dtype, ctx) ?? uint8, ctx);
    if (a.dst === null) return identity;
    // The current API's dst=: the identity is written there (it was ignored, leaving dst unwritten).
    const dst = arrayArg(a.dst, "dst", "nl.shared_identity_matrix", ctx);
    copyInto("nl.shared_identity_matrix", dst, identity, null, ctx);
    return dst;
  }, true));
  add("device_print", native("nl.device_print", [["print_prefix"], ["tensor"]], (a, ctx) => { devicePrint(String(a.print_prefix), a.tensor, ctx); return null; }, true));
  return out;
}

/** An HBM tensor holding constant values (every element defined), made at trace time as NKI makes it. */
function constantTensor(shape: readonly number[], values: Float64Array, dtype: NkiDType, ctx: CallContext): NkiArray {
  if (!dtype.hostDType) throw new PyException("TypeError", `nl.shared_constant: ${dtype.name} constants are not supported`, ctx.site);
  const t = new Tensor(shape, dtype.hostDType);
  t.copy_(Float32Array.from(values));
  return wholeArray(new Storage("private_hbm", t.address, 0, dtype, shape, ctx.site, undefined, t));
}

/** A copy of `src` (any view: HBM, SBUF or PSUM) in a new SBUF tile of its shape. */
export function load(instr: string, srcV: PyValue, dtype: NkiDType | null, mask: PyValue, ctx: CallContext): NkiArray {
  const src = arrayArg(srcV, "src", instr, ctx);
  checkAccess(src, boxOf(mask, src.shape, ctx), instr, ctx); // an access out of bounds is named before the tile's shape
  const t = newTile(src.shape, dtype ?? src.dtype, ctx);
  copyInto(instr, t, src, mask, ctx);
  return t;
}

/** The transpose of a 2-D tile (partition and free axes swapped) into `dest` or a new tile. */
export function transpose(instr: string, xV: PyValue, dtype: NkiDType | null, dest: NkiArray | null, ctx: CallContext, buffer: "sbuf" | "psum" = "sbuf"): NkiArray {
  const x = arrayArg(xV, "x", instr, ctx);
  if (x.shape.length !== 2) throw shapeError(instr, `transposes 2-D tiles; this one has shape (${x.shape.join(", ")})`, ctx);
  const shape = [x.shape[1], x.shape[0]];
  const out = dest ?? newTile(shape, dtype ?? x.dtype, ctx, buffer);
  const xo = operand(x, x.shape, fullBox(x.shape), instr, ctx);
  checkUninit(tileEngine().transpose(operand(out, shape, fullBox(shape), instr, ctx), xo), instr, [{ array: x, op: xo }], ctx);
  return out;
}

/** nl.device_print: the prefix and the values, as the simulator prints them, tagged with the SPMD instance. */
export function devicePrint(prefix: string, v: PyValue, ctx: CallContext): void {
  const run = currentRun(ctx.site);
  const tag = run.launch.instances > 1 ? `[instance ${run.describeInstance()}] ` : "";
  const s = scalarOf(v);
  if (s !== undefined) { output().printf(`${tag}${prefix} ${v instanceof PyFloat ? s : s}\n`); return; }
  const x = arrayArg(v, "tensor", "nl.device_print", ctx);
  // Read the values through a float32 copy made by the engine (it reports unwritten elements).
  const copy = newTile(x.shape, float32, ctx);
  copyInto("nl.device_print", copy, x, null, ctx);
  const values = new Float32Array(hbm().memory.buffer, copy.storage.addr, copy.numel).slice();
  const integral = !x.dtype.isFloat;
  output().printf(`${tag}${prefix} ${formatArray(values, x.shape, integral)}\n`);
}

/**
 * numpy-style nested brackets; arrays of more than 1000 elements are summarised as numpy prints them
 * (the first and last 3 entries of each axis around "...").
 */
function formatArray(values: Float32Array, shape: readonly number[], integral: boolean): string {
  const fmt = (x: number) => (integral ? String(Math.trunc(x)) : Number.isInteger(x) ? `${x}.` : String(x));
  const strides = contiguousStrides(shape);
  const summarise = values.length > 1000;
  const EDGE = 3;
  const rec = (dim: number, off: number, indent: string): string => {
    if (dim === shape.length) return fmt(values[off]);
    const n = shape[dim];
    const idx = summarise && n > 2 * EDGE ? [...Array(EDGE).keys(), -1, ...Array.from({ length: EDGE }, (_, k) => n - EDGE + k)] : [...Array(n).keys()];
    const parts = idx.map((i) => (i < 0 ? "..." : rec(dim + 1, off + i * strides[dim], indent + " ")));
    return `[${parts.join(dim === shape.length - 1 ? " " : `\n${indent} `)}]`;
  };
  return rec(0, 0, "");
}

