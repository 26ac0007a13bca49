// What run, check and profile share for an NKI kernel file: the kernel the
// command line names (loaded with its grid and options), and its arguments.
import { GpsimdError, Tensor } from "../host/index.js";
import * as nki from "../nki/index.js";
import type { NkiLauncher, NkiOptions, NkiResult } from "../nki/index.js";
import { CommandError, UsageError, EXIT, intOption, listOption } from "./options.js";
import { nkiArguments, type MadeArgument } from "./nki-inputs.js";

/** The kernel to call and how. */
export interface NkiTarget {
  file: string;
  kernel: string;
  grid: number[] | null;
  launcher: NkiLauncher;
}

/** The .py file among the positionals (exactly one). */
function fileOf(command: string, positionals: string[]): string {
  const files = positionals.filter((p) => p.endsWith(".py"));
  const others = positionals.filter((p) => !p.endsWith(".py"));
  if (files.length !== 1 || others.length) throw new UsageError(`gpsimd ${command}: give one kernel file (file.py) and options${others.length ? `; unexpected ${others.join(" ")}` : ""} (gpsimd ${command} file.py --help)`);
  return files[0];
}

/** The options of nki.load from the command line. */
function loadOptions(values: Record<string, unknown>): NkiOptions {
  const o: NkiOptions = {};
  if (values.threads !== undefined) o.threads = intOption(values, "threads", 1, 1);
  if (values.timeout !== undefined) o.timeout_ms = intOption(values, "timeout", 60000, 1);
  if (values.device !== undefined) {
    if (values.device !== "trn1" && values.device !== "trn2") throw new UsageError(`--device ${String(values.device)}: expected trn1 or trn2`);
    o.device = values.device;
  }
  if (values["no-checks"]) o.checks = false;
  return o;
}

/** Loads the file and picks the kernel (the only one when --kernel is not given). */
export function openNkiTarget(command: string, positionals: string[], values: Record<string, unknown>): NkiTarget {
  const file = fileOf(command, positionals);
  const options = loadOptions(values);
  let kernels: Record<string, NkiLauncher & { grid(...d: number[]): NkiLauncher }>;
  try {
    kernels = nki.load(file, options) as typeof kernels;
  } catch (e) {
    if (e instanceof GpsimdError) throw new CommandError(`gpsimd: ${file}: ${e.name} [${e.code}]: ${e.message}`, e.code === "E_NKI_FILE" ? EXIT.LOAD : EXIT.FAILED, e);
    throw e;
  }
  const names = Object.keys(kernels);
  let kernel = values.kernel as string | undefined;
  if (kernel === undefined) {
    if (names.length !== 1) throw new UsageError(`gpsimd ${command}: ${file} has ${names.length === 0 ? "no kernels" : `${names.length} kernels (${names.join(", ")})`}; name one with --kernel`);
    kernel = names[0];
  }
  if (!names.includes(kernel)) throw new CommandError(`gpsimd: ${file} has no kernel ${kernel}; its kernels: ${names.join(", ") || "(none)"}`, EXIT.LOAD);
  const grid = values.grid === undefined ? null : parseGridOption(values.grid as string);
  const k = kernels[kernel];
  return { file, kernel, grid, launcher: grid ? k.grid(...grid) : k };
}

function parseGridOption(text: string): number[] {
  const dims = text.split(/[,x\s]+/).filter(Boolean).map(Number);
  if (dims.length === 0 || dims.length > 4 || dims.some((d) => !Number.isInteger(d) || d < 1)) throw new UsageError(`--grid ${JSON.stringify(text)}: expected 1 to 4 positive integers, e.g. 2,2`);
  return dims;
}

/** The arguments of the command line, drawn with `seed`. */
export function madeArguments(values: Record<string, unknown>, seed: number): { positional: MadeArgument[]; keyword: MadeArgument[] } {
  return nkiArguments(listOption(values, "arg"), listOption(values, "kwarg"), seed);
}

/** Calls the launcher; a gpsimd error becomes exit code 1 with its class, code and message. */
export function callKernel(target: NkiTarget, args: unknown[]): NkiResult {
  try {
    return target.launcher(...(args as Parameters<NkiLauncher>));
  } catch (e) {
    if (e instanceof GpsimdError) throw new CommandError(`${e.name} [${e.code}]: ${e.message}`, EXIT.FAILED, e);
    throw e;
  }
}

/** The tensors a call produced: those it returned, else the empty/zeros arguments it wrote. */
export function producedTensors(result: NkiResult, made: { positional: MadeArgument[]; keyword: MadeArgument[] }): { label: string; tensor: Tensor }[] {
  if (result instanceof Tensor) return [{ label: "returned", tensor: result }];
  if (Array.isArray(result)) return result.map((t, i) => ({ label: `returned[${i}]`, tensor: t }));
  return [...made.positional, ...made.keyword].filter((m) => m.isOutputBuffer && m.value instanceof Tensor).map((m) => ({ label: m.label, tensor: m.value as Tensor }));
}

/** kernel[2, 2] or kernel */
export function shownCall(target: NkiTarget): string {
  return `${target.kernel}${target.grid ? `[${target.grid.join(", ")}]` : ""}`;
}

/** Frees the argument tensors. */
export function disposeMade(made: { positional: MadeArgument[]; keyword: MadeArgument[] }): void {
  for (const m of [...made.positional, ...made.keyword]) if (m.value instanceof Tensor) m.value.dispose();
}
