// The SPMD overlap check for a launch split by instance. Run whole, a launch
// compares each store to a shared_hbm output with the other instances' stores
// (nki/checks/instances.ts); split over threads, each instance is a launch of
// its own there. So every thread logs its instances' stores to the shared
// outputs (as regions of the output, which cross threads as plain data), and
// the calling thread compares them all once the instances are done, in the
// order the whole launch would have met them: instance by instance.
import { CrossCoreWriteError } from "../../host/checks/errors.js";
import { addConsumer, type InstructionEvent, type RunConsumer } from "../checks/index.js";
import { overlaps, intersection, describeRegion, type Region } from "../checks/regions.js";
import { describeInstruction } from "../checks/describe.js";
import { atSite, errorDetails } from "../machine/site.js";
import type { Storage } from "../machine/tile.js";
import type { SourceSite } from "../python/values.js";
import { instanceAt } from "./grid.js";

/** One store of an instance to a shared output. */
export interface SharedWrite {
  /** The output's device address (the same on every thread). */
  addr: number;
  instance: number;
  region: Region;
  /** The instruction. */
  name: string;
  site?: SourceSite;
}

/** Logs the stores of the instances run inside recordWrites. */
class WriteLog implements RunConsumer {
  current: SharedWrite[] | null = null;
  instruction(e: InstructionEvent): void {
    if (!this.current) return;
    for (const a of e.accesses) {
      if (a.kind === "read" || a.storage.kind !== "shared_hbm") continue;
      this.current.push({ addr: a.storage.addr, instance: e.run.instance, region: a.region, name: e.name, site: e.site });
    }
  }
}

let log: WriteLog | null = null;

/** Runs f (an instance of a split launch) with its stores to shared outputs appended to `into` when `checks` (the launch's checks option). */
export function recordWrites<T>(into: SharedWrite[], checks: boolean, f: () => T): T {
  if (!checks) return f();
  if (!log) addConsumer((log = new WriteLog()));
  const before = log.current;
  log.current = into;
  try {
    return f();
  } finally {
    log.current = before;
  }
}

/** What the check needs of an output: its shape (regions of a flat view are compared as flat element ranges) and name. */
export interface OutputShape { addr: number; shape: readonly number[]; describe: string; name?: string }

/** Throws CrossCoreWriteError E_NKI_INSTANCE_OVERLAP for the first store (in instance order) that meets another instance's. */
export function checkInstanceOverlaps(kernel: string, grid: readonly number[], outputs: readonly OutputShape[], writes: SharedWrite[]): void {
  const byOutput = new Map<number, SharedWrite[]>();
  for (const w of writes) {
    const list = byOutput.get(w.addr);
    if (list) list.push(w); else byOutput.set(w.addr, [w]);
  }
  for (const out of outputs) {
    const list = byOutput.get(out.addr);
    if (!list) continue;
    // Stable: within an instance the stores keep their order.
    list.sort((x, y) => x.instance - y.instance);
    // overlaps() reads only the storage's shape (to compare a flat region with a box).
    const storage = { shape: out.shape } as unknown as Storage;
    for (let j = 0; j < list.length; j++) {
      for (let i = 0; i < j; i++) {
        const first = list[i], second = list[j];
        if (first.instance === second.instance || !overlaps(first.region, second.region, storage)) continue;
        const id = (w: SharedWrite) => `[${instanceAt(grid, w.instance).join(", ")}]`;
        const common = intersection(first.region, second.region, storage);
        throw new CrossCoreWriteError(
          "E_NKI_INSTANCE_OVERLAP",
          `${kernel}: SPMD instances ${id(first)} and ${id(second)} both write ${describeRegion(common)} of the output ${out.describe} ` +
            `(${describeInstruction(first.name, first.site)} in instance ${id(first)}, ${describeInstruction(second.name, second.site)} in instance ${id(second)}); ` +
            `instances run at once on the device, so which value lands is undefined: each instance must write a disjoint part of a shared_hbm output${atSite(second.site)}`,
          {
            details: {
              ...errorDetails(second.site), kernel, instance: instanceAt(grid, second.instance), tensor: out.name,
              instances: [instanceAt(grid, first.instance), instanceAt(grid, second.instance)],
              range: { lo: common.lo, hi: common.hi, flat: common.flat }, firstLine: first.site?.line, secondLine: second.site?.line,
            },
          },
        );
      }
    }
  }
}
