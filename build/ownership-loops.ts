// Counted loops whose checked accesses all go through base + (counter << k) + a constant: the ownership pass
// (build/ownership-pass.ts) tests each group of them once, over the whole range the loop will touch, instead of at
// every iteration (a W1 GIOU iteration tested its pred, target and output windows: 3 of its ~190 instructions each
// time, and the register pressure of their locals).
// The loop is AssemblyScript's `for (...; i < n; i += C)` before optimisation: `loop L { if (i < n) { ...; i = i + C;
// br L } }`, C > 0, nothing else in it setting i, n or a base, no call (a call may free TCM), no nested loop, no bulk
// or atomic access. Its counter then runs over i0, i0 + C, ..., last (the largest below n), and an access of b bytes at
// base + (i << k) + o touches [base + (i0 << k) + o, base + (last << k) + o + b): a group (loads or stores through one
// base and shift) covers its offsets' hull without a gap when C << k is at most that hull's width. Before the loop,
// each group's range goes to the slow path as a query (gpsimd_own_window with bit 1: it answers, never fails). When
// every range is fine, the loop runs as the kernel wrote it (its own source places), stores still marking the
// written-map when their range is TCM; otherwise a copy of it runs with every access checked as before, so an access
// the range did not cover fails exactly as it did, at its own line. Nothing between the query and the loop's accesses
// can make a byte unwritten or free a block (no call), and the loop's own stores only mark: a range found fine stays fine.
import binaryen from "binaryen";
import { walkExpressions } from "./binaryen-walk.js";

/** A single load or store as the pass sees it (build/ownership-pass.ts's accessOf). */
export interface LoopAccess { ptr: number; setPtr(v: number): void; offset: number; bytes: number; store: boolean }

/** What versioning needs of the pass: the module's names and the code it makes. */
export interface LoopVersioning {
  module: binaryen.Module;
  /** Adds an i32 or i64 local to the function. */
  local(type: number): number;
  accessOf(expr: number): LoopAccess | null;
  /** The slow path in query mode over [addr, addr + len) (i32 expressions): sets the window globals, len 0 when refused. */
  query(addr: number, len: number, store: boolean): number;
  winLen(): number;
  winMark(): number;
  /** The runtime's marking of [addr, addr + len) written (i32 expressions; gpsimd_own_store). */
  markRange(addr: number, len: number): number;
  /** The written-map marking of a store of `bytes` at ptr() + offset. */
  markWritten(ptr: () => number, offset: number, bytes: number): number;
  /** Maps code the checks added to their own source place (root less `keep`'s subtrees). */
  tag(root: number, keep: number[]): number;
}

const ids = binaryen as unknown as Record<string, number>;
const ops = binaryen as unknown as Record<string, number>;
type Info = Record<string, unknown> & { id: number };
/** binaryen.js's setters its typings leave out. */
const API = binaryen as unknown as {
  Block: { setName(e: number, n: string): void; setChildAt(e: number, i: number, c: number): void };
  Loop: { setName(e: number, n: string): void };
  Break: { setName(e: number, n: string): void };
};
const info = (e: number) => binaryen.getExpressionInfo(e) as unknown as Info;
const id = (e: number) => binaryen.getExpressionId(e);

/** Kinds a versioned loop's body may hold (loads and stores are the accesses; no call, loop, switch, bulk or atomic access). */
const ALLOWED = new Set(["Block", "If", "Break", "LocalGet", "LocalSet", "GlobalGet", "GlobalSet", "Const", "Unary", "Binary", "Select", "Drop",
  "Nop", "Load", "Store", "SIMDLoad", "SIMDExtract", "SIMDReplace", "SIMDShuffle", "SIMDTernary", "SIMDShift", "Return", "Unreachable"].map((k) => ids[`${k}Id`]));

/** An address base + (counter << shift), base a local the loop never sets. */
interface Affine { base: number; shift: number }
/** Accesses of one kind through one base and shift: their offsets' hull [lo, hi) per iteration. */
interface Group { store: boolean; base: number; shift: number; lo: number; hi: number; mark: number; spans: [number, number][]; from: number; len: number }
/**
 * A loop's counted form. straight: every statement of the body runs in every iteration (no if, return or trap, a
 * break only as the last statement of the block it leaves), and each store group's accesses in one iteration cover
 * one interval: the stores then write each group's whole range, which is marked written once, before the loop.
 */
interface Counted { counter: number; bound: number; wide: boolean; signed: boolean; step: number; groups: Group[]; accesses: { expr: number; group: Group }[]; straight: boolean }

/** True when the intervals, sorted, leave no gap between them. */
function gapless(spans: [number, number][]): boolean {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let end = sorted[0][1];
  for (const [lo, hi] of sorted.slice(1)) { if (lo > end) return false; end = Math.max(end, hi); }
  return true;
}

