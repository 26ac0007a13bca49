// The seeds' C++ files (examples/seeds-cpp/, byte for byte) as custom_op.load
// takes them. The blog's giou.cpp and shape.cpp build as they are; the
// performance tutorial shows only the relu_forward function of its relu.cpp
// files (and the API guide only the functions of most examples), so
// kernelSource completes one with the includes a relu.cpp starts with, then
// the seed's lines under #line, so every message still names the seed file
// and its line numbers.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { PACKAGE_ROOT } from "../ops/index.js";

/** The folder of the C++ seeds. */
export const SEEDS_CPP = path.join(PACKAGE_ROOT, "examples", "seeds-cpp");

/** A seed file's path. */
export function seedCpp(file: string): string { return path.join(SEEDS_CPP, file); }

/** What the tutorial's relu.cpp files start with, before the relu_forward it shows. */
const RELU_PROLOGUE = ["#include <stdint.h>", "#include <stdlib.h>", "#include <torch/torch.h>", "#include <neuron/neuron-utils.hpp>"];

/** Writes `<dir>/<seed>` as a complete relu.cpp around the seed's relu_forward (relu-tcm.cpp or relu-multicore.cpp); returns its path. */
export function reluSource(seed: "relu-tcm.cpp" | "relu-multicore.cpp", dir: string): string {
  return kernelSource(seed, dir);
}

/**
 * Writes `<dir>/<seed>` as a complete .cpp file around a seed that shows only its kernel function (the tutorial's
 * ReLUs, the API guide's TCM tensor_negate and tensor_add examples), as reluSource does; returns its path.
 */
export function kernelSource(seed: string, dir: string): string {
  const file = path.join(dir, seed);
  const text = [...RELU_PROLOGUE, `#line 1 "${seedCpp(seed)}"`, readFileSync(seedCpp(seed), "utf8")].join("\n");
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, text);
  return file;
}
