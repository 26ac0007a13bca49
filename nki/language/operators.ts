// Python operators on tiles and tensors: `a + b` is nl.add, `-a` nl.negative, `a > 0` nl.greater,
// `t[...] = v` a copy into the view (a store when the view is in HBM), `psum += nl.matmul(...)` an
// add into the tile itself; `t[i]` a view; `t.reshape(...)` a view of another shape.
import {
  NativeFunction, NotImplemented, PyException, PyTuple, PyList,
  type BinaryOperator, type CallContext, type CompareOperator, type PyNotImplemented, type PyValue, type UnaryOperator,
} from "../python/values.js";
import { setArrayOperators, NkiArray } from "../machine/tile.js";
import { subscript } from "../machine/access.js";
import { shapeArg, native, intArg } from "./args.js";
import { NkiSyntaxError } from "../../host/checks/errors.js";
import { atSite, errorDetails } from "../machine/site.js";
import { binaryOp, copyInto, newTile, reshapedView, scalarOf, unaryOp } from "./compute.js";
import { LoopReduce } from "./nl-math.js";
import { NkiDTypeError } from "../../host/checks/errors.js";
import { hbm } from "../../host/device/hbm.js";

const BINARY: Partial<Record<BinaryOperator, [string, string]>> = {
  "+": ["add", "add"], "-": ["subtract", "subtract"], "*": ["multiply", "multiply"], "/": ["divide", "divide"],
  "//": ["floor_divide", "floor_divide"], "%": ["mod", "mod"], "**": ["power", "power"],
  "&": ["bitwise_and", "bitwise_and"], "|": ["bitwise_or", "bitwise_or"], "^": ["bitwise_xor", "bitwise_xor"],
  "<<": ["left_shift", "left_shift"], ">>": ["right_shift", "right_shift"],
};
const COMPARE: Record<CompareOperator, string> = { "<": "less", "<=": "less_equal", ">": "greater", ">=": "greater_equal", "==": "equal", "!=": "not_equal" };
const FLIP: Record<CompareOperator, CompareOperator> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!=" };

function operandOk(v: PyValue): boolean { return v instanceof NkiArray || scalarOf(v) !== undefined; }

/** &, |, ^ on float tiles are the logical operations (bool masks kept in float tiles); on integers, bitwise. */
function bitOrLogical(op: string, a: NkiArray, other: PyValue): string {
  const floaty = a.dtype.isFloat || (other instanceof NkiArray && other.dtype.isFloat);
  if (!floaty) return op;
  return op.replace("bitwise_", "logical_");
}

function firstElementWritten(v: NkiArray): boolean {
  return v.storage.initAddr === 0 || hbm().bytes()[v.storage.initAddr + v.offset] !== 0;
}