/** The constant of a Const expression as a number (i32 or i64 in the safe range), else null. */
function constant(e: number): number | null {
  if (id(e) !== binaryen.ConstId) return null;
  const v = info(e).value;
  if (typeof v === "number") return v;
  if (typeof v === "bigint" && v >= -(1n << 52n) && v <= 1n << 52n) return Number(v);
  return null;
}

const isGet = (e: number, local?: number) => id(e) === binaryen.LocalGetId && (local === undefined || info(e).index === local);

/** counter << k or counter * 2^k (wrapped to i32 when the counter is i64), or the counter alone: k, else null. */
function scaledCounter(e: number, counter: number, wide: boolean): number | null {
  if (wide) {
    if (id(e) !== binaryen.UnaryId || info(e).op !== ops.WrapInt64) return null;
    e = info(e).value as number;
  }
  if (isGet(e, counter)) return 0;
  if (id(e) !== binaryen.BinaryId) return null;
  const { op, left, right } = info(e) as unknown as { op: number; left: number; right: number };
  if (op === (wide ? ops.ShlInt64 : ops.ShlInt32) && isGet(left, counter)) {
    const k = constant(right);
    return k !== null && k >= 0 && k <= 8 ? k : null;
  }
  if (op === (wide ? ops.MulInt64 : ops.MulInt32)) { // counter * 2^k, either way round
    for (const [x, y] of [[left, right], [right, left]]) {
      const f = constant(y);
      if (isGet(x, counter) && f !== null && f >= 1 && f <= 256 && (f & (f - 1)) === 0) return Math.log2(f);
    }
  }
  return null;
}

/** base + (counter << k), either way round, base a local other than the counter: else null. */
function affine(e: number, counter: number, wide: boolean): Affine | null {
  if (id(e) !== binaryen.BinaryId || info(e).op !== ops.AddInt32) return null;
  const { left, right } = info(e) as unknown as { left: number; right: number };
  for (const [b, x] of [[left, right], [right, left]]) {
    if (!isGet(b) || info(b).index === counter) continue;
    const shift = scaledCounter(x, counter, wide);
    if (shift !== null) return { base: info(b).index as number, shift };
  }
  return null;
}

