// The options of nki.load / nki.loadSource and of a kernel's calls: how many
// threads a grid's instances run on, how long a call may take, which device
// the checks describe, and whether the NKI checks run.
import { availableParallelism } from "node:os";
import { OptionError } from "../../host/checks/errors.js";
import type { DeviceName } from "../machine/device.js";

/** Options of nki.load, nki.loadSource and kernel.with(...). */
export interface NkiOptions {
  /** Threads a grid's instances run on, the calling thread included (default: the machine's cores, at most the instances). */
  threads?: number;
  /** Milliseconds a call may run before it stops with KernelTimeoutError (default 60000). */
  timeout_ms?: number;
  /** The NeuronCore whose limits the checks apply (default trn1). */
  device?: DeviceName;
  /**
   * false: no race, instance-overlap, capacity or buffer-rule checks (nki/checks), on every thread the
   * call runs on; bounds, uninitialised reads and unwritten outputs stay checked (default true).
   */
  checks?: boolean;
}

/** NkiOptions with every value decided. */
export interface ResolvedNkiOptions {
  threads: number;
  timeout_ms: number;
  device: DeviceName;
  checks: boolean;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Longest timeout accepted (a day): past it a deadline stops being a number the clocks compare well. */
const MAX_TIMEOUT_MS = 86_400_000;
const MAX_THREADS = 256;

/** Checks options and fills in the defaults (over `base` when given). */
export function resolveNkiOptions(options: NkiOptions | undefined, where: string, base?: ResolvedNkiOptions): ResolvedNkiOptions {
  const o = options ?? {};
  if (typeof o !== "object" || o === null) throw new OptionError("E_OPTION", `${where}: options must be an object such as { threads: 4 }, got ${String(o)}`);
  const known = ["threads", "timeout_ms", "device", "checks"];
  for (const key of Object.keys(o)) {
    if (!known.includes(key)) throw new OptionError("E_OPTION", `${where}: unknown option ${key}; the options are ${known.join(", ")}`, { details: { option: key } });
  }
  const threads = o.threads ?? base?.threads ?? availableParallelism();
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) throw new OptionError("E_OPTION", `${where}: threads must be an integer from 1 to ${MAX_THREADS}, got ${String(threads)}`, { details: { option: "threads", value: threads } });
  const timeout = o.timeout_ms ?? base?.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  if (typeof timeout !== "number" || !(timeout > 0) || timeout > MAX_TIMEOUT_MS) throw new OptionError("E_OPTION", `${where}: timeout_ms must be a number of milliseconds above 0 and at most ${MAX_TIMEOUT_MS}, got ${String(timeout)}`, { details: { option: "timeout_ms", value: timeout } });
  const device = o.device ?? base?.device ?? "trn1";
  if (device !== "trn1" && device !== "trn2") throw new OptionError("E_OPTION", `${where}: device must be "trn1" or "trn2", got ${JSON.stringify(device)}`, { details: { option: "device", value: device } });
  const checks = o.checks ?? base?.checks ?? true;
  if (typeof checks !== "boolean") throw new OptionError("E_OPTION", `${where}: checks must be true or false, got ${JSON.stringify(checks)}`, { details: { option: "checks", value: checks } });
  return { threads, timeout_ms: timeout, device, checks };
}