export function installArrayOperators(): void {
  setArrayOperators({
    binary(op: BinaryOperator, a: NkiArray, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
      const entry = BINARY[op];
      if (!entry || !operandOk(other)) return NotImplemented;
      let [name, engineOp] = entry;
      if (op === "&" || op === "|" || op === "^") { engineOp = bitOrLogical(engineOp, a, other); name = engineOp; }
      const [x, y] = reflected ? [other, a] : [a, other];
      return binaryOp(`operator ${op} (nl.${name})`, engineOp, x, y, null, null, ctx);
    },
    inplace(op: BinaryOperator, a: NkiArray, other: PyValue, ctx: CallContext): PyValue | PyNotImplemented {
      const entry = BINARY[op];
      if (!entry || !operandOk(other)) return NotImplemented;
      const engineOp = op === "&" || op === "|" || op === "^" ? bitOrLogical(entry[1], a, other) : entry[1];
      if (op === "+" && a.storage.kind === "psum" && other instanceof NkiArray && !firstElementWritten(a)) {
        // psum[...] += nc_matmul(...) on a PSUM tile no instruction wrote yet starts the accumulation
        // group: the first matmul overwrites (NKI's accumulate=None rule), later ones add.
        copyInto(`operator += (PSUM accumulation)`, a, other, null, ctx);
        return a;
      }
      binaryOp(`operator ${op}= (nl.${entry[0]})`, engineOp, a, other, null, null, ctx, { out: a });
      return a;
    },
    unary(op: UnaryOperator, a: NkiArray, ctx: CallContext): PyValue {
      if (op === "+") return a;
      if (op === "-") return unaryOp("operator - (nl.negative)", "neg", a, null, null, ctx);
      if (a.dtype.isFloat) throw new NkiDTypeError("E_NKI_DTYPE", `operator ~ (nl.invert) takes integer tiles; this one is ${a.dtype.name}`, {});
      return unaryOp("operator ~ (nl.invert)", "bitwise_not", a, null, null, ctx);
    },
    compare(op: CompareOperator, a: NkiArray, other: PyValue, reflected: boolean, ctx: CallContext): PyValue | PyNotImplemented {
      if (!operandOk(other)) return NotImplemented;
      const o = reflected ? FLIP[op] : op;
      return binaryOp(`operator ${o} (nl.${COMPARE[o]})`, COMPARE[o], a, other, null, null, ctx);
    },
    getItem(a: NkiArray, key: PyValue, ctx: CallContext): PyValue { return subscript(a, key, ctx); },
    setItem(a: NkiArray, key: PyValue, value: PyValue, ctx: CallContext): void {
      const view = subscript(a, key, ctx);
      if (value instanceof LoopReduce) {
        binaryOp("nl.loop_reduce", value.op, view, value.value, null, null, ctx, { out: view });
        return;
      }
      copyInto(a.storage.isHbm ? "tensor assignment (nl.store)" : "tile assignment (nl.copy)", view, value, null, ctx);
    },
    attr(a: NkiArray, name: string): PyValue | undefined {
      switch (name) {
        case "reshape":
          return new NativeFunction("reshape", (args, _kw, ctx) => {
            const shape = shapeArg(args.length === 1 ? args[0] : new PyTuple(args), "shape", ctx);
            return reshapedView(a, shape, "reshape", ctx);
          });
        case "buffer": return a.storage.kind;
        case "ap":
          // .ap([[stride, count], ...], offset=): an explicit pattern over the storage (torch.as_strided).
          return native("ap", [["pattern"], ["offset", null], ["scalar_offset", null], ["vector_offset", null], ["indirect_dim", 0], ["dtype", null]], (p, ctx) => {
            const pairs = (p.pattern instanceof PyList || p.pattern instanceof PyTuple ? p.pattern.items : []).map((x) => {
              const pair = x instanceof PyList || x instanceof PyTuple ? x.items : [];
              return [intArg(pair[0] ?? null, "stride", ctx), intArg(pair[1] ?? null, "count", ctx)] as const;
            });
            if (p.scalar_offset !== null || p.vector_offset !== null || p.dtype !== null) {
              throw new NkiSyntaxError("E_NKI_UNSUPPORTED", `.ap(): indirect offsets and dtype reinterpretation are not supported${atSite(ctx.site)}`, { details: errorDetails(ctx.site) });
            }
            const offset = a.offset + (p.offset === null ? 0 : intArg(p.offset, "offset", ctx));
            const coeffs = pairs.map(([stride]) => stride);
            const check = { dim: -1, size: a.storage.numel, off: offset, coeffs, root: true };
            return a.view(offset, pairs.map(([, n]) => n), coeffs, [check]);
          }, true);
        case "broadcast_to":
          return new NativeFunction("broadcast_to", (args, _kw, ctx) => {
            const shape = shapeArg(args.length === 1 ? args[0] : new PyTuple(args), "shape", ctx);
            const t = newTile(shape, a.dtype, ctx);
            copyInto("broadcast_to", t, a, null, ctx);
            return t;
          });
        case "T":
          if (a.shape.length !== 2) throw new PyException("ValueError", ".T needs a 2-D tile");
          return a.view(a.offset, [a.shape[1], a.shape[0]], [a.strides[1], a.strides[0]], a.checks.map((c) => ({ ...c, coeffs: [c.coeffs[1], c.coeffs[0]] })));
      }
      return undefined;
    },
  });
}