/** The loop's counted form and its checked accesses in groups, or null when it is not one this file versions. */
function analyse(loop: number, checked: Set<number>, accessOf: (e: number) => LoopAccess | null): Counted | null {
  const name = info(loop).name as string;
  const body = info(loop).body as number;
  if (binaryen.getExpressionType(loop) !== binaryen.none || !body || id(body) !== binaryen.IfId || info(body).ifFalse) return null;
  const cond = info(body).condition as number;
  if (id(cond) !== binaryen.BinaryId) return null;
  const op = info(cond).op as number;
  const wide = op === ops.LtSInt64 || op === ops.LtUInt64;
  if (!wide && op !== ops.LtSInt32 && op !== ops.LtUInt32) return null;
  const [left, right] = [info(cond).left as number, info(cond).right as number];
  if (!isGet(left) || !isGet(right) || info(left).index === info(right).index) return null;
  const counter = info(left).index as number, bound = info(right).index as number;
  const then = info(body).ifTrue as number;
  if (id(then) !== binaryen.BlockId) return null;
  const children = info(then).children as number[];
  const m = children.length;
  if (m < 2) return null;
  const br = children[m - 1], step = children[m - 2];
  if (id(br) !== binaryen.BreakId || info(br).name !== name || info(br).condition || info(br).value) return null;
  if (id(step) !== binaryen.LocalSetId || info(step).index !== counter || info(step).isTee) return null;
  const add = info(step).value as number;
  if (id(add) !== binaryen.BinaryId || info(add).op !== (wide ? ops.AddInt64 : ops.AddInt32) || !isGet(info(add).left as number, counter)) return null;
  const C = constant(info(add).right as number);
  if (C === null || C <= 0 || C > 1 << 20) return null;

  // Every kind allowed, no other way back to the loop's head, and how often each local is set.
  const sets = new Map<number, number>();
  let fine = true, straight = true;
  const lastBreaks = new Set<number>(); // breaks that are the last statement of the block they leave
  for (const child of children.slice(0, m - 1)) {
    walkExpressions(child, (e, kind, i) => {
      if (!ALLOWED.has(kind)) fine = false;
      if (kind === binaryen.BreakId && (i as Info).name === name) fine = false;
      if (kind === binaryen.IfId || kind === binaryen.ReturnId || kind === binaryen.UnreachableId) straight = false;
      if (kind === binaryen.BlockId && (i as Info).name) {
        const last = ((i as Info).children as number[]).at(-1);
        if (last && id(last) === binaryen.BreakId && info(last).name === (i as Info).name && !info(last).condition) lastBreaks.add(last);
      }
      if (kind === binaryen.BreakId && !lastBreaks.has(e)) straight = false; // a block is visited before its children
      if (kind === binaryen.LocalSetId) sets.set((i as Info).index as number, (sets.get((i as Info).index as number) ?? 0) + 1);
    }, () => new Error("ownership checks: unknown expression kind in a loop"));
  }
  if (!fine || sets.get(counter) !== 1 || sets.has(bound)) return null;

  // Pointer locals set once, at the top level of the body, to base + (counter << k).
  const pointers = new Map<number, { at: number; form: Affine }>();
  children.slice(0, m - 2).forEach((child, at) => {
    if (id(child) !== binaryen.LocalSetId || info(child).isTee || sets.get(info(child).index as number) !== 1) return;
    const form = affine(info(child).value as number, counter, wide);
    if (form && !sets.has(form.base)) pointers.set(info(child).index as number, { at, form });
  });

  const groups = new Map<string, Group>();
  const accesses: Counted["accesses"] = [];
  for (const [at, child] of children.slice(0, m - 2).entries()) {
    const found: number[] = [];
    walkExpressions(child, (e) => { if (checked.has(e)) found.push(e); }, () => new Error("ownership checks: unknown expression kind in a loop"));
    for (const e of found) {
      const a = accessOf(e);
      if (!a) return null;
      let form: Affine | null = null, extra = 0;
      const p = a.ptr;
      const viaLocal = (local: number, k: number) => {
        const def = pointers.get(local);
        if (def && def.at < at) { form = def.form; extra = k; }
      };
      if (isGet(p)) viaLocal(info(p).index as number, 0);
      else if (id(p) === binaryen.BinaryId && info(p).op === ops.AddInt32) {
        const [l, r] = [info(p).left as number, info(p).right as number];
        const k = constant(r);
        if (isGet(l) && k !== null && k >= 0 && k < 1 << 30) viaLocal(info(l).index as number, k);
      }
      form ??= affine(p, counter, wide);
      if (!form || sets.has((form as Affine).base)) return null;
      const { base, shift } = form as Affine;
      const key = `${a.store} ${base} ${shift}`;
      const lo = a.offset + extra, hi = lo + a.bytes;
      const g = groups.get(key) ?? { store: a.store, base, shift, lo, hi, mark: -1, spans: [], from: -1, len: -1 };
      g.lo = Math.min(g.lo, lo);
      g.hi = Math.max(g.hi, hi);
      g.spans.push([lo, hi]);
      groups.set(key, g);
      accesses.push({ expr: e, group: g });
    }
  }
  if (!accesses.length) return null;
  for (const g of groups.values()) if (C * 2 ** g.shift > g.hi - g.lo) return null; // a gap between iterations' accesses
  straight &&= [...groups.values()].every((g) => !g.store || gapless(g.spans));
  return { counter, bound, wide, signed: op === ops.LtSInt64 || op === ops.LtSInt32, step: C, groups: [...groups.values()], accesses, straight };
}

/** Every expression under root, in walk order (two copies of one tree give the same order). */
function preorder(root: number): number[] {
  const all: number[] = [];
  walkExpressions(root, (e) => { all.push(e); }, () => new Error("ownership checks: unknown expression kind in a loop"));
  return all;
}

/**
 * Versions the counted loops under body (see the top of this file). Returns, for each checked access of a versioned
 * loop, its twin in the loop's checked copy: the pass checks the twin, as it would have the access.
 */
