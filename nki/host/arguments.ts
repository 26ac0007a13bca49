// What a kernel call passes: positional arguments (gpsimd tensors, numbers,
// bigints, booleans, strings, null, and arrays of those as Python tuples),
// and keyword arguments as a trailing plain object: avgpool(x, { pool_size: 2 }).
import { Tensor } from "../../host/device/tensor.js";
import { ArgumentError } from "../../host/checks/errors.js";

/** A value a kernel takes. Arrays become Python tuples; a JavaScript number that is an integer is a Python int, others a float. */
export type NkiValue = Tensor | number | bigint | boolean | string | null | readonly NkiValue[];
/** Keyword arguments: the last argument of a call when it is a plain object. */
export type NkiKwargs = { readonly [name: string]: NkiValue };
/** Any argument of a kernel call. */
export type NkiArg = NkiValue | NkiKwargs;

/** Positional and keyword arguments of one call. */
export interface CallArguments {
  args: NkiValue[];
  kwargs: Record<string, NkiValue>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof Tensor) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** Checks one value; `where` names it in the error ("argument 2", "keyword pool_size"). */
function checkValue(v: unknown, kernel: string, where: string): NkiValue {
  if (v instanceof Tensor) {
    if (v.is_meta) throw new ArgumentError("E_NKI_ARGUMENT", `${kernel}: ${where} is a meta tensor (${v.describe()}): a kernel needs a tensor with data`, { details: { kernel, argument: where } });
    if (v.disposed) throw new ArgumentError("E_NKI_ARGUMENT", `${kernel}: ${where} (${v.describe()}) was disposed`, { details: { kernel, argument: where } });
    return v;
  }
  if (v === null || typeof v === "boolean" || typeof v === "string" || typeof v === "bigint") return v;
  if (typeof v === "number") {
    if (Number.isNaN(v)) return v; // float('nan') is a Python float
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => checkValue(x, kernel, `${where}[${i}]`));
  const kind = v === undefined ? "undefined" : typeof v === "object" ? (v.constructor?.name ?? "object") : typeof v;
  throw new ArgumentError("E_NKI_ARGUMENT", `${kernel}: ${where} is ${kind}; a kernel takes gpsimd tensors, numbers, bigints, booleans, strings, null and arrays of those, and keyword arguments as a last plain object ({ pool_size: 2 })`, { details: { kernel, argument: where } });
}

/** Splits a call's arguments into positional and keyword ones, checking each. */
export function callArguments(kernel: string, raw: readonly unknown[]): CallArguments {
  const last = raw[raw.length - 1];
  const positional = isPlainObject(last) ? raw.slice(0, -1) : raw;
  const kwargs: Record<string, NkiValue> = {};
  if (isPlainObject(last)) {
    for (const [name, value] of Object.entries(last)) {
      if (!/^[A-Za-z_]\w*$/.test(name)) throw new ArgumentError("E_NKI_ARGUMENT", `${kernel}: keyword argument ${JSON.stringify(name)} is not a Python identifier`, { details: { kernel, argument: name } });
      kwargs[name] = checkValue(value, kernel, `keyword argument ${name}`);
    }
  }
  return { args: positional.map((v, i) => checkValue(v, kernel, `argument ${i + 1}`)), kwargs };
}

/** Every tensor among the arguments (to pin while an asynchronous call runs). */
export function tensorsOf(call: CallArguments): Tensor[] {
  const found: Tensor[] = [];
  const visit = (v: NkiValue): void => {
    if (v instanceof Tensor) found.push(v);
    else if (Array.isArray(v)) v.forEach(visit);
  };
  call.args.forEach(visit);
  Object.values(call.kwargs).forEach(visit);
  return found;
}

/** "float32[256, 1024], float32[256, 1024], pool_size=2" */
export function describeCall(call: CallArguments): string {
  const show = (v: NkiValue): string => v instanceof Tensor ? v.describe() : Array.isArray(v) ? `(${v.map(show).join(", ")})` : typeof v === "string" ? JSON.stringify(v) : v === null ? "None" : String(v);
  return [...call.args.map(show), ...Object.entries(call.kwargs).map(([k, v]) => `${k}=${show(v)}`)].join(", ");
}
