// Instructions the compiler computes once. NKI's loops are unrolled at compile time (nki-language-guide:
// "the compiler expands the loop body once for each iteration"), so an instruction whose inputs an
// iteration does not change (fused_mamba.rst's mamba_v2 hoists the loads of delta and u out of the
// state loop, which leaves delta * u the same in every state) is the same instruction on the same data
// in each copy of the body. The estimate charges the first and takes the repeats as its result, free:
// the tutorial's profiles show it (VectorE busy 1.60 ms in mamba_v2 against 2.16 ms in mamba_v1 at 4096
// channels, one two-input instruction per state and channel tile less). Assumed, not documented as a
// rule: docs/cost-model.md says so.
import type { Storage } from "../machine/tile.js";
import type { NkiInstruction } from "./instructions.js";

/** Instructions whose result differs between two runs on the same inputs, or that have effects beyond their output. */
const NOT_PURE = /rand|dropout|device_print/;

/** An instruction computed on the device, and the versions of what it wrote just after. */
interface Computed { readonly index: number; readonly outputs: readonly (readonly [Storage, number])[] }

export class RepeatFinder {
  private readonly ids = new WeakMap<Storage, number>();
  private readonly versions = new Map<Storage, number>();
  private readonly computed = new Map<string, Computed>();
  private nextId = 1;

  /**
   * The index of the earlier instruction `ins` repeats, or -1: the same call site on the same inputs (none
   * written since) while the earlier result is still there (nothing wrote over it). Then records `ins`:
   * what it writes changes, and (when not a repeat) later instructions may repeat it.
   */
  visit(ins: NkiInstruction, index: number): number {
    const key = this.key(ins);
    const earlier = key === null ? undefined : this.computed.get(key);
    const repeat = earlier && earlier.outputs.every(([s, v]) => this.versions.get(s) === v) ? earlier.index : -1;
    const outputs = [...new Set(ins.accesses.filter((a) => a.kind !== "read").map((a) => a.storage))];
    for (const s of outputs) this.versions.set(s, (this.versions.get(s) ?? 0) + 1);
    if (key !== null && repeat < 0) this.computed.set(key, { index, outputs: outputs.map((s) => [s, this.versions.get(s)!] as const) });
    return repeat;
  }

  private key(ins: NkiInstruction): string | null {
    if (ins.engine === "DMA" || NOT_PURE.test(ins.name) || !ins.site || !ins.inputTiles.length) return null;
    if (ins.accesses.some((a) => a.kind === "accumulate")) return null; // an update depends on what it updates
    const written = new Set(ins.accesses.filter((a) => a.kind !== "read").map((a) => a.storage));
    const parts = [`${ins.name}@${ins.site.file}:${ins.site.line}:${ins.site.column}`, ins.engine, String(ins.free)];
    for (const a of ins.accesses) {
      if (a.kind !== "read" || written.has(a.storage)) continue; // reads of its own output are part of the instruction
      const r = a.region;
      parts.push(`${this.id(a.storage)}v${this.versions.get(a.storage) ?? 0}[${r.lo.join(",")}:${r.hi.join(",")}:${r.step.join(",")}${r.flat ? "f" : ""}]`);
    }
    return parts.join("|");
  }

  private id(s: Storage): number {
    let id = this.ids.get(s);
    if (id === undefined) this.ids.set(s, (id = this.nextId++));
    return id;
  }
}
