// gpsimd check <library> <op> --ref <module>: property-based verification of
// a kernel against a TypeScript reference over random shapes (edge sizes
// favoured: 1, below 8, not divisible by 8, 65535), dtypes and values, with
// fast-check shrinking a failure to its smallest case; the failure names the
// first mismatching element and the core that wrote it. Every case also runs
// the opcheck (cli/compare.ts).
import fc from "fast-check";
import { GpsimdError, ShapeFunctionError, Tensor, dtypeInfo, type Library } from "../host/index.js";
import { openTarget } from "./library-source.js";
import { CHECK } from "./specs.js";
import { loadReference, type ReferenceFunction } from "./reference.js";
import { kernelArguments, parseDTypeOption, scalarValue, describeArguments, nth, type ValueSpec } from "./inputs.js";
import { compareOutput, opcheck, unflatten, writerOf, type Tolerance } from "./compare.js";
import { parseCommand, listOption, intOption, numberOption, UsageError, EXIT, VALUE_KINDS, type ValueKind } from "./options.js";
import { progress } from "./progress.js";
import { readFileSync } from "node:fs";
import { sha256 } from "../host/verdict/verdict.js";
import { callReport, recordInputs, recordOutputs } from "./report.js";
import { CommandError } from "./options.js";
import { withShapeContext } from "../host/device/shape-context.js";
import { shapeArguments, paramTypeText } from "../host/library/arguments.js";

/** Sizes a random dimension favours: the edges kernels get wrong. */
export const EDGE_SIZES = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 255, 1000, 1023, 1024, 1025, 4097, 65535];

/**
 * A size: a number, a letter for a random size shared by every tensor, or a random size in a range whose ends
 * are numbers or other sizes' letters (1..n, k=1..n names it k for use elsewhere). A range's case draws an
 * offset (under `key`) that shrinks towards the low end.
 */
type SizeToken = number | string | RangeToken;
interface RangeToken { key: string; lo: number | string; hi: number | string; }

/** One generated case. */
interface Case { dims: Record<string, number>; dtype: string; values: ValueSpec; }

/** What went wrong in a case. */
interface CaseFailure { what: string; index?: number; code?: string; error?: GpsimdError; }

/** Bumped when the case generator draws differently for the same parameters: a bundle's cases then no longer replay. */
const GENERATOR_VERSION = 1;

class CaseFailed extends Error {
  constructor(readonly failure: CaseFailure) { super(failure.what); }
}

const LETTER = /^[A-Za-z_]\w*$/;

/** "n,k,4", "n,1..n", "k=2..n": numbers, letters and ranges; `index` makes an unnamed range's key unique. */
function parseTemplate(text: string, index: number): SizeToken[] {
  const bad = () => new UsageError(`--shape ${JSON.stringify(text)}: expected sizes, letters and ranges, e.g. n,b,4 or 1..n or k=1..n`);
  const end = (s: string) => (/^\d+$/.test(s) ? Number(s) : LETTER.test(s) ? s : null);
  const tokens = text.split(/[,x\s]+/).filter(Boolean).map((t, j): SizeToken => {
    if (/^\d+$/.test(t)) return Number(t);
    if (LETTER.test(t)) return t;
    const m = /^(?:([A-Za-z_]\w*)=)?([^.=]+)\.\.([^.=]+)$/.exec(t);
    const lo = m && end(m[2]), hi = m && end(m[3]);
    if (!m || lo === null || hi === null) throw bad();
    return { key: m[1] ?? `${t}#${index}.${j}`, lo, hi };
  });
  if (tokens.length === 0) throw bad();
  return tokens;
}

/** A size token as --shape spells it. */
function tokenText(t: SizeToken): string {
  return typeof t === "object" ? `${t.key.includes("#") ? "" : `${t.key}=`}${t.lo}..${t.hi}` : String(t);
}

