// nl's loops (affine_range, sequential_range, static_range: iterables of ints that remember which
// kind they are, for a later race check), the SPMD program ids, and the index builders (arange,
// mgrid, ogrid, ds, par_dim).
import { HostObject, NativeFunction, PyException, PyTuple, type CallContext, type PyValue } from "../python/values.js";
import { currentRun } from "../machine/kernel-run.js";
import { arange, GridMaker } from "../machine/index-expr.js";
import { DynSlice } from "../machine/access.js";
import { native, intArg } from "./args.js";
import { ParDim } from "./constants.js";
import { noteLoopStart } from "../checks/hooks.js";

export type LoopKind = "affine_range" | "sequential_range" | "static_range" | "dynamic_range";

/** What nl.affine_range(...) and its kin return: a range of ints that knows its kind. */
export class NkiRange extends HostObject {
  readonly typeName: string;
  constructor(readonly kind: LoopKind, readonly start: number, readonly stop: number, readonly step: number) {
    super();
    this.typeName = kind;
  }
  get length(): number { return Math.max(0, Math.ceil((this.stop - this.start) / this.step)); }
  override iterate(ctx: CallContext): Iterator<PyValue> {
    const run = currentRun(ctx.site);
    let i = this.start;
    const { stop, step } = this;
    const loop = noteLoopStart(this.kind, ctx.site); // the race check needs the kind and each iteration
    return {
      next: () => {
        if (step > 0 ? i >= stop : i <= stop) { loop.end(); return { done: true, value: undefined }; }
        run.tick(ctx.site);
        loop.iteration(i);
        const v = i;
        i += step;
        return { done: false, value: v };
      },
    };
  }
  override len(): number { return this.length; }
  override repr(): string { return `${this.kind}(${this.start}, ${this.stop}, ${this.step})`; }
}

function rangeFunction(kind: LoopKind) {
  return native(`nl.${kind}`, [["start"], ["stop", null], ["step", 1]], (a, ctx) => {
    let start = intArg(a.start, "start", ctx);
    let stop: number;
    if (a.stop === null) { stop = start; start = 0; } else stop = intArg(a.stop, "stop", ctx);
    const step = intArg(a.step, "step", ctx);
    if (step === 0) throw new PyException("ValueError", `nl.${kind}() arg 3 must not be zero`, ctx.site);
    return new NkiRange(kind, start, stop, step);
  }, true);
}

/** The context manager nl.no_reorder() returns: entering and leaving it changes nothing here. */
class NoReorder extends HostObject {
  readonly typeName = "no_reorder";
  override getAttr(name: string): PyValue | undefined {
    if (name === "__enter__") return new NativeFunction("__enter__", () => this);
    if (name === "__exit__") return new NativeFunction("__exit__", () => false);
    return undefined;
  }
}

export function makeControlFunctions(): Map<string, PyValue> {
  const out = new Map<string, PyValue>();
  for (const k of ["affine_range", "sequential_range", "static_range", "dynamic_range"] as const) out.set(k, rangeFunction(k));
  out.set("program_id", native("nl.program_id", [["axis", 0]], (a, ctx) => {
    const run = currentRun(ctx.site);
    const axis = intArg(a.axis, "axis", ctx);
    const ids = run.programIds;
    if (axis < 0 || axis >= Math.max(1, ids.length)) throw new PyException("ValueError", `nl.program_id(${axis}): the launch grid has ${ids.length} dimension(s)`, ctx.site);
    return ids[axis] ?? 0;
  }));
  out.set("num_programs", native("nl.num_programs", [["axes", null]], (a, ctx) => {
    const grid = currentRun(ctx.site).launch.grid;
    if (a.axes === null) return grid.reduce((p, q) => p * q, 1);
    const axis = intArg(a.axes, "axes", ctx);
    if (axis < 0 || axis >= Math.max(1, grid.length)) throw new PyException("ValueError", `nl.num_programs(${axis}): the launch grid has ${grid.length} dimension(s)`, ctx.site);
    return grid[axis] ?? 1;
  }));
  out.set("program_ndim", native("nl.program_ndim", [], (_a, ctx) => currentRun(ctx.site).launch.grid.length));
  out.set("arange", native("nl.arange", [["start"], ["stop", null], ["step", 1]], (a, ctx) => {
    const start = intArg(a.start, "start", ctx);
    return a.stop === null ? arange(start) : arange(start, intArg(a.stop, "stop", ctx), intArg(a.step, "step", ctx));
  }));
  out.set("mgrid", new GridMaker(false));
  out.set("ogrid", new GridMaker(true));
  out.set("ds", native("nl.ds", [["start"], ["size"]], (a, ctx) => new DynSlice(intArg(a.start, "start", ctx), intArg(a.size, "size", ctx))));
  // nl.spmd_dim(n, nl.nc(2)) spreads a grid dimension over 2 NeuronCores, n instances on each: the
  // logical dimension is n * 2 (program_id runs over all of it), whichever core runs an instance.
  out.set("spmd_dim", native("nl.spmd_dim", [["size"], ["*rest"]], (a, ctx) => {
    const rest = (a.rest as PyTuple).items.map((x) => intArg(x, "nl.spmd_dim factor", ctx));
    return rest.reduce((p, q) => p * q, intArg(a.size, "size", ctx));
  }));
  out.set("nc", native("nl.nc", [["n"]], (a, ctx) => intArg(a.n, "n", ctx)));
  out.set("par_dim", native("nl.par_dim", [["size"]], (a, ctx) => new ParDim(intArg(a.size, "size", ctx))));
  // `with nl.no_reorder():` keeps program order, which is the only order gpsimd runs in.
  out.set("no_reorder", native("nl.no_reorder", [], () => new NoReorder()));
  return out;
}
