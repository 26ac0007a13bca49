// Races the language makes undefined: nl.affine_range promises the compiler that its iterations are
// independent (it may reorder, pipeline or run them at once), so a tile or HBM region written in one
// iteration and read or written in another is an error. The one update allowed across iterations is
// the accumulation into PSUM (psum[...] += nl.matmul(...), nc_matmul's accumulation). Two accesses
// are ordered when the outermost loop in which their iterations differ is sequential (sequential_range,
// static_range, a plain Python range: those run in order), or when they ran in different executions of
// a loop; they race when that loop is an affine_range. Accesses are boxes (checks/regions.ts), so the
// check costs a comparison per earlier access of the same storage within the affine loop, never one
// per element. Records are dropped when the outermost affine loop around them ends.
import { NkiRaceError } from "../../host/checks/errors.js";
import type { Storage } from "../machine/tile.js";
import type { KernelRun } from "../machine/kernel-run.js";
import { atSite, errorDetails } from "../machine/site.js";
import { iterationChain, type AccessKind, type InstructionEvent, type Iteration, type LoopInfo, type RunConsumer } from "./recorder.js";
import { describeRegion, intersection, overlaps, type Region } from "./regions.js";
import { BoxIndex } from "./box-index.js";
import { describeInstruction, describeIteration, lineOf, loopVariable } from "./describe.js";
import type { SourceSite } from "../python/values.js";

interface Rec {
  readonly kind: AccessKind;
  readonly region: Region;
  readonly chain: readonly Iteration[];
  readonly name: string;
  readonly site: SourceSite | undefined;
}

/** An access's records by kind, per storage, within one outermost affine loop. */
interface StorageRecs { reads: BoxIndex<Rec>; writes: BoxIndex<Rec>; accumulates: BoxIndex<Rec> }

const VERB: Record<AccessKind, string> = { read: "reads", write: "writes", accumulate: "accumulates into" };

/** The affine loop in which two iteration chains first differ, with both iterations; null when ordered. */
function racingLoop(a: readonly Iteration[], b: readonly Iteration[]): [Iteration, Iteration] | null {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    if (a[k] === b[k]) continue;
    if (a[k].loop !== b[k].loop) return null; // different executions of a loop: program order
    if (a[k].value === b[k].value) continue;
    return a[k].loop.kind === "affine_range" ? [a[k], b[k]] : null;
  }
  return null;
}

export class RaceCheck implements RunConsumer {
  /** Per outermost affine loop (by id), per storage. */
  private scopes = new Map<number, Map<Storage, StorageRecs>>();
  private run: KernelRun | null = null;

  instruction(e: InstructionEvent): void {
    if (!e.iteration) return;
    if (e.run !== this.run) { this.scopes.clear(); this.run = e.run; }
    const chain = iterationChain(e.iteration);
    const scope = chain.find((it) => it.loop.kind === "affine_range");
    if (!scope) return;
    let recs = this.scopes.get(scope.loop.id);
    if (!recs) this.scopes.set(scope.loop.id, (recs = new Map()));
    for (const a of e.accesses) {
      let s = recs.get(a.storage);
      if (!s) recs.set(a.storage, (s = { reads: new BoxIndex(), writes: new BoxIndex(), accumulates: new BoxIndex() }));
      const rec: Rec = { kind: a.kind, region: a.region, chain, name: e.name, site: e.site };
      // A read races with writes and accumulations, an accumulation with reads and writes, a write with all.
      this.compare(rec, s.writes, a.storage);
      if (a.kind !== "read") this.compare(rec, s.reads, a.storage);
      if (a.kind !== "accumulate") this.compare(rec, s.accumulates, a.storage);
      (a.kind === "read" ? s.reads : a.kind === "write" ? s.writes : s.accumulates).add(rec);
    }
  }

  loopEnded(loop: LoopInfo): void { this.scopes.delete(loop.id); }
  runEnd(): void { this.scopes.clear(); this.run = null; }

  private compare(now: Rec, earlier: BoxIndex<Rec>, storage: Storage): void {
    if (!earlier.size) return;
    earlier.forCandidates(now.region, (r) => {
      if (r.chain === now.chain) return; // the same iteration of every loop
      const loop = racingLoop(r.chain, now.chain);
      if (!loop) return;
      if (!overlaps(r.region, now.region, storage)) return;
      throw raceError(storage, r, now, loop, intersection(r.region, now.region, storage));
    });
  }
}

function raceError(storage: Storage, first: Rec, second: Rec, [a, b]: [Iteration, Iteration], common: Region): NkiRaceError {
  const loop = a.loop;
  const what = storage.describe();
  const msg =
    `iterations ${describeIteration(a)} and ${describeIteration(b)} of the nl.affine_range loop at ${lineOf(loop.site)} both touch ${describeRegion(common)} of ${what}: ` +
    `iteration ${describeIteration(a)} ${VERB[first.kind]} them (${describeInstruction(first.name, first.site)}) and iteration ${describeIteration(b)} ${VERB[second.kind]} them (${describeInstruction(second.name, second.site)}); ` +
    `affine_range declares its iterations independent, so the compiler may reorder or overlap them (use nl.sequential_range for a loop-carried dependency; only accumulation into PSUM may cross iterations)` +
    atSite(second.site);
  const access = (r: Rec, it: Iteration) => ({ instruction: r.name, kind: r.kind, file: r.site?.file, line: r.site?.line, column: r.site?.column, iteration: { [loopVariable(loop)]: it.value } });
  return new NkiRaceError("E_NKI_RACE", msg, {
    details: errorDetails(second.site, {
      loop: { kind: loop.kind, file: loop.site?.file, line: loop.site?.line, variable: loopVariable(loop) },
      tile: storage.isHbm ? undefined : storage.name,
      tensor: storage.isHbm ? storage.name : undefined,
      buffer: storage.kind,
      range: { lo: common.lo, hi: common.hi, flat: common.flat },
      first: access(first, a),
      second: access(second, b),
    }),
  });
}