/** The letters a case draws: plain letters (not names of ranges) and every range's key. */
function caseLetters(templates: SizeToken[][]): string[] {
  const ranges = templates.flat().filter((t): t is RangeToken => typeof t === "object");
  const named = new Set(ranges.map((r) => r.key));
  const refs = [...templates.flat(), ...ranges.flatMap((r) => [r.lo, r.hi])].filter((t): t is string => typeof t === "string" && !named.has(t));
  return [...new Set([...refs, ...ranges.map((r) => r.key)])];
}

/** Each tensor's sizes for a case's draws; null when a range is empty (its high end below its low end). */
function sizesOf(templates: SizeToken[][], dims: Record<string, number>): number[][] | null {
  const ranges = new Map(templates.flat().filter((t): t is RangeToken => typeof t === "object").map((r) => [r.key, r]));
  const resolving = new Set<string>();
  const value = (t: number | string | RangeToken): number => {
    if (typeof t === "number") return t;
    const r = typeof t === "object" ? t : ranges.get(t);
    if (!r) return dims[t as string];
    if (resolving.has(r.key)) throw new UsageError(`--shape: the range ${r.key} refers to itself`);
    resolving.add(r.key);
    try {
      const lo = value(r.lo), hi = value(r.hi);
      return hi < lo ? Number.NaN : lo + (dims[r.key] % (hi - lo + 1));
    } finally { resolving.delete(r.key); }
  };
  const sizes = templates.map((t) => t.map(value));
  return sizes.some((s) => s.some(Number.isNaN)) ? null : sizes;
}

/** A random size: an edge size most of the time, otherwise any size up to 4096 (both shrink towards 1). */
const dimension = fc.oneof(
  { arbitrary: fc.constantFrom(...EDGE_SIZES), weight: 3 },
  { arbitrary: fc.integer({ min: 1, max: 4096 }), weight: 1 },
);

/** What a reference receives for an argument: a tensor's values as a typed array (float16/bfloat16 decoded), a scalar as a number. */
function referenceArgument(a: unknown): unknown {
  return a instanceof Tensor ? a.data() : typeof a === "bigint" ? Number(a) : a;
}

/** The reference's result for args, as values and (if it says) sizes. */
function expectedOf(fn: ReferenceFunction, args: unknown[], shapes: number[][]): { data: ArrayLike<number | bigint>; sizes?: number[] } {
  let result: ReturnType<ReferenceFunction>;
  try {
    result = fn(...args.map(referenceArgument), shapes);
  } catch (e) {
    throw new CaseFailed({ what: `the reference threw: ${e instanceof Error ? e.message : String(e)}`, code: "E_CHECK_REFERENCE" });
  }
  if (result && typeof result === "object" && "data" in result && !ArrayBuffer.isView(result)) return result;
  if (!result || typeof (result as ArrayLike<number>).length !== "number") throw new CaseFailed({ what: `the reference returned ${typeof result}, not an array of values`, code: "E_CHECK_REFERENCE" });
  return { data: result as ArrayLike<number | bigint> };
}

/** A value as float32 would print it: 8 significant digits are enough to tell float32 values apart. */
function shortest(v: number): string {
  return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : String(Number(v.toPrecision(8)));
}

