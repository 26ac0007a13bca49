// Walking a Binaryen expression tree through binaryen.js, for gpsimd's own
// passes (build/sanitize-pass.ts, build/stop-polls.ts): which fields of each
// expression kind hold child expressions (binaryen.getExpressionInfo names
// them), and a depth-first walk that refuses a kind it does not know, so that
// a pass never skips code it has not seen.
import binaryen from "binaryen";

const ids = binaryen as unknown as Record<string, number>;

/** Child fields of each expression kind (the ones that hold expressions, not numbers); leaves have none. */
const CHILDREN = new Map<number, string[]>(([
  ["Block", ["children"]], ["If", ["condition", "ifTrue", "ifFalse"]], ["Loop", ["body"]], ["Break", ["condition", "value"]],
  ["Switch", ["condition", "value"]], ["Call", ["operands"]], ["CallIndirect", ["target", "operands"]], ["CallRef", ["operands", "target"]],
  ["LocalSet", ["value"]], ["GlobalSet", ["value"]], ["Load", ["ptr"]], ["Store", ["ptr", "value"]], ["AtomicRMW", ["ptr", "value"]],
  ["AtomicCmpxchg", ["ptr", "expected", "replacement"]], ["AtomicWait", ["ptr", "expected", "timeout"]], ["AtomicNotify", ["ptr", "notifyCount"]],
  ["SIMDExtract", ["vec"]], ["SIMDReplace", ["vec", "value"]], ["SIMDShuffle", ["left", "right"]], ["SIMDTernary", ["a", "b", "c"]],
  ["SIMDShift", ["vec", "shift"]], ["SIMDLoad", ["ptr"]], ["SIMDLoadStoreLane", ["ptr", "vec"]], ["MemoryInit", ["dest", "offset", "size"]],
  ["MemoryCopy", ["dest", "source", "size"]], ["MemoryFill", ["dest", "value", "size"]], ["Unary", ["value"]], ["Binary", ["left", "right"]],
  ["Select", ["ifTrue", "ifFalse", "condition"]], ["Drop", ["value"]], ["Return", ["value"]], ["MemoryGrow", ["delta"]],
  ["TupleMake", ["operands"]], ["TupleExtract", ["tuple"]], ["Try", ["body", "catchBodies"]], ["Throw", ["operands"]],
  ["RefIsNull", ["value"]], ["RefAs", ["value"]], ["RefEq", ["left", "right"]], ["TableGet", ["index"]], ["TableSet", ["index", "value"]],
  ["TableGrow", ["value", "delta"]],
  ["Nop", []], ["LocalGet", []], ["GlobalGet", []], ["Const", []], ["MemorySize", []], ["Unreachable", []], ["AtomicFence", []],
  ["DataDrop", []], ["RefNull", []], ["RefFunc", []], ["Pop", []], ["Rethrow", []], ["TableSize", []],
] as [string, string[]][]).map(([kind, fields]) => [ids[`${kind}Id`], fields]));

/** The fields of an expression kind that hold child expressions (undefined for a kind the walk does not know). */
export function childFields(id: number): readonly string[] | undefined {
  return CHILDREN.get(id);
}

/**
 * Calls visit(expr, id, info) for every expression under root, depth-first (info: binaryen.getExpressionInfo of
 * expressions with children, null for leaves, for some of which binaryen.js has none). A kind the walk does not
 * know throws unknown(id, expr).
 */
export function walkExpressions(
  root: binaryen.ExpressionRef,
  visit: (expr: binaryen.ExpressionRef, id: number, info: Record<string, unknown> | null) => void,
  unknown: (id: number, expr: binaryen.ExpressionRef) => Error,
): void {
  const stack = [root];
  while (stack.length) {
    const expr = stack.pop()!;
    if (!expr) continue;
    const id = binaryen.getExpressionId(expr);
    const fields = CHILDREN.get(id);
    if (!fields) throw unknown(id, expr);
    const info = fields.length ? (binaryen.getExpressionInfo(expr) as unknown as Record<string, unknown>) : null;
    visit(expr, id, info);
    for (const f of fields) {
      const v = info![f];
      if (Array.isArray(v)) stack.push(...(v as number[]));
      else if (typeof v === "number" && v) stack.push(v);
    }
  }
}
