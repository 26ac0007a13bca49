// SPMD instances that write overlapping elements of a shared_hbm output: on the device the instances
// run at once on their cores, so which write lands is undefined (as two GpSimd cores writing the same
// output elements, CrossCoreWriteError, with instance ids for core ids). Instances of a launch run one
// after another on a thread; each write to a shared output is compared, as a box, with the other
// instances' writes of the same launch. (Unwritten output elements are the launch's own check,
// UnwrittenOutputError.) A launch split over the SPMD threads runs each instance as a launch of its own:
// there every thread logs its instances' stores and the calling thread compares them all
// (nki/spmd/overlaps.ts), to the same error.
import { CrossCoreWriteError } from "../../host/checks/errors.js";
import type { Storage } from "../machine/tile.js";
import type { KernelLaunch } from "../machine/kernel-run.js";
import { atSite, errorDetails } from "../machine/site.js";
import type { SourceSite } from "../python/values.js";
import type { InstructionEvent, RunConsumer } from "./recorder.js";
import { describeRegion, intersection, overlaps, type Region } from "./regions.js";
import { describeInstruction } from "./describe.js";
import { BoxIndex } from "./box-index.js";

interface Write { readonly instance: number; readonly ids: readonly number[]; readonly region: Region; readonly name: string; readonly site: SourceSite | undefined }

export class InstanceOverlapCheck implements RunConsumer {
  private launches = new WeakMap<KernelLaunch, Map<Storage, BoxIndex<Write>>>();

  instruction(e: InstructionEvent): void {
    const launch = e.run.launch;
    if (launch.instances <= 1) return;
    for (const a of e.accesses) {
      if (a.kind === "read" || a.storage.kind !== "shared_hbm") continue;
      let byStorage = this.launches.get(launch);
      if (!byStorage) this.launches.set(launch, (byStorage = new Map()));
      let writes = byStorage.get(a.storage);
      if (!writes) byStorage.set(a.storage, (writes = new BoxIndex()));
      const now: Write = { instance: e.run.instance, ids: e.run.programIds, region: a.region, name: e.name, site: e.site };
      writes.forCandidates(now.region, (w) => {
        if (w.instance === now.instance || !overlaps(w.region, now.region, a.storage)) return;
        throw overlapError(launch.kernelName, a.storage, w, now, intersection(w.region, now.region, a.storage));
      });
      writes.add(now);
    }
  }
}

function overlapError(kernel: string, storage: Storage, first: Write, second: Write, common: Region): CrossCoreWriteError {
  const id = (w: Write) => `[${w.ids.join(", ")}]`;
  return new CrossCoreWriteError(
    "E_NKI_INSTANCE_OVERLAP",
    `${kernel}: SPMD instances ${id(first)} and ${id(second)} both write ${describeRegion(common)} of the output ${storage.describe()} ` +
      `(${describeInstruction(first.name, first.site)} in instance ${id(first)}, ${describeInstruction(second.name, second.site)} in instance ${id(second)}); ` +
      `instances run at once on the device, so which value lands is undefined: each instance must write a disjoint part of a shared_hbm output${atSite(second.site)}`,
    { details: errorDetails(second.site, { tensor: storage.name, instances: [first.ids, second.ids], range: { lo: common.lo, hi: common.hi, flat: common.flat }, firstLine: first.site?.line, secondLine: second.site?.line }) },
  );
}
