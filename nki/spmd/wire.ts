// Arguments across threads: a tensor goes as its address, sizes and dtype
// name, and comes back on the other side as a borrowed tensor over the same
// device memory (the receiving thread never frees it).
import { Tensor, borrowedTensor } from "../../host/device/tensor.js";
import { parseDType } from "../../host/device/dtype.js";
import type { NkiValue } from "../host/arguments.js";
import type { OutputRecord } from "../host/runtime.js";
import type { OutputRef, TensorRef, WireValue } from "./protocol.js";

export function tensorRef(t: Tensor): TensorRef {
  return { tensor: { addr: t.address, sizes: t.sizes(), dtype: t.dtype.name } };
}

export function toWire(v: NkiValue): WireValue {
  if (v instanceof Tensor) return tensorRef(v);
  if (Array.isArray(v)) return v.map(toWire);
  return v as WireValue;
}

function isRef(v: WireValue): v is TensorRef {
  return typeof v === "object" && v !== null && !Array.isArray(v) && "tensor" in v;
}

export function borrowed(ref: TensorRef): Tensor {
  return borrowedTensor(ref.tensor.addr, ref.tensor.sizes, parseDType(ref.tensor.dtype));
}

export function fromWire(v: WireValue): NkiValue {
  if (isRef(v)) return borrowed(v);
  if (Array.isArray(v)) return v.map(fromWire);
  return v;
}

/** An output record as it crosses threads. */
export function outputRef(r: OutputRecord): OutputRef {
  return { ...tensorRef(r.tensor), initAddr: r.initAddr, name: r.name, site: r.site };
}

/** The record on the receiving thread, over a borrowed tensor. */
export function outputRecord(ref: OutputRef): OutputRecord {
  return { tensor: borrowed(ref), initAddr: ref.initAddr, name: ref.name, site: ref.site };
}
