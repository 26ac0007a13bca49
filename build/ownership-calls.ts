// Code after every call of a function: the ownership pass (build/ownership-pass.ts) drops a kernel function's check
// windows there, since only a call can free or hand out TCM or start a new launch. binaryen.js cannot read an
// expression's parent, so the function body is walked with each child's slot (parent, field, index), and each call is
// replaced in its slot by `block { call; after }` (a call with a result keeps it in a new local).
import binaryen from "binaryen";
import { childFields } from "./binaryen-walk.js";

const ids = binaryen as unknown as Record<string, number>;
const KIND_NAMES = new Map<number, string>(Object.keys(ids).filter((k) => k.endsWith("Id") && typeof ids[k] === "number").map((k) => [ids[k], k.slice(0, -2)]));
/** A list field's setter takes the element's name: children -> setChildAt. */
const SINGULAR: Record<string, string> = { children: "Child", operands: "Operand", catchBodies: "CatchBody" };
type Setter = (parent: number, ...args: number[]) => void;
const API = binaryen as unknown as Record<string, Record<string, Setter>>;

interface Slot { call: number; parent: number; kind: string; field: string; index: number }

/** The calls under body (not return_calls: the function ends there), each with the slot it sits in (parent 0: body). */
function callSlots(body: number): Slot[] {
  const slots: Slot[] = [];
  const stack: { expr: number; parent: number; kind: string; field: string; index: number }[] = [{ expr: body, parent: 0, kind: "", field: "", index: -1 }];
  while (stack.length) {
    const at = stack.pop()!;
    const id = binaryen.getExpressionId(at.expr);
    const fields = childFields(id);
    if (!fields) throw new Error(`ownership checks: cannot walk expression kind ${id}`);
    if ((id === binaryen.CallId || id === binaryen.CallIndirectId) && !(binaryen.getExpressionInfo(at.expr) as unknown as { isReturn: boolean }).isReturn) {
      slots.push({ call: at.expr, parent: at.parent, kind: at.kind, field: at.field, index: at.index });
    }
    if (!fields.length) continue;
    const info = binaryen.getExpressionInfo(at.expr) as unknown as Record<string, unknown>;
    const kind = KIND_NAMES.get(id)!;
    for (const field of fields) {
      const v = info[field];
      if (Array.isArray(v)) (v as number[]).forEach((child, index) => { if (child) stack.push({ expr: child, parent: at.expr, kind, field, index }); });
      else if (typeof v === "number" && v) stack.push({ expr: v, parent: at.expr, kind, field, index: -1 });
    }
  }
  return slots;
}

/**
 * Puts the code `after()` makes after every call in func's body (calls inside a call's operands come first, as they
 * run first); returns the new body. Calls of an unreachable type (their operands never finish) are left. `added` is
 * given each wrapper with the call it holds (to give the added code a source place); a call `keeps` says true of is
 * left as it is.
 */
export function afterEachCall(
  module: binaryen.Module, func: number, body: number, after: () => number, added?: (wrapper: number, call: number) => void, keeps?: (call: number) => boolean,
): number {
  const addVar = (binaryen as unknown as { _BinaryenFunctionAddVar(f: number, t: number): number })._BinaryenFunctionAddVar;
  for (const slot of callSlots(body)) {
    if (keeps?.(slot.call)) continue;
    const type = binaryen.getExpressionType(slot.call);
    if (type === binaryen.unreachable) continue;
    let wrapped: number;
    if (type === binaryen.none) {
      wrapped = module.block(null, [slot.call, after()], binaryen.none);
    } else {
      const tmp = addVar(func, type);
      wrapped = module.block(null, [module.local.set(tmp, slot.call), after(), module.local.get(tmp, type)], type);
    }
    added?.(wrapped, slot.call);
    if (!slot.parent) { body = wrapped; continue; }
    const api = API[slot.kind];
    const set = slot.index >= 0 ? api?.[`set${SINGULAR[slot.field]}At`] : api?.[`set${slot.field[0].toUpperCase()}${slot.field.slice(1)}`];
    if (!set) throw new Error(`ownership checks: binaryen.js has no setter for ${slot.kind}.${slot.field}`);
    if (slot.index >= 0) set(slot.parent, slot.index, wrapped);
    else set(slot.parent, wrapped);
  }
  return body;
}