export function versionLoops(v: LoopVersioning, body: number, checked: number[]): Map<number, number> {
  const { module } = v;
  const twins = new Map<number, number>();
  // Copies' labels are numbered within the function, so that builds A and B of a library (build/relocate.ts) name them alike.
  let copies = 0;
  const checkedSet = new Set(checked);
  const slots: { block: number; index: number; loop: number }[] = [];
  walkExpressions(body, (e, kind, i) => {
    if (kind !== binaryen.BlockId) return;
    (i!.children as number[]).forEach((child, index) => { if (id(child) === binaryen.LoopId) slots.push({ block: e, index, loop: child }); });
  }, () => new Error("ownership checks: unknown expression kind"));

  for (const { block, index, loop } of slots) {
    const counted = analyse(loop, checkedSet, v.accessOf);
    if (!counted) continue;
    const { i32, i64 } = binaryen;
    const big = (n: number | bigint) => (module.i64.const as unknown as (v: bigint) => number)(BigInt(n));
    const c = (n: number) => module.i32.const(n);

    // The checked copy, its labels renamed (Binaryen wants them unique in a function).
    const copy = module.copyExpression(loop);
    const suffix = `|checked${copies++}`;
    const labels = new Set(preorder(copy).filter((e) => id(e) === binaryen.BlockId || id(e) === binaryen.LoopId).map((e) => info(e).name as string).filter(Boolean));
    for (const e of preorder(copy)) {
      const kind = id(e);
      const name = info(e).name as string | undefined;
      if (!name || !labels.has(name)) continue; // a break out of the loop keeps its label
      if (kind === binaryen.BlockId) API.Block.setName(e, name + suffix);
      else if (kind === binaryen.LoopId) API.Loop.setName(e, name + suffix);
      else if (kind === binaryen.BreakId) API.Break.setName(e, name + suffix);
    }
    const original = preorder(loop), twin = preorder(copy);
    if (original.length !== twin.length) throw new Error("ownership checks: a loop's copy differs from it");
    const at = new Map(original.map((e, k) => [e, twin[k]]));
    for (const { expr } of counted.accesses) twins.set(expr, at.get(expr)!);

    // first = the counter on entry, last = its last value below the bound (both as i64).
    const widen = (e: number) => (counted.wide ? e : counted.signed ? module.i64.extend_s(e) : module.i64.extend_u(e));
    const getI = () => module.local.get(counted.counter, counted.wide ? i64 : i32);
    const getN = () => module.local.get(counted.bound, counted.wide ? i64 : i32);
    const first = v.local(i64), last = v.local(i64), ok = v.local(i32);
    const runs = counted.wide
      ? (counted.signed ? module.i64.lt_s(getI(), getN()) : module.i64.lt_u(getI(), getN()))
      : (counted.signed ? module.i32.lt_s(getI(), getN()) : module.i32.lt_u(getI(), getN()));
    const F = () => module.local.get(first, i64), L = () => module.local.get(last, i64);
    const queries: number[] = [];
    for (const g of counted.groups) {
      const base = () => module.i64.extend_u(module.local.get(g.base, i32));
      const from = module.i64.add(module.i64.add(base(), module.i64.shl(F(), big(g.shift))), big(g.lo));
      const to = module.i64.add(module.i64.add(base(), module.i64.shl(L(), big(g.shift))), big(g.hi));
      const [a, e] = [v.local(i64), v.local(i64)];
      if (g.store) [g.mark, g.from, g.len] = [v.local(i32), a, e];
      // Only when counter << shift cannot wrap and the range ends inside the 32-bit address space is it the loop's.
      queries.push(module.if(module.local.get(ok, i32), module.block(null, [
        module.local.set(a, from), module.local.set(e, to),
        module.if(module.i32.or(module.i64.gt_s(L(), big((2 ** 31 - 1) >>> g.shift)), module.i64.gt_u(module.local.get(e, i64), big(2n ** 32n))),
          module.local.set(ok, c(0)),
          module.block(null, [
            v.query(module.i32.wrap(module.local.get(a, i64)), module.i32.wrap(module.i64.sub(module.local.get(e, i64), module.local.get(a, i64))), g.store),
            module.local.set(ok, module.i32.ne(v.winLen(), c(0))),
            ...(g.store ? [module.local.set(g.mark, v.winMark())] : []),
          ])),
      ])));
    }
    const prologue = module.block(null, [
      module.local.set(ok, c(0)),
      module.if(runs, module.block(null, [
        module.local.set(first, widen(getI())),
        module.local.set(last, module.i64.add(F(), module.i64.mul(module.i64.div_u(module.i64.sub(module.i64.sub(widen(getN()), F()), big(1)), big(counted.step)), big(counted.step)))),
        module.local.set(ok, module.i64.ge_s(F(), big(0))),
        ...queries,
        // A straight loop's stores write their groups' whole ranges: marked once, here (nothing in the loop reads the
        // maps: its loads' ranges were found written above). The store check passes: the query found the range fine.
        ...(counted.straight ? counted.groups.filter((g) => g.store).map((g) => module.if(module.i32.and(module.local.get(ok, i32), module.local.get(g.mark, i32)),
          v.markRange(module.i32.wrap(module.local.get(g.from, i64)), module.i32.wrap(module.i64.sub(module.local.get(g.len, i64), module.local.get(g.from, i64)))))) : []),
      ])),
    ]);
    // Else in the loop as written, each store marks the written-map where its range is TCM.
    for (const { expr, group } of counted.accesses) {
      if (!group.store || counted.straight) continue;
      const a = v.accessOf(expr)!;
      const p = v.local(i32);
      const mark = module.if(module.local.get(group.mark, i32), v.markWritten(() => module.local.get(p, i32), a.offset, a.bytes));
      a.setPtr(v.tag(module.block(null, [module.local.set(p, a.ptr), mark, module.local.get(p, i32)], i32), [a.ptr]));
    }
    const versions = module.if(module.local.get(ok, i32), loop, copy);
    API.Block.setChildAt(block, index, v.tag(module.block(null, [prologue, versions]), [loop, copy]));
  }
  return twins;
}
