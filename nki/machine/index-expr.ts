// Index expressions: what nl.arange, nl.mgrid and nl.ogrid return and what kernels build from them
// (`offset + nl.arange(128)[:, None]`, `4 * i_f + 1`, `sz_pool * i1 + i2`). Each is an integer array
// of some shape whose value is affine in the position: value[i] = offset + sum_k coeffs[k] * i[k].
// Arithmetic keeps them affine (numpy broadcasting, right-aligned); comparisons make masks.
import {
  HostObject, PyException, PySlice, PyTuple, Ellipsis, NotImplemented,
  type BinaryOperator, type CallContext, type CompareOperator, type PyValue, type PyNotImplemented, type UnaryOperator,
} from "../python/values.js";
import { NkiSyntaxError } from "../../host/checks/errors.js";
import { atSite, errorDetails } from "./site.js";

export class IndexExpr extends HostObject {
  readonly typeName = "IndexExpr";
  constructor(
    readonly shape: readonly number[],
    readonly offset: number,
    /** One per axis of shape; a coefficient on an axis of size 1 has no effect. */
    readonly coeffs: readonly number[],
  ) { super(); }

  /** The expression aligned to a rank-r space (new leading axes of size 1), as numpy broadcasting aligns. */
  alignTo(rank: number): IndexExpr {
    const pad = rank - this.shape.length;
    if (pad <= 0) return this;
    return new IndexExpr([...Array(pad).fill(1), ...this.shape], this.offset, [...Array(pad).fill(0), ...this.coeffs]);
  }

  /** Axes along which the value changes. */
  varyingAxes(): number[] {
    const out: number[] = [];
    this.shape.forEach((n, k) => { if (n > 1 && this.coeffs[k] !== 0) out.push(k); });
    return out;
  }

  /** Smallest and largest value. */
  range(): [number, number] {
    let lo = this.offset, hi = this.offset;
    this.shape.forEach((n, k) => {
      const c = this.coeffs[k];
      if (n > 1 && c !== 0) { if (c > 0) hi += c * (n - 1); else lo += c * (n - 1); }
    });
    return [lo, hi];
  }

  override getAttr(name: string): PyValue | undefined {
    if (name === "shape") return new PyTuple([...this.shape]);
    if (name === "ndim") return this.shape.length;
    return undefined;
  }

