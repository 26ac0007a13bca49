// The NKI checks beyond bounds and uninitialised reads: races between affine_range iterations
// (races.ts), SPMD instances writing the same output elements (instances.ts), on-chip capacity
// (capacity.ts). They are on by default; withChecks(false, f) runs f without them (bounds and init
// checks stay: they are the machine's own). The compiler's rules (rules.ts) are always on.
import { addConsumer, removeConsumer, type RunConsumer } from "./recorder.js";
import { RaceCheck } from "./races.js";
import { InstanceOverlapCheck } from "./instances.js";
import { CapacityCheck } from "./capacity.js";
import { BufferRuleCheck } from "./rules.js";

export { addConsumer, removeConsumer, type RunConsumer, type InstructionEvent, type Access, type AccessKind } from "./recorder.js";

const checks: RunConsumer[] = [new RaceCheck(), new InstanceOverlapCheck(), new CapacityCheck(), new BufferRuleCheck()];
let enabled = false;

function setEnabled(on: boolean): void {
  if (on === enabled) return;
  enabled = on;
  for (const c of checks) (on ? addConsumer : removeConsumer)(c);
}
setEnabled(true);

/** Whether the race, instance-overlap and capacity checks run. */
export function checksEnabled(): boolean { return enabled; }

/** Runs f with the checks on or off, restoring the setting afterwards. */
export function withChecks<T>(on: boolean, f: () => T): T {
  const before = enabled;
  setEnabled(on);
  try { return f(); } finally { setEnabled(before); }
}
