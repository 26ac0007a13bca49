// functools, itertools and operator, as kernel files use them.

import { HostObject, NativeFunction, PyTuple, type BinaryOperator, type CallContext, type CompareOperator, type PyValue } from "./values.js";
import { PyException } from "./values.js";
import { registerNativeModule } from "./modules.js";
import { PyFunction } from "./objects.js";
import { PyIterator } from "./types.js";
import { bindArgs } from "./args.js";
import { binaryOp, callValue, compareOp, getItem, inplaceOp, iterate, toArray, truthy, unaryOp } from "./operators.js";
import { getAttribute } from "./methods.js";
import { toInt } from "./builtins.js";
import { fn, module } from "./stdlib-common.js";

// ---------------------------------------------------------------- functools, itertools

class Partial extends HostObject {
  readonly typeName = "functools.partial";
  constructor(readonly func: PyValue, readonly args: PyValue[], readonly kwargs: Map<string, PyValue>) { super(); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue {
    return callValue(this.func, [...this.args, ...args], new Map([...this.kwargs, ...kwargs]), ctx);
  }
  override getAttr(name: string): PyValue | undefined {
    if (name === "func") return this.func;
    if (name === "args") return new PyTuple(this.args);
    return undefined;
  }
}
registerNativeModule("functools", () => {
  const identityDecorator = fn("decorator", (args) => args[0]);
  /** lru_cache / cache: usable bare (@cache) or called (@lru_cache(maxsize=None)); calls are not memoised (kernel helpers are pure). */
  const cacheDecorator = (name: string) => fn(name, (args) => (args.length === 1 && (args[0] instanceof PyFunction || args[0] instanceof HostObject && args[0].call) ? args[0] : identityDecorator));
  return module("functools", {
    reduce: fn("reduce", (args, _k, ctx) => {
      const [f, seq, init] = args;
      const items = toArray(seq, ctx);
      let acc: PyValue;
      let i = 0;
      if (init !== undefined) acc = init;
      else {
        if (!items.length) throw new PyException("TypeError", "reduce() of empty iterable with no initial value");
        acc = items[i++];
      }
      for (; i < items.length; i++) acc = callValue(f, [acc, items[i]], new Map(), ctx);
      return acc;
    }),
    partial: fn("partial", (args, kwargs) => new Partial(args[0], args.slice(1), kwargs)),
    wraps: fn("wraps", () => identityDecorator),
    lru_cache: cacheDecorator("lru_cache"),
    cache: cacheDecorator("cache"),
  });
});

/** itertools.chain(*iterables), and chain.from_iterable(iterable_of_iterables). */
class Chain extends NativeFunction {
  constructor() { super("chain", (args, _k, ctx) => lazy("chain", function* () { for (const a of args) yield* iterate(a, ctx); })); }
  override getAttr(name: string): PyValue | undefined {
    if (name !== "from_iterable") return undefined;
    return fn("from_iterable", ([outer], _k, ctx) => lazy("chain", function* () { for (const a of iterate(outer, ctx)) yield* iterate(a, ctx); }));
  }
}

function lazy(name: string, gen: () => Generator<PyValue>): PyIterator { return new PyIterator(name, gen()); }

registerNativeModule("itertools", () => module("itertools", {
  product: fn("product", (args, kwargs, ctx) => {
    const { repeat } = bindArgs("product", ["*", "repeat=1"], [], kwargs);
    const pools = args.map((a) => toArray(a, ctx));
    const all: PyValue[][] = [];
    for (let r = 0; r < (repeat as number); r++) all.push(...pools);
    return lazy("product", function* () {
      if (all.some((p) => p.length === 0)) return;
      const idx = all.map(() => 0);
      while (true) {
        yield new PyTuple(idx.map((i, k) => all[k][i]));
        let k = all.length - 1;
        while (k >= 0) { idx[k]++; if (idx[k] < all[k].length) break; idx[k] = 0; k--; }
        if (k < 0) return;
      }
    });
  }),
  chain: new Chain(),
  permutations: fn("permutations", (args, _k, ctx) => {
    const pool = toArray(args[0], ctx);
    const r = args[1] === undefined || args[1] === null ? pool.length : toInt(args[1], ctx);
    return lazy("permutations", function* () {
      const rec = function* (prefix: number[]): Generator<PyValue> {
        if (prefix.length === r) { yield new PyTuple(prefix.map((i) => pool[i])); return; }
        for (let i = 0; i < pool.length; i++) if (!prefix.includes(i)) yield* rec([...prefix, i]);
      };
      if (r <= pool.length) yield* rec([]);
    });
  }),
  combinations: fn("combinations", (args, _k, ctx) => {
    const pool = toArray(args[0], ctx), r = toInt(args[1], ctx);
    return lazy("combinations", function* () {
      const rec = function* (start: number, prefix: PyValue[]): Generator<PyValue> {
        if (prefix.length === r) { yield new PyTuple(prefix); return; }
        for (let i = start; i < pool.length; i++) yield* rec(i + 1, [...prefix, pool[i]]);
      };
      yield* rec(0, []);
    });
  }),
  accumulate: fn("accumulate", (args, kwargs, ctx) => {
    const f = args[1] ?? kwargs.get("func") ?? null;
    const initial = kwargs.get("initial");
    return lazy("accumulate", function* () {
      let acc: PyValue | undefined = initial ?? undefined;
      if (acc !== undefined && acc !== null) yield acc;
      for (const x of iterate(args[0], ctx)) {
        acc = acc === undefined || acc === null ? x : f === null ? binaryOp("+", acc, x, ctx) : callValue(f, [acc, x], new Map(), ctx);
        yield acc;
      }
    });
  }),
  islice: fn("islice", (args, _k, ctx) => {
    const [src, a, b, c] = args;
    const [start, stop, step] = args.length === 2 ? [0, a, 1] : [a ?? 0, b, c ?? 1];
    return lazy("islice", function* () {
      let i = 0;
      const s0 = toInt(start, ctx), st = toInt(step, ctx);
      for (const x of iterate(src, ctx)) {
        if (stop !== null && i >= toInt(stop, ctx)) return;
        if (i >= s0 && (i - s0) % st === 0) yield x;
        i++;
      }
    });
  }),
  count: fn("count", (args, _k, ctx) => { let n: PyValue = args[0] ?? 0; const step: PyValue = args[1] ?? 1; return lazy("count", function* () { while (true) { yield n; n = binaryOp("+", n, step, ctx); } }); }),
  repeat: fn("repeat", (args, _k, ctx) => lazy("repeat", function* () { const times = args[1] === undefined ? Infinity : toInt(args[1], ctx); for (let i = 0; i < times; i++) yield args[0]; })),
  zip_longest: fn("zip_longest", (args, kwargs, ctx) => {
    const fill = kwargs.get("fillvalue") ?? null;
    const cols = args.map((a) => toArray(a, ctx));
    const n = Math.max(0, ...cols.map((c) => c.length));
    return lazy("zip_longest", function* () { for (let i = 0; i < n; i++) yield new PyTuple(cols.map((c) => (i < c.length ? c[i] : fill))); });
  }),
}));

// ---------------------------------------------------------------- operator

registerNativeModule("operator", () => {
  const entries: Record<string, PyValue> = {};
  const binaries: [string, BinaryOperator][] = [
    ["add", "+"], ["sub", "-"], ["mul", "*"], ["truediv", "/"], ["floordiv", "//"], ["mod", "%"], ["pow", "**"], ["matmul", "@"],
    ["and_", "&"], ["or_", "|"], ["xor", "^"], ["lshift", "<<"], ["rshift", ">>"],
  ];
  for (const [name, op] of binaries) {
    entries[name] = fn(name, (args, _k, ctx) => binaryOp(op, args[0], args[1], ctx));
    entries[`i${name.replace(/_$/, "")}`] = fn(`i${name}`, (args, _k, ctx) => inplaceOp(op, args[0], args[1], ctx));
  }
  const compares: [string, CompareOperator][] = [["lt", "<"], ["le", "<="], ["gt", ">"], ["ge", ">="], ["eq", "=="], ["ne", "!="]];
  for (const [name, op] of compares) entries[name] = fn(name, (args, _k, ctx) => compareOp(op, args[0], args[1], ctx));
  entries.neg = fn("neg", (args, _k, ctx) => unaryOp("-", args[0], ctx));
  entries.pos = fn("pos", (args, _k, ctx) => unaryOp("+", args[0], ctx));
  entries.invert = fn("invert", (args, _k, ctx) => unaryOp("~", args[0], ctx));
  entries.not_ = fn("not_", (args, _k, ctx) => !truthy(args[0], ctx));
  entries.truth = fn("truth", (args, _k, ctx) => truthy(args[0], ctx));
  entries.getitem = fn("getitem", (args, _k, ctx) => getItem(args[0], args[1], ctx));
  entries.itemgetter = fn("itemgetter", (keys) => fn("itemgetter", (args, _k, ctx) => (keys.length === 1 ? getItem(args[0], keys[0], ctx) : new PyTuple(keys.map((k) => getItem(args[0], k, ctx))))));
  entries.attrgetter = fn("attrgetter", (names) => fn("attrgetter", (args, _k, ctx) => {
    const get = (n: PyValue) => String(n).split(".").reduce((o: PyValue, part) => getAttribute(o, part, ctx), args[0]);
    return names.length === 1 ? get(names[0]) : new PyTuple(names.map(get));
  }));
  return module("operator", entries);
});

