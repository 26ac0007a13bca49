// Comparing an operator's output with a reference's, and the opcheck: the
// shape function, run again on meta tensors, must describe the output the
// kernel produced and agree with the size of the reference's result.
import { tensor, dtypeInfo, Tensor, type Library } from "../host/index.js";
import { withShapeContext } from "../host/device/shape-context.js";
import { shapeArguments } from "../host/library/arguments.js";

/** Tolerances for floating-point outputs: |got - expected| <= atol + rtol * |expected|. */
export interface Tolerance { atol: number; rtol: number; }

/** The first element that differs, and how many do. */
export interface Mismatch { index: number; got: number; expected: number; count: number; }

/** Expected values rounded to the output's dtype (as the kernel had to store them). */
function asStored(expected: ArrayLike<number | bigint>, out: Tensor): number[] {
  const info = dtypeInfo(out.dtype);
  if (info.isIntegral) return Array.from(expected, Number);
  const rounded = tensor(Float32Array.from(expected as ArrayLike<number>, Number), [expected.length], out.dtype);
  const values = Array.from(rounded.data() as Float32Array);
  rounded.dispose();
  return values;
}

/** The first mismatch between the output and the expected values, or null. */
export function compareOutput(out: Tensor, expected: ArrayLike<number | bigint>, tol: Tolerance): Mismatch | null {
  const got = Array.from(out.data() as ArrayLike<number | bigint>, Number);
  const want = asStored(expected, out);
  const exact = dtypeInfo(out.dtype).isIntegral;
  let first = -1;
  let count = 0;
  for (let i = 0; i < got.length; i++) {
    const a = got[i], b = want[i];
    const same = exact ? a === b : (Number.isNaN(a) && Number.isNaN(b)) || a === b || Math.abs(a - b) <= tol.atol + tol.rtol * Math.abs(b);
    if (!same) {
      if (first < 0) first = i;
      count++;
    }
  }
  return first < 0 ? null : { index: first, got: got[first], expected: want[first], count };
}

/** [i, j, k] of flat element `index` of a tensor with these sizes. */
export function unflatten(index: number, sizes: number[]): number[] {
  const out: number[] = [];
  for (let d = sizes.length - 1; d >= 0; d--) {
    out.unshift(index % sizes[d]);
    index = Math.floor(index / sizes[d]);
  }
  return out;
}

/**
 * The opcheck: runs the operator's shape function again on meta copies of args and returns what disagrees
 * (empty when all agree): with the output the kernel produced (sizes, dtype) and with the reference's result.
 */
export function opcheck(library: Library, opName: string, args: unknown[], out: Tensor, expectedLength: number, expectedSizes?: number[]): string[] {
  const op = library.ops.get(opName)!;
  const shaped = withShapeContext(() => op.definition.shape(...shapeArguments(args)), library.multicore ? library.cores : 1);
  const problems: string[] = [];
  if (!(shaped instanceof Tensor)) return [`the shape function returned ${typeof shaped}, not a tensor`];
  if (shaped.sizes().join() !== out.sizes().join() || shaped.dtype !== out.dtype) {
    problems.push(`the shape function now says ${shaped.describe()}, but the kernel's output is ${out.describe()} (the shape function is not deterministic)`);
  }
  if (expectedLength !== shaped.numel()) problems.push(`the shape function says ${shaped.describe()} (${shaped.numel()} elements), but the reference returned ${expectedLength} values`);
  if (expectedSizes && expectedSizes.join() !== shaped.sizes().join()) problems.push(`the shape function says [${shaped.sizes().join(", ")}], the reference [${expectedSizes.join(", ")}]`);
  return problems;
}

/** Which core wrote flat element `index` of the output, from the cores' write intervals ([start, end, ...] each). */
export function writerOf(index: number, cores: { core: number; writes: number[] }[]): number[] {
  const found: number[] = [];
  for (const c of cores) {
    for (let i = 0; i < c.writes.length; i += 2) {
      if (c.writes[i] <= index && index < c.writes[i + 1]) { found.push(c.core); break; }
    }
  }
  return found;
}