/** Runs gpsimd check. */
export async function checkCommand(argv: string[]): Promise<number> {
  const parsed = parseCommand(CHECK, argv);
  if (!parsed) return EXIT.OK;
  const { values, positionals } = parsed;
  const { library, opName, reference: folderReference } = openTarget("check", positionals, values);
  const refFile = (values.ref as string | undefined) ?? folderReference;
  if (!refFile) throw new UsageError("gpsimd check: give the reference module with --ref");
  const reference = await loadReference(refFile, opName, values.export as string | undefined);
  const kernel = library.ops.get(opName)!.kernel;
  const tensorCount = kernel.params.filter((p) => p.kind === "tensor").length;
  const templates = (listOption(values, "shape").length ? listOption(values, "shape") : ["n"]).map(parseTemplate);
  while (templates.length < tensorCount) templates.push(templates[templates.length - 1]);
  const letters = caseLetters(templates);
  const dtypes = listOption(values, "dtype").length ? listOption(values, "dtype") : ["float32"];
  dtypes.forEach((d) => d.split(",").forEach(parseDTypeOption));
  const kinds = listOption(values, "values").length ? listOption(values, "values") as ValueKind[] : VALUE_KINDS.filter((k) => k !== "boxes");
  for (const k of kinds) if (!(VALUE_KINDS as readonly string[]).includes(k)) throw new UsageError(`--values ${k}: expected one of ${VALUE_KINDS.join(", ")}`);
  const scalars = listOption(values, "arg");
  const scalarParams = kernel.params.filter((p) => p.kind !== "tensor");
  if (scalars.length !== scalarParams.length) {
    const wanted = scalarParams.map((p) => `${paramTypeText(kernel, p)} ${p.name}`).join(", ");
    throw new UsageError(`gpsimd check: ${qualifiedOf(library, opName)} takes ${scalarParams.length} scalar argument${scalarParams.length === 1 ? "" : "s"}${wanted ? ` (${wanted})` : ""}, but ${scalars.length} --arg ${scalars.length === 1 ? "was" : "were"} given; give one --arg per scalar, in parameter order`);
  }
  scalarParams.forEach((p, i) => scalarValue(scalars[i], p.kind, p.name));
  const runs = intOption(values, "runs", 100, 1);
  const seed = intOption(values, "seed", 1);
  const maxNumel = intOption(values, "max-numel", 1 << 20, 1);
  const atol = numberOption(values, "atol", 1e-6);
  const rtolGiven = values.rtol !== undefined ? numberOption(values, "rtol", 1e-5) : undefined;
  // The command line that repeats this run exactly: every option as given, and the seed even when it was the default.
  const referenceSha256 = sha256(readFileSync(refFile));
  const pinned = values["reference-hash"] as string | undefined;
  if (pinned !== undefined && pinned !== referenceSha256) {
    const message = `gpsimd check: the reference ${refFile} is not the one pinned by --reference-hash (sha256 ${pinned.slice(0, 12)}... pinned, ${referenceSha256.slice(0, 12)}... now): it changed, so the check is refused instead of run against another reference`;
    callReport().failures.push({ class: "ReferenceChangedError", code: "E_REFERENCE_CHANGED", message, file: refFile, details: { pinned, actual: referenceSha256 } });
    throw new CommandError(message, EXIT.USAGE);
  }
  const generatorSha256 = sha256(JSON.stringify({ generator: GENERATOR_VERSION, templates, dtypes, kinds, scalars, runs, seed, maxNumel, atol, rtol: rtolGiven ?? null }));
  callReport().target = { library: library.namespace, op: `${library.namespace}::${opName}`, reference: refFile, cores: library.multicore ? library.cores : 1 };
  const checkRecord = () => ({ runs, seed, generated: counts.generated, compared: counts.compared, rejected: counts.rejected, tooBig: counts.tooBig, failed: 0, referenceSha256, generatorSha256 });
  const rerun = `gpsimd check ${[...argv, ...(values.seed === undefined ? ["--seed", String(seed)] : [])].map(shellWord).join(" ")}`;

  const qualified = qualifiedOf(library, opName);
  process.stdout.write(`check ${qualified} against ${reference.name} (${refFile}): ${runs} cases, shapes ${templates.map((t) => `[${t.map(tokenText).join(", ")}]`).join(" ")}, dtypes ${dtypes.join(", ")}, seed ${seed}\n`);
  const tried = new Set<number>();
  const counts = { generated: 0, tooBig: 0, rejected: 0, compared: 0 };
  let firstRejection: string | undefined;
  const bar = progress("gpsimd check");
  const op = library.ops.get(opName)!;
  /** Runs one case: false when the shape function rejected its inputs (nothing compared); throws when it fails. */
  const runCase = (c: Case): boolean => {
    const shapes = sizesOf(templates, c.dims)!;
    // Ask the shape function first, on meta tensors: a rejected case costs no input data.
    const metaArgs = kernel.params.map((p, i) => {
      const k = kernel.params.slice(0, i).filter((q) => q.kind === "tensor").length;
      return p.kind === "tensor" ? new Tensor(nth(shapes, k, [1]), parseDTypeOption(nth(c.dtype.split(","), k, "float32")), true) : scalarValue(scalars[i - k], p.kind, p.name);
    });
    try {
      withShapeContext(() => op.definition.shape(...shapeArguments(metaArgs)), library.multicore ? library.cores : 1);
    } catch (e) {
      firstRejection ??= `${metaArgs.map((a) => (a instanceof Tensor ? a.describe() : String(a))).join(", ")}: shape function of ${qualifiedOf(library, opName)} failed: ${e instanceof Error ? e.message : String(e)}`;
      return false;
    }
    const args = kernelArguments(kernel, shapes, c.dtype.split(","), scalars, c.values);
    let out: Tensor | null = null;
    try {
      try {
        out = library.call(opName, args) as Tensor;
      } catch (e) {
        if (e instanceof ShapeFunctionError && e.code === "E_SHAPE_FN") {
          firstRejection ??= `${describeArguments(args)}: ${e.message}`;
          return false;
        }
        if (e instanceof GpsimdError) throw new CaseFailed({ what: `the operator raised ${e.name} [${e.code}]: ${e.message}`, error: e });
        throw e;
      }
      const expected = expectedOf(reference.fn, args, shapes);
      const problems = opcheck(library, opName, args, out, expected.data.length, expected.sizes);
      if (problems.length) throw new CaseFailed({ what: `opcheck: ${problems.join("; ")}`, code: "E_CHECK_OPCHECK" });
      const rtol = rtolGiven ?? (dtypeInfo(out.dtype).bytes === 2 && dtypeInfo(out.dtype).isFloating ? 1e-2 : 1e-5);
      const mismatch = compareOutput(out, expected.data, { atol, rtol } satisfies Tolerance);
      if (mismatch) {
        const at = unflatten(mismatch.index, out.sizes());
        throw new CaseFailed({ what: `element ${mismatch.index} ([${at.join(", ")}]) is ${shortest(mismatch.got)}, the reference says ${shortest(mismatch.expected)}; ${mismatch.count} of ${out.numel()} elements differ (atol ${atol}, rtol ${rtol})`, index: mismatch.index, code: "E_CHECK_MISMATCH" });
      }
      return true;
    } finally {
      out?.dispose();
      for (const a of args) if (a instanceof Tensor) a.dispose();
    }
  };
  // A case fits when its ranges are not empty and no tensor is larger than --max-numel.
  const fits = (c: Case) => sizesOf(templates, c.dims)?.every((s) => s.reduce((a, b) => a * b, 1) <= maxNumel) ?? false;

  const caseArbitrary = fc.record({
    dims: fc.record(Object.fromEntries(letters.map((l) => [l, dimension]))) as fc.Arbitrary<Record<string, number>>,
    dtype: fc.constantFrom(...dtypes),
    values: fc.record({ kind: fc.constantFrom(...kinds), seed: fc.nat(1000) }),
  });
  let shrinking = false;
  const property = fc.property(caseArbitrary, (c) => {
    if (!shrinking) counts.generated++;
    if (!fits(c)) {
      if (!shrinking) counts.tooBig++;
      fc.pre(false);
    }
    // A case the shape function rejects tested nothing: it is skipped, not passed, and fast-check draws another.
    const compared = runCase(c);
    if (!shrinking) {
      if (compared) {
        counts.compared++;
        const sizes = sizesOf(templates, c.dims)!;
        templates.forEach((t, i) => t.forEach((tok, j) => { if (typeof tok !== "number") tried.add(sizes[i][j]); }));
      } else counts.rejected++;
      bar.update(counts.compared, runs);
    }
    fc.pre(compared);
  });
  // Skipped cases (too large, or rejected by the shape function) are replaced by new ones, up to 10 per case asked
  // for; a run where the shape function rejects most cases fails below even if enough were compared.
  const details = fc.check(property, { numRuns: runs, seed, maxSkipsPerRun: 10 });
  bar.finish();
  if (details.errorInstance instanceof UsageError) throw details.errorInstance;
  if (!details.failed || details.counterexample === null) {
    if (counts.compared >= runs && counts.rejected <= counts.compared) {
      process.stdout.write(`${coverage(tried, letters.length > 0)}\n  opcheck: the shape function agreed with the kernel's output and the reference in every case\n`);
      if (counts.rejected) process.stdout.write(`  ${counts.rejected} more cases rejected by the shape function (inputs the operator does not accept)\n`);
      process.stdout.write(`OK: ${counts.compared} cases passed (seed ${seed})\n`);
      callReport().check = checkRecord();
      return EXIT.OK;
    }
    const lines = [
      `FAIL ${qualified}: ${counts.compared < runs ? `only ${counts.compared} of the ${runs} cases asked for were compared` : `the shape function rejected most cases (${counts.compared} compared)`}: ${counts.generated} generated, ${counts.rejected} rejected by the shape function, ${counts.tooBig} larger than --max-numel ${maxNumel}`,
      ...(firstRejection ? [`  a rejected case: ${firstRejection}`] : []),
      "  give --shape (and --dtype, --arg) the operator accepts: numbers, and letters for random sizes shared by every tensor",
      `  rerun: ${rerun}`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    callReport().check = checkRecord();
    callReport().failures.push({ class: "CheckFailure", code: "E_CHECK_REJECTED", message: lines[0], op: qualified, details: { firstRejection: firstRejection ?? null } });
    return EXIT.FAILED;
  }
  shrinking = true;
  const fast = details.counterexample[0] as Case;
  const found = shrinkSizes(fast, details.errorInstance, letters, (c) => {
    if (!fits(c)) return null;
    try {
      runCase(c);
      return null;
    } catch (e) {
      if (e instanceof UsageError) throw e;
      return e;
    }
  });
  const c = found.case;
  const error = found.error;
  const failure = error instanceof CaseFailed ? error.failure : { what: `the check itself failed: ${error instanceof Error ? error.stack : String(error)}` };
  const shapes = sizesOf(templates, c.dims)!;
  const dtypeOf = (k: number) => nth(c.dtype.split(","), k, "float32");
  const shrinks = details.numShrinks + found.steps;
  const lines = [
    `FAIL ${qualified}: smallest failing case (found after ${details.numRuns} case${details.numRuns === 1 ? "" : "s"}, shrunk ${shrinks} time${shrinks === 1 ? "" : "s"}):`,
    ...kernel.params.map((p, i) => {
      const k = kernel.params.slice(0, i).filter((q) => q.kind === "tensor").length;
      return `  ${p.name}: ${p.kind === "tensor" ? `${dtypeOf(k)}[${shapes[k].join(", ")}], values ${c.values.kind} (seed ${c.values.seed})` : `${paramTypeText(kernel, p)} ${scalars[i - k]}`}`;
    }),
    `  ${failure.what.replace(/\n/g, "\n  ")}`,
  ];
  if (failure.index !== undefined) lines.push(`  element ${failure.index} was written by ${writtenBy(library, opName, () => kernelArguments(kernel, shapes, c.dtype.split(","), scalars, c.values), failure.index)}`);
  lines.push(`  rerun: ${rerun}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  callReport().check = {
    ...checkRecord(), failed: 1, shrinks,
    failingCase: {
      arguments: kernel.params.map((p, i) => {
        const k = kernel.params.slice(0, i).filter((q) => q.kind === "tensor").length;
        return p.kind === "tensor" ? { name: p.name, dtype: dtypeOf(k), sizes: shapes[k] } : { name: p.name, type: paramTypeText(kernel, p), value: scalars[i - k] };
      }),
      dims: c.dims, values: { kind: c.values.kind, seed: c.values.seed },
    },
  };
  recordFailingCall(library, opName, kernelArguments(kernel, shapes, c.dtype.split(","), scalars, c.values), kernel.params.map((p) => p.name));
  if (failure.error) callReport().errors.push(failure.error);
  else callReport().failures.push({ class: "CheckFailure", code: failure.code ?? "E_CHECK_INTERNAL", message: failure.what, op: qualified, ...(failure.index !== undefined ? { location: { space: "tensor" }, index: [failure.index, failure.index] as [number, number] } : {}), details: failure.index !== undefined ? { index: failure.index } : {} });
  return EXIT.FAILED;
}

/**
 * Shrinks a failing case's random sizes to a local minimum: fast-check shrinks an edge size only towards the
 * smaller edge sizes (255 may stop at 255 when 6 fails), so each size is then walked down as an integer,
 * trying 1 and steps halving towards size - 1, until size - 1 passes for every size.
 * `fails` runs a case and returns its error, or null when it passed or tested nothing.
 */
function shrinkSizes(start: Case, startError: unknown, letters: string[], fails: (c: Case) => unknown): { case: Case; error: unknown; steps: number } {
  let best = start, error = startError, steps = 0;
  for (let changed = true; changed;) {
    changed = false;
    for (const l of letters) {
      const d = best.dims[l];
      const candidates = new Set<number>([1]);
      for (let step = Math.ceil(d / 2); step >= 1; step = step === 1 ? 0 : Math.ceil(step / 2)) candidates.add(d - step);
      for (const size of [...candidates].filter((s) => s >= 1 && s < d).sort((a, b) => a - b)) {
        const next: Case = { ...best, dims: { ...best.dims, [l]: size } };
        const e = fails(next);
        if (e !== null) { best = next; error = e; steps++; changed = true; break; }
      }
    }
  }
  return { case: best, error, steps };
}

/** Calls the failing case once more to record its inputs and output (what a repro bundle holds and replays). */
function recordFailingCall(library: Library, opName: string, args: unknown[], names: string[]): void {
  recordInputs(names.map((n, i) => [n, args[i]]));
  try {
    const out = library.call(opName, args) as Tensor;
    recordOutputs([["output", out]]);
    out.dispose();
  } catch { /* the error is the failure itself, recorded by the caller */ } finally {
    for (const a of args) if (a instanceof Tensor) a.dispose();
  }
}

/** A word as a POSIX shell reads it back unchanged. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

/** lib::op */
function qualifiedOf(library: Library, opName: string): string {
  return `${library.namespace}::${opName}`;
}

/** Runs the case again with tracing on and names the core(s) whose write intervals hold element `index`. */
function writtenBy(library: Library, opName: string, makeArgs: () => unknown[], index: number): string {
  const saved = library.options.trace;
  const args = makeArgs();
  try {
    library.configure({ trace: true });
    (library.call(opName, args) as Tensor).dispose();
    const cores = writerOf(index, library.lastTrace!.cores);
    return cores.length === 0 ? "no core (the write log does not cover it)" : cores.map((k) => `core ${k}`).join(" and ");
  } finally {
    library.configure({ trace: saved });
    for (const a of args) if (a instanceof Tensor) a.dispose();
  }
}

/** Which edge sizes the cases covered. */
function coverage(tried: Set<number>, random: boolean): string {
  if (!random) return "  shapes: fixed (no random sizes)";
  const sizes = [...tried].sort((a, b) => a - b);
  const has = (p: (n: number) => boolean) => (sizes.some(p) ? "yes" : "no");
  return `  sizes tried: ${sizes.length} distinct, from ${sizes[0]} to ${sizes[sizes.length - 1]}; 1: ${has((n) => n === 1)}, below 8: ${has((n) => n > 1 && n < 8)}, not divisible by 8: ${has((n) => n % 8 !== 0)}, 65535: ${has((n) => n === 65535)}`;
}
