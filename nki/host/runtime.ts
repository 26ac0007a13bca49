// The entry points of the interpreter (nki/python) and of the NKI modules
// (nki/language) that the host API uses, in one place.
export { loadProgram, type Program } from "../python/index.js";
export {
  registerNkiModules, findKernel, launchKernel, kernelNames, finishLaunch, allocateArenas, releaseArenas,
  type KernelFunction, type LaunchOptions, type LaunchResult, type OutputRecord, type Arenas,
} from "../language/run.js";
