// The numpy that kernels use inside kernels: dtypes (np.float32 is nl.float32), operators passed
// as op= (np.add is nl.add), a few scalar helpers (np.prod over a shape, np.sqrt of a number,
// np.pi). Array creation and host-side numpy are not part of it.
import { HostObject, NativeFunction, PyException, PyFloat, PyList, PyModule, PyTuple, type PyValue } from "../python/values.js";
import { NUMPY_DTYPES, float64, type NkiDType } from "../machine/nki-dtype.js";
import { native, intArg } from "./args.js";
import { dtypeArg } from "./dtype-arg.js";
import { NkiArray } from "../machine/tile.js";
import { OP_OF_FUNCTION } from "./nl-math.js";
import { scalarOf } from "./compute.js";
import { typeName } from "./args.js";

const SCALAR_MATH: Record<string, (x: number) => number> = {
  exp: Math.exp, log: Math.log, sqrt: Math.sqrt, tanh: Math.tanh, sin: Math.sin, cos: Math.cos, tan: Math.tan, arctan: Math.atan,
  abs: Math.abs, floor: Math.floor, ceil: Math.ceil, square: (x) => x * x, negative: (x) => -x, reciprocal: (x) => 1 / x,
};
const SCALAR_BINARY: Record<string, (x: number, y: number) => number> = {
  add: (x, y) => x + y, subtract: (x, y) => x - y, multiply: (x, y) => x * y, divide: (x, y) => x / y,
  maximum: Math.max, minimum: Math.min, power: Math.pow,
};

export function makeNumpy(nl: Map<string, PyValue>): PyModule {
  const np = new PyModule("numpy");
  for (const [k, v] of NUMPY_DTYPES) np.attrs.set(k, v);
  np.attrs.set("pi", new PyFloat(Math.PI));
  np.attrs.set("e", new PyFloat(Math.E));
  np.attrs.set("inf", new PyFloat(Infinity));
  np.attrs.set("nan", new PyFloat(NaN));
  // np.add and friends: on tiles they are nl's instruction; on numbers, the number.
  const names = new Set([...Object.keys(SCALAR_MATH), ...Object.keys(SCALAR_BINARY), "equal", "not_equal", "greater", "greater_equal", "less", "less_equal",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "mod", "fmod", "floor_divide",
    "sigmoid", "rsqrt", "logical_not", "invert", "sign", "trunc"]);
  for (const name of names) {
    const nlf = nl.get(name === "invert" ? "invert" : name);
    if (!(nlf instanceof NativeFunction)) continue;
    const f = new NativeFunction(`numpy.${name}`, (args, kwargs, ctx) => {
      if (args.some((a) => a instanceof NkiArray)) return nlf.call(args, kwargs, ctx);
      const xs = args.map(scalarOf);
      if (xs.some((x) => x === undefined)) throw new PyException("TypeError", `numpy.${name} inside a kernel takes tiles or numbers, not ${args.map(typeName).join(", ")}`, ctx.site);
      const un = SCALAR_MATH[name], bin = SCALAR_BINARY[name];
      if (xs.length === 1 && un) return new PyFloat(un(xs[0]!));
      if (xs.length === 2 && bin) {
        const r = bin(xs[0]!, xs[1]!);
        return args.every((a) => typeof a === "number") && Number.isInteger(r) && name !== "divide" ? r : new PyFloat(r);
      }
      throw new PyException("TypeError", `numpy.${name} on numbers is not supported inside kernels`, ctx.site);
    });
    const op = OP_OF_FUNCTION.get(nlf);
    if (op) OP_OF_FUNCTION.set(f, op);
    np.attrs.set(name, f);
  }
  np.attrs.set("prod", new NativeFunction("numpy.prod", (args, _kw, ctx) => {
    const v = args[0];
    const items = v instanceof PyTuple || v instanceof PyList ? v.items : [v];
    let p = 1, float = false;
    for (const x of items) {
      const n = scalarOf(x);
      if (n === undefined) throw new PyException("TypeError", `numpy.prod inside a kernel takes a tuple of numbers, not ${typeName(x)}`, ctx.site);
      if (x instanceof PyFloat) float = true;
      p *= n;
    }
    return float ? new PyFloat(p) : p;
  }));
  addArrayMakers(np);
  // np.max / np.sum ... as reduction op= (nisa.range_select(reduce_op=np.max)): nl's reductions.
  for (const [npName, nlName] of [["max", "max"], ["min", "min"], ["sum", "sum"], ["amax", "max"], ["amin", "min"], ["mean", "mean"]]) {
    const f = nl.get(nlName);
    if (f !== undefined) np.attrs.set(npName, f);
  }
  return np;
}

/** A numpy array made inside a kernel at trace time (np.identity): host data for nl.shared_constant. */
export class HostArray extends HostObject {
  readonly typeName = "ndarray";
  constructor(readonly shape: readonly number[], readonly values: Float64Array, readonly dtype: NkiDType) { super(); }
  override getAttr(name: string): PyValue | undefined {
    if (name === "shape") return new PyTuple([...this.shape]);
    if (name === "dtype") return this.dtype;
    return undefined;
  }
}

function identity(n: number, m: number, dtype: NkiDType): HostArray {
  const v = new Float64Array(n * m);
  for (let i = 0; i < Math.min(n, m); i++) v[i * m + i] = 1;
  return new HostArray([n, m], v, dtype);
}

export function addArrayMakers(np: PyModule): void {
  np.attrs.set("identity", native("numpy.identity", [["n"], ["dtype", null]], (a, ctx) => {
    const n = intArg(a.n, "n", ctx);
    return identity(n, n, dtypeArg(a.dtype, ctx) ?? float64);
  }));
  np.attrs.set("eye", native("numpy.eye", [["N"], ["M", null], ["k", 0], ["dtype", null]], (a, ctx) => {
    const n = intArg(a.N, "N", ctx);
    return identity(n, a.M === null ? n : intArg(a.M, "M", ctx), dtypeArg(a.dtype, ctx) ?? float64);
  }, true));
}
