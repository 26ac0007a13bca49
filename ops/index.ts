// The operator libraries gpsimd ships: one explicit list. Each entry names
// its kernel sources (AssemblyScript) and shape sources (TypeScript, the
// first one calls NEURON_LIBRARY with the entry's name), as custom_op.load
// takes them. loadOp builds (or reuses) and loads one of them. A dependent
// project imports this module as "gpsimd/ops".
import path from "node:path";
import { custom_op, type Library, type LoadTimeOptions } from "gpsimd";
import { PACKAGE_ROOT, shippedBuildDir } from "../build/paths.js";

export { PACKAGE_ROOT };

/** One shipped library. */
export interface OpLibrary {
  /** Kernel sources, relative to ops/. */
  compute: string[];
  /** Shape sources, relative to ops/; the first calls NEURON_LIBRARY(<entry name>, ...). */
  shape: string[];
  multicore: boolean;
  /** extra_cflags for custom_op.load (e.g. a larger kernel heap for kernels that make their result). */
  cflags?: string[];
}

/** Kernels that build their result on the kernel heap need room for a W2-sized (16 Mi floats) tensor. */
const BIG_HEAP = ["-DSTACK_SIZE=80000000"];

/** Every shipped library, by NEURON_LIBRARY name. */
export const OP_LIBRARIES = {
  relu_elementwise: { compute: ["relu/elementwise.ts"], shape: ["relu/register-elementwise.ts", "relu/shape.ts"], multicore: false, cflags: BIG_HEAP },
  relu_tcm: { compute: ["relu/tcm.ts"], shape: ["relu/register-tcm.ts", "relu/shape.ts"], multicore: false },
  relu_multicore: { compute: ["relu/multicore.ts"], shape: ["relu/register-multicore.ts", "relu/shape.ts"], multicore: true },
  negate_elementwise: { compute: ["negate/elementwise.ts"], shape: ["negate/register-elementwise.ts", "negate/shape.ts"], multicore: false, cflags: BIG_HEAP },
  negate_stream: { compute: ["negate/stream.ts"], shape: ["negate/register-stream.ts", "negate/shape.ts"], multicore: false },
  negate_tcm: { compute: ["negate/tcm.ts"], shape: ["negate/register-tcm.ts", "negate/shape.ts"], multicore: false },
  add_tcm: { compute: ["add/tcm.ts"], shape: ["add/register-tcm.ts", "add/shape.ts"], multicore: false },
  add_multicore: { compute: ["add/multicore.ts"], shape: ["add/register-multicore.ts", "add/shape.ts"], multicore: true },
  avgpool_tcm: { compute: ["avgpool/tcm.ts"], shape: ["avgpool/register-tcm.ts", "avgpool/shape.ts"], multicore: false },
  avgpool_multicore: { compute: ["avgpool/multicore.ts"], shape: ["avgpool/register-multicore.ts", "avgpool/shape.ts"], multicore: true },
  giou_elementwise: { compute: ["giou/elementwise.ts"], shape: ["giou/register-elementwise.ts", "giou/shape.ts"], multicore: false },
  giou_tcm: { compute: ["giou/tcm.ts"], shape: ["giou/register-tcm.ts", "giou/shape.ts"], multicore: false },
  giou_multicore: { compute: ["giou/multicore.ts"], shape: ["giou/register-multicore.ts", "giou/shape.ts"], multicore: true },
  gemm_tcm: { compute: ["gemm/gemm.ts", "gemm/packed.ts", "gemm/bias.ts"], shape: ["gemm/register-tcm.ts", "gemm/shape.ts"], multicore: false },
  gemm_multicore: { compute: ["gemm/gemm.ts", "gemm/packed.ts", "gemm/bias.ts"], shape: ["gemm/register-multicore.ts", "gemm/shape.ts"], multicore: true },
  nn_tcm: { compute: ["nn/tcm.ts"], shape: ["nn/register-tcm.ts", "nn/shape.ts"], multicore: false },
  softmax_tcm: { compute: ["softmax/tcm.ts"], shape: ["softmax/register-tcm.ts", "softmax/shape.ts"], multicore: false },
  softmax_multicore: { compute: ["softmax/multicore.ts"], shape: ["softmax/register-multicore.ts", "softmax/shape.ts"], multicore: true },
} satisfies Record<string, OpLibrary>;

/** Name of a shipped library. */
export type OpLibraryName = keyof typeof OP_LIBRARIES;

/** Where shipped libraries are built: a folder of the per-user cache (build/paths.ts), never the installed package. */
export const OPS_BUILD_DIR = shippedBuildDir();

/** Builds (unless up to date) and loads a shipped library; it then answers as ops.<name>. */
export function loadOp(name: OpLibraryName, options: LoadTimeOptions = {}): Library {
  const entry: OpLibrary = OP_LIBRARIES[name];
  const from = (files: string[]) => files.map((f) => path.join(PACKAGE_ROOT, "ops", f));
  return custom_op.load({
    name, compute_srcs: from(entry.compute), shape_srcs: from(entry.shape), multicore: entry.multicore,
    extra_cflags: entry.cflags ?? [], build_directory: OPS_BUILD_DIR, ...options,
  });
}