  override getItem(key: PyValue, ctx: CallContext): PyValue {
    const items = key instanceof PyTuple ? [...key.items] : [key];
    const shape: number[] = [], coeffs: number[] = [];
    let offset = this.offset;
    let axis = 0;
    const explicit = items.filter((k) => k !== null && k !== Ellipsis).length;
    for (const item of items) {
      if (item === null) { shape.push(1); coeffs.push(0); continue; }
      if (item === Ellipsis) {
        const n = this.shape.length - explicit;
        for (let j = 0; j < n; j++, axis++) { shape.push(this.shape[axis]); coeffs.push(this.coeffs[axis]); }
        continue;
      }
      if (axis >= this.shape.length) throw new PyException("IndexError", `too many indices for an index expression of shape (${this.shape.join(", ")})`, ctx.site);
      const n = this.shape[axis], c = this.coeffs[axis];
      if (typeof item === "number") {
        const i = item < 0 ? item + n : item;
        if (i < 0 || i >= n) throw new PyException("IndexError", `index ${item} is out of bounds for axis ${axis} with size ${n}`, ctx.site);
        offset += c * i;
      } else if (item instanceof PySlice) {
        const [start, , step, len] = sliceIndices(item, n, ctx);
        offset += c * start;
        shape.push(len); coeffs.push(c * step);
      } else {
        throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `an index expression can be subscripted with ints, slices, None and ...; got ${describe(item)}${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
      }
      axis++;
    }
    for (; axis < this.shape.length; axis++) { shape.push(this.shape[axis]); coeffs.push(this.coeffs[axis]); }
    return new IndexExpr(shape, offset, coeffs);
  }

  override binary(op: BinaryOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    if (typeof other === "boolean") other = other ? 1 : 0;
    if (typeof other === "number") {
      switch (op) {
        case "+": return new IndexExpr(this.shape, this.offset + other, this.coeffs);
        case "-": return reflected ? new IndexExpr(this.shape, other - this.offset, this.coeffs.map((c) => -c)) : new IndexExpr(this.shape, this.offset - other, this.coeffs);
        case "*": return new IndexExpr(this.shape, this.offset * other, this.coeffs.map((c) => c * other));
      }
      throw notAffine(op, ctx);
    }
    if (other instanceof IndexExpr) {
      if (op !== "+" && op !== "-") throw notAffine(op, ctx);
      const sign = op === "-" ? -1 : 1;
      const [a, b] = reflected ? [other, this] : [this, other];
      const rank = Math.max(a.shape.length, b.shape.length);
      const x = a.alignTo(rank), y = b.alignTo(rank);
      const shape = x.shape.map((n, k) => broadcastDim(n, y.shape[k], x.shape, y.shape, ctx));
      const coeffs = x.coeffs.map((c, k) => (x.shape[k] > 1 ? c : 0) + sign * (y.shape[k] > 1 ? y.coeffs[k] : 0));
      return new IndexExpr(shape, x.offset + sign * y.offset, coeffs);
    }
    return NotImplemented;
  }

  override unary(op: UnaryOperator, ctx: CallContext): PyValue {
    if (op === "+") return this;
    if (op === "-") return new IndexExpr(this.shape, -this.offset, this.coeffs.map((c) => -c));
    throw notAffine(op, ctx);
  }

  override compare(op: CompareOperator, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    let expr: IndexExpr;
    if (typeof other === "number") expr = this.binary("-", other, false, ctx) as IndexExpr;
    else if (other instanceof IndexExpr) expr = this.binary("-", other, false, ctx) as IndexExpr;
    else return NotImplemented;
    // this OP other  <=>  (this - other) OP 0; reflected: other OP this  <=>  0 OP (this - other).
    const flipped: Record<CompareOperator, CompareOperator> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=" };
    return new MaskExpr([{ expr, op: reflected ? flipped[op] : op }], ctx);
  }

  override repr(): string { return `IndexExpr(shape=(${this.shape.join(", ")}), offset=${this.offset}, coeffs=(${this.coeffs.join(", ")}))`; }
}

/** One comparison of an index expression with 0: `expr op 0`. */
export interface MaskTerm { readonly expr: IndexExpr; readonly op: CompareOperator; }

/** A conjunction of comparisons on index expressions: what `mask=` takes. */
export class MaskExpr extends HostObject {
  readonly typeName = "MaskExpr";
  constructor(readonly terms: readonly MaskTerm[], readonly ctx: CallContext, readonly unsupported?: string) { super(); }

  override binary(op: BinaryOperator, other: PyValue, _reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
    if (!(other instanceof MaskExpr)) return NotImplemented;
    if (op === "&") return new MaskExpr([...this.terms, ...other.terms], ctx, this.unsupported ?? other.unsupported);
    return new MaskExpr([...this.terms, ...other.terms], ctx, `masks combined with ${op}`);
  }

  override truthy(ctx: CallContext): boolean {
    throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `a mask (a comparison of index expressions) has no truth value; pass it as mask=${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
  }

  override repr(): string { return `MaskExpr(${this.terms.length} terms)`; }
}

/**
 * The sub-box [lo, hi) of a rank-`rank` iteration space of the given shape that a mask allows. Each term
 * must vary along at most one axis (a bound on one index variable), as the masks NKI kernels write do.
 */
export function maskBox(mask: MaskExpr, shape: readonly number[], ctx: CallContext): { lo: number[]; hi: number[] } {
  const lo = shape.map(() => 0), hi = [...shape];
  const unsupported = (why: string): never => {
    throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `mask: ${why}; gpsimd supports masks that are conjunctions (&) of bounds on single index variables such as (i_p < n) & (i_f >= 2)${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { mask: mask.repr() }) });
  };
  if (mask.unsupported) unsupported(mask.unsupported);
  for (const { expr: raw, op } of mask.terms) {
    if (raw.shape.length > shape.length) unsupported(`a mask of rank ${raw.shape.length} on an instruction over shape (${shape.join(", ")})`);
    const expr = raw.alignTo(shape.length);
    const axes = expr.varyingAxes();
    if (axes.length > 1) unsupported(`the term ${raw.repr()} ${op} 0 depends on ${axes.length} index variables`);
    if (axes.length === 0) {
      if (!holds(expr.offset, op)) { lo.fill(0); hi.fill(0); }
      continue;
    }
    const k = axes[0];
    const c = expr.coeffs[k], b = -expr.offset; // c * i  op  b
    const t = b / c;
    const restrict = (l: number, h: number) => { lo[k] = Math.max(lo[k], l); hi[k] = Math.min(hi[k], h); };
    const below = (strict: boolean) => restrict(0, strict ? Math.ceil(t) : Math.floor(t) + 1); // i < t or i <= t
    const above = (strict: boolean) => restrict(strict ? Math.floor(t) + 1 : Math.ceil(t), Infinity); // i > t or i >= t
    const pos = c > 0;
    switch (op) {
      case "<": pos ? below(true) : above(true); break;
      case "<=": pos ? below(false) : above(false); break;
      case ">": pos ? above(true) : below(true); break;
      case ">=": pos ? above(false) : below(false); break;
      case "==": below(false); above(false); break;
      case "!=": unsupported("!= is not a bound");
    }
  }
  for (let k = 0; k < shape.length; k++) if (hi[k] < lo[k]) hi[k] = lo[k];
  return { lo, hi };
}

function holds(v: number, op: CompareOperator): boolean {
  switch (op) {
    case "<": return v < 0;
    case "<=": return v <= 0;
    case ">": return v > 0;
    case ">=": return v >= 0;
    case "==": return v === 0;
    case "!=": return v !== 0;
  }
}

function broadcastDim(a: number, b: number, sa: readonly number[], sb: readonly number[], ctx: CallContext): number {
  if (a === b || b === 1) return a;
  if (a === 1) return b;
  throw new PyException("ValueError", `index expressions of shapes (${sa.join(", ")}) and (${sb.join(", ")}) cannot be broadcast together`, ctx.site);
}

function notAffine(op: string, ctx: CallContext): NkiSyntaxError {
  return new NkiSyntaxError("E_NKI_UNSUPPORTED", `index expressions support +, - and * by an int (affine indices); '${op}' is not supported${atSite(ctx.site)}`, { details: errorDetails(ctx.site, { operator: op }) });
}

function describe(v: PyValue): string {
  if (v instanceof HostObject) return v.typeName;
  return typeof v === "object" ? (v === null ? "None" : v.constructor.name) : typeof v;
}

/**
 * Python's slice.indices(n) followed by the length: [start, stop, step, length], clamped as Python
 * clamps. (Accesses to tensors check the unclamped bounds themselves: see access.ts.)
 */
export function sliceIndices(s: PySlice, n: number, ctx: CallContext): [number, number, number, number] {
  const step = s.step === null ? 1 : asInt(s.step, ctx);
  if (step === 0) throw new PyException("ValueError", "slice step cannot be zero", ctx.site);
  const clamp = (v: PyValue, dflt: number, lowEnd: number, highEnd: number) => {
    if (v === null) return dflt;
    let i = asInt(v, ctx);
    if (i < 0) i += n;
    return Math.min(Math.max(i, lowEnd), highEnd);
  };
  const start = step > 0 ? clamp(s.start, 0, 0, n) : clamp(s.start, n - 1, -1, n - 1);
  const stop = step > 0 ? clamp(s.stop, n, 0, n) : clamp(s.stop, -1, -1, n - 1);
  const len = step > 0 ? Math.max(0, Math.ceil((stop - start) / step)) : Math.max(0, Math.ceil((start - stop) / -step));
  return [start, stop, step, len];
}

export function asInt(v: PyValue, ctx: CallContext): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw new PyException("TypeError", `slice indices must be integers or None, not ${describe(v)}`, ctx.site);
}

/** nl.arange(n) / nl.arange(start, stop, step): a 1-D index expression. */
export function arange(start: number, stop?: number, step = 1): IndexExpr {
  if (stop === undefined) { stop = start; start = 0; }
  const len = Math.max(0, Math.ceil((stop - start) / step));
  return new IndexExpr([len], start, [step]);
}

/** nl.mgrid[...] (dense) and nl.ogrid[...] (open): one index expression per slice. */
export class GridMaker extends HostObject {
  readonly typeName: string;
  constructor(readonly open: boolean) { super(); this.typeName = open ? "ogrid" : "mgrid"; }
  override getItem(key: PyValue, ctx: CallContext): PyValue {
    const slices = key instanceof PyTuple ? key.items : [key];
    const ranges = slices.map((s) => {
      if (!(s instanceof PySlice)) throw new PyException("TypeError", `nl.${this.typeName} takes slices such as 0:128; got ${describe(s)}`, ctx.site);
      const start = s.start === null ? 0 : asInt(s.start, ctx), stop = asInt(s.stop, ctx), step = s.step === null ? 1 : asInt(s.step, ctx);
      return arange(start, stop, step);
    });
    const rank = ranges.length;
    const full = ranges.map((r) => r.shape[0]);
    const exprs = ranges.map((r, k) => {
      const shape = this.open ? full.map((n, j) => (j === k ? n : 1)) : full;
      const coeffs = full.map((_, j) => (j === k ? r.coeffs[0] : 0));
      return new IndexExpr(shape, r.offset, coeffs);
    });
    return rank === 1 && !(key instanceof PyTuple) ? exprs[0] : new IndexGrid(exprs);
  }
}

/** What nl.mgrid[a:b, c:d] returns: unpacks as a tuple; also .p (the partition index) and .x, .y, .z. */
export class IndexGrid extends HostObject {
  readonly typeName = "mgrid";
  constructor(readonly exprs: readonly IndexExpr[]) { super(); }
  override iterate(): Iterator<PyValue> { return this.exprs[Symbol.iterator](); }
  override len(): number { return this.exprs.length; }
  override getItem(key: PyValue, ctx: CallContext): PyValue {
    if (typeof key !== "number") throw new PyException("TypeError", "mgrid indices must be integers", ctx.site);
    const e = this.exprs[key < 0 ? key + this.exprs.length : key];
    if (!e) throw new PyException("IndexError", "tuple index out of range", ctx.site);
    return e;
  }
  override getAttr(name: string): PyValue | undefined {
    const k = ["p", "x", "y", "z"].indexOf(name);
    return k >= 0 ? this.exprs[k] : undefined;
  }
}
