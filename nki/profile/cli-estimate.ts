// What `gpsimd profile file.py` adds to its wall-time measurements: one more call of the kernel on the
// calling thread with the checks as the command asked (on unless --no-checks), recorded, and the estimate of its time on a NeuronCore-v2 (per
// engine, the critical path, optionally the Chrome trace written to a file).
import { readFileSync, writeFileSync } from "node:fs";
import { loadProgram } from "../python/index.js";
import { findKernel } from "../language/run.js";
import { Tensor } from "../../host/device/tensor.js";
import { profileKernel, formatProfile, type KernelProfile } from "./index.js";

/** Positional values, with the keyword arguments as a trailing plain object (as the CLI passes them). */
function splitArguments(values: readonly unknown[]): { args: unknown[]; kwargs: Record<string, unknown> } {
  const last = values[values.length - 1];
  if (last !== null && typeof last === "object" && !(last instanceof Tensor) && !Array.isArray(last)) {
    return { args: values.slice(0, -1), kwargs: last as Record<string, unknown> };
  }
  return { args: [...values], kwargs: {} };
}

/** Runs the kernel once with the estimate recorded; writes the trace to `tracePath` when given. */
export function estimateKernelFile(
  file: string, kernel: string, grid: readonly number[] | null, values: readonly unknown[], tracePath?: string, options: { checks?: boolean } = {},
): { text: string; profile: KernelProfile } {
  const program = loadProgram(file, { source: readFileSync(file, "utf8") });
  const { args, kwargs } = splitArguments(values);
  const { result, profile } = profileKernel(program, findKernel(program, kernel), args, kwargs, { ...(grid ? { grid } : {}), checks: options.checks !== false });
  for (const t of result.outputs) t.dispose();
  let text = formatProfile(profile);
  if (tracePath) {
    writeFileSync(tracePath, JSON.stringify(profile.trace));
    text += `\nChrome trace (one lane per engine; open in ui.perfetto.dev or chrome://tracing): ${tracePath}`;
  } else {
    text += "\n(--trace FILE writes the Chrome trace of this estimate)";
  }
  return { text, profile };
}
