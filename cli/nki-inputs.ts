// The arguments of an NKI kernel on the command line: --arg [name=]SPEC,
// positional in the order given (the name only labels it), and --kwarg
// name=SPEC for keyword arguments. A SPEC is a tensor made on the spot
// (randn:256,1024, rand:..., uniform:..., integers:..., boxes:1024,1024,
// zeros:..., ones:..., empty:..., arange:..., each with an optional :dtype),
// a .npy file, a number, true / false / None, or a quoted string.
import path from "node:path";
import { tensor, zeros, ones, empty, loadNpy, Rng, dtypeInfo, kFloat, type Tensor, type DType } from "../host/index.js";
import { randomBoxes } from "../ops/giou/boxes.js";
import { UsageError, parseSizes } from "./options.js";
import { parseDTypeOption } from "./inputs.js";
import type { NkiValue } from "../nki/index.js";

/** Tensor makers a SPEC may name. */
export const TENSOR_MAKERS = ["randn", "rand", "uniform", "integers", "boxes", "zeros", "ones", "empty", "arange"] as const;
type Maker = (typeof TENSOR_MAKERS)[number];

/** One argument as given and as made. */
export interface MadeArgument {
  label: string;
  spec: string;
  value: NkiValue;
  /** True for tensors made to be written (empty, zeros): summarised after the run when the kernel returns nothing. */
  isOutputBuffer: boolean;
}

function values(maker: Maker, n: number, seed: number): Float32Array {
  const rng = new Rng(seed);
  const out = new Float32Array(n);
  if (maker === "randn") rng.fillNormal(out);
  else if (maker === "rand") rng.fillUniform(out, 0, 1);
  else if (maker === "uniform") rng.fillUniform(out, -1, 1);
  else if (maker === "integers") for (let i = 0; i < n; i++) out[i] = rng.int(-8, 8);
  else if (maker === "boxes") out.set(randomBoxes(rng, Math.floor(n / 4), 1));
  else if (maker === "arange") for (let i = 0; i < n; i++) out[i] = i;
  return out;
}

function makeTensor(maker: Maker, sizes: number[], dtype: DType, seed: number): Tensor {
  if (maker === "zeros") return zeros(sizes, dtype);
  if (maker === "ones") return ones(sizes, dtype);
  if (maker === "empty") return empty(sizes, dtype);
  const n = sizes.reduce((a, b) => a * b, 1);
  const data = values(maker, n, seed);
  if (dtypeInfo(dtype).isIntegral) return tensor(Int32Array.from(data, Math.round), sizes, dtype);
  return tensor(data, sizes, dtype);
}

/** The value a SPEC describes; `seed` draws random tensors. */
export function parseSpec(spec: string, seed: number, what: string): { value: NkiValue; isOutputBuffer: boolean } {
  const tensorSpec = /^([a-z]+):([^:]+)(?::([a-z0-9]+))?$/.exec(spec);
  if (tensorSpec && (TENSOR_MAKERS as readonly string[]).includes(tensorSpec[1])) {
    const maker = tensorSpec[1] as Maker;
    const sizes = parseSizes(tensorSpec[2], what);
    const dtype = tensorSpec[3] ? parseDTypeOption(tensorSpec[3]) : kFloat;
    return { value: makeTensor(maker, sizes, dtype, seed), isOutputBuffer: maker === "empty" || maker === "zeros" };
  }
  if (spec.endsWith(".npy")) {
    try {
      return { value: loadNpy(path.resolve(spec)), isOutputBuffer: false };
    } catch (e) {
      throw new UsageError(`${what} ${spec}: ${(e as Error).message}`);
    }
  }
  if (spec === "true" || spec === "True") return { value: true, isOutputBuffer: false };
  if (spec === "false" || spec === "False") return { value: false, isOutputBuffer: false };
  if (spec === "None" || spec === "null") return { value: null, isOutputBuffer: false };
  if (/^(['"]).*\1$/.test(spec)) return { value: spec.slice(1, -1), isOutputBuffer: false };
  if (/^[-+]?\d+$/.test(spec)) {
    const big = BigInt(spec);
    return { value: Number.isSafeInteger(Number(big)) ? Number(big) : big, isOutputBuffer: false };
  }
  const n = Number(spec);
  if (spec.trim() !== "" && !Number.isNaN(n)) return { value: n, isOutputBuffer: false };
  throw new UsageError(`${what} ${JSON.stringify(spec)}: expected a tensor (${TENSOR_MAKERS.map((m) => `${m}:SIZES[:DTYPE]`).slice(0, 3).join(", ")}, ...; e.g. randn:256,1024), a .npy file, a number, true, false, None or a quoted string`);
}

/** [label, spec] of "--arg a=randn:2,3" (label optional for --arg, required for --kwarg). */
function split(text: string, option: "--arg" | "--kwarg", position: number): [string, string] {
  const m = /^([A-Za-z_]\w*)=(.*)$/.exec(text);
  if (m) return [m[1], m[2]];
  if (option === "--kwarg") throw new UsageError(`--kwarg ${JSON.stringify(text)}: expected name=VALUE, e.g. --kwarg pool_size=2`);
  return [`arg${position}`, text];
}

/** The positional and keyword arguments of the command line; tensors drawn with seed * 1000 + position. */
export function nkiArguments(args: string[], kwargs: string[], seed: number): { positional: MadeArgument[]; keyword: MadeArgument[] } {
  const made = (text: string, option: "--arg" | "--kwarg", i: number): MadeArgument => {
    const [label, spec] = split(text, option, i);
    return { label, spec, ...parseSpec(spec, seed * 1000 + i, `${option} ${label}`) };
  };
  const positional = args.map((a, i) => made(a, "--arg", i));
  const keyword = kwargs.map((a, i) => made(a, "--kwarg", args.length + i));
  const names = new Set<string>();
  for (const k of keyword) {
    if (names.has(k.label)) throw new UsageError(`--kwarg ${k.label} given twice`);
    names.add(k.label);
  }
  return { positional, keyword };
}

/** The call's arguments as the kernel takes them (keywords as a last plain object). */
export function callValues(made: { positional: MadeArgument[]; keyword: MadeArgument[] }): (NkiValue | Record<string, NkiValue>)[] {
  const kw = Object.fromEntries(made.keyword.map((k) => [k.label, k.value]));
  return made.keyword.length ? [...made.positional.map((p) => p.value), kw] : made.positional.map((p) => p.value);
}

/** "a=float32[256, 1024], pool_size=2" */
export function describeMade(made: { positional: MadeArgument[]; keyword: MadeArgument[] }): string {
  const show = (m: MadeArgument) => `${m.label}=${m.value !== null && typeof m.value === "object" && "describe" in m.value ? (m.value as Tensor).describe() : String(m.value)}`;
  return [...made.positional, ...made.keyword].map(show).join(", ");
}
