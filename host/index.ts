// gpsimd for the host: tensors in device memory, operator libraries built
// from AssemblyScript kernels and TypeScript shape functions, and ops.<lib>.<op>.
export { Tensor, DEVICE_SHAPE_LIMITS } from "./device/tensor.js";
export { loadNpy, saveNpy, fromNpy, toNpy, type LoadNpyOptions } from "./device/npy.js";
export { empty, zeros, ones, full, eye, tensor, rand, randn, type DTypeLike, type NestedArray, type RandomOptions } from "./device/factories.js";
export {
  DType, kFloat, kFloat32, kBFloat16, kHalf, kFloat16, kInt, kInt32, kChar, kInt8, kLong, kInt64, kShort, kInt16, kByte, kUInt8,
  dtypeInfo, parseDType, type DTypeInfo, type DTypeName,
} from "./device/dtype.js";
export { NEURON_LIBRARY, MAX_FUNCTIONS, type ShapeFunction, type LibraryDefinitions } from "./library/registry.js";
export { custom_op } from "./library/loader.js";
export { ops, type Ops, type OpNamespace, type OpFunction } from "./library/ops.js";
export { Library } from "./library/library.js";
export { type LoadOptions, type RuntimeOptions, type LoadTimeOptions } from "./library/options.js";
export { setOutput, type OutputSinks } from "./output.js";
export { shutdown } from "./cores/pool.js";
export { hbm, type DeviceMemory } from "./device/hbm.js";
export { Rng } from "./device/rng.js";
export {
  profile, chromeTrace, estimateLaunch, onDevice, GPSIMD_COST_MODEL, DEVICES, TRN1, TRN2, fitCostModel, predictions, trainingEstimateIterPerSecond, CALIBRATION_POINTS, HOST_FLOOR_NS,
  countingLibrary, CYCLES_PER_INSTRUCTION, INSTRUCTION_CLASSES,
  type DeviceProfile, type DeviceName, type CalibrationPoint, type Fit, type ProfileOptions, type ProfileResult, type DeviceEstimate, type CostModel, type LaunchTrace, type CoreTrace, type ChromeTrace,
  type InstructionClass, type InstructionCounts } from "./profiling/profile.js";
export * from "./checks/errors.js";
export { get_cpu_count } from "./device/shape-context.js";
export { toVerdict, verdictOf, outputRecord, gpsimdVersion, VERDICT_SCHEMA, VERDICT_VERSION, type Verdict, type OutputRecord, type CheckRecord } from "./verdict/verdict.js";
export { problemOf, problemOfWarning, type Problem, type ProblemLocation } from "./verdict/problem.js";
export * as autograd from "./autograd.js";
/** NKI kernels (Python, the Neuron Kernel Interface): nki.load, nki.simulate_kernel, grids on the core threads, nki.register. */
export * as nki from "../nki/index.js";
