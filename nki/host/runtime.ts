// The entry points of the interpreter (nki/python) and of the NKI modules
// (nki/language) that the host API uses, in one place.
export { loadProgram, type Program } from "../python/index.js";
export {
  registerNkiModules, findKernel, launchKernel, kernelNames, finishLaunch, allocateArenas, releaseArenas,
  type KernelFunction, type LaunchOptions, type LaunchResult, type OutputRecord, type Arenas,
} from "../language/run.js";

/** Instructions per engine of a run, when the NKI machine counts them (LaunchResult.counts). */
export function countsOf(result: unknown): Record<string, number> | undefined {
  return (result as { counts?: Record<string, number> }).counts;
}
