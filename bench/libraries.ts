// The operator libraries the suites use, each loaded once per run (a
// NEURON_LIBRARY name can be registered only once) and unloaded at the end.
import path from "node:path";
import { custom_op, shutdown, type Library, type LoadOptions } from "gpsimd";
import { loadOp, PACKAGE_ROOT, OPS_BUILD_DIR, type OpLibraryName } from "../ops/index.js";
import { seedCpp, reluSource } from "../examples/seeds-cpp.js";
import { WITHOUT_OWNERSHIP_CHECKS } from "../build/ownership-names.js";

const loaded = new Map<string, Library>();

/** custom_op.load once per run (build_directory defaults to OPS_BUILD_DIR, in the per-user cache); later calls with the same name return the same library. */
export function load(options: LoadOptions): Library {
  let lib = loaded.get(options.name);
  if (!lib) loaded.set(options.name, lib = custom_op.load({ build_directory: OPS_BUILD_DIR, ...options }));
  return lib;
}

/** A shipped library (ops/index.ts), with the default settings (checks on). */
export function shipped(name: OpLibraryName): Library {
  let lib = loaded.get(name);
  if (!lib) loaded.set(name, lib = loadOp(name));
  return lib;
}

const KERNELS = path.join(PACKAGE_ROOT, "bench", "kernels");

/** The launch suite's empty kernel: single-core, multicore on 8 logical cores, or multicore on 1. */
export function emptyKernel(kind: "single" | "multicore" | "multicore-1core"): Library {
  return load({
    name: `bench_empty_${kind.replace("-", "_")}`,
    compute_srcs: [path.join(KERNELS, "empty.ts")],
    shape_srcs: [path.join(KERNELS, `register-${kind}.ts`), path.join(KERNELS, "shape.ts")],
    multicore: kind !== "single",
    ...(kind === "multicore-1core" ? { cores: 1 } : {}),
  });
}

/** Element-wise accessor kernels that write in order (copy2d) and out of order (transpose2d), single-core. */
export function accessorOrderKernels(): Library {
  return load({
    name: "bench_accessor_order",
    compute_srcs: [path.join(KERNELS, "transpose.ts")],
    shape_srcs: [path.join(KERNELS, "register-transpose.ts")],
  });
}

/** The seeds' C++ kernels, unchanged (examples/seeds-cpp/), each under its own library name; giou-fixed-1core is the GIOU one built single-core. */
export function seedCppKernel(kind: "giou-fixed" | "giou-fixed-1core" | "relu-tcm" | "relu-multicore"): Library {
  const name = `bench_cpp_${kind.replaceAll("-", "_")}`;
  const giou = kind.startsWith("giou");
  return load({
    name,
    compute_srcs: [giou ? seedCpp("giou-fixed.cpp") : reluSource(`${kind}.cpp` as "relu-tcm.cpp" | "relu-multicore.cpp", path.join(OPS_BUILD_DIR, "seeds-cpp"))],
    shape_srcs: [seedCpp(giou ? "shape.cpp" : "relu-shape.cpp")],
    multicore: kind === "giou-fixed" || kind === "relu-multicore",
    extra_cflags: [`-Dmy_ops=${name}`], // the seeds all register my_ops
  });
}

/**
 * A shipped TCM kernel (ops/giou, ops/relu) under its own name, built without the default mode's raw load and store
 * checks (build/ownership-pass.ts): the checks suite times the shipped library against it.
 */
export function withoutOwnershipChecks(kind: "giou-tcm" | "giou-multicore" | "relu-tcm"): Library {
  const [op, variant] = kind.split("-") as ["giou" | "relu", "tcm" | "multicore"];
  return load({
    name: `bench_${kind.replace("-", "_")}_unchecked`,
    compute_srcs: [path.join(PACKAGE_ROOT, "ops", op, `${variant}.ts`)],
    shape_srcs: [path.join(KERNELS, `register-${kind}-unchecked.ts`)],
    multicore: variant === "multicore",
    extra_cflags: [WITHOUT_OWNERSHIP_CHECKS],
  });
}

/** Unloads every library and stops the core threads. */
export async function unloadAll(): Promise<void> {
  for (const lib of loaded.values()) lib.unload();
  loaded.clear();
  await shutdown();
}
