// gpsimd for the host: tensors in device memory, operator libraries built
// from AssemblyScript kernels and TypeScript shape functions, and ops.<lib>.<op>.
export { Tensor, MAX_DIMS, MAX_DIM_SIZE } from "./tensor.js";
export { empty, zeros, ones, full, eye, tensor, rand, randn, type DTypeLike, type NestedArray, type RandomOptions } from "./factories.js";
export {
  ScalarType, kFloat, kFloat32, kBFloat16, kHalf, kFloat16, kInt, kInt32, kChar, kInt8, kLong, kInt64, kShort, kInt16, kByte, kUInt8,
  dtypeInfo, parseDType, type DTypeInfo,
} from "./dtype.js";
export { NEURON_LIBRARY, MAX_FUNCTIONS, type ShapeFunction, type LibraryDefinitions } from "./registry.js";
export { custom_op } from "./loader.js";
export { ops, type Ops, type OpNamespace, type OpFunction } from "./ops.js";
export { Library } from "./library.js";
export { type LoadOptions, type RuntimeOptions, type LoadTimeOptions } from "./options.js";
export { setOutput, type OutputSinks } from "./output.js";
export { shutdown } from "./pool/pool.js";
export { hbm, type DeviceMemory } from "./hbm.js";
export { Rng } from "./rng.js";
export { profile, chromeTrace, estimateLaunch, GPSIMD_COST_MODEL, type ProfileOptions, type ProfileResult, type DeviceEstimate, type CostModel, type LaunchTrace, type CoreTrace, type ChromeTrace } from "./profile.js";
export * from "./errors.js";
export * as autograd from "./autograd.js";
