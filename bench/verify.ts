// The check every variant passes before it is timed: its output equals the
// workload's reference within the stated tolerance.
import type { Tolerance } from "./suite.js";

/** A variant's output differs from the reference: the suite stops. */
export class VerificationError extends Error {
  override name = "VerificationError";
}

/** Largest |got - want|; throws VerificationError (naming the case, the first bad index and how many differ) past the tolerance. */
export function verifyOutput(caseName: string, got: ArrayLike<number>, want: ArrayLike<number>, tol: Tolerance): number {
  if (got.length !== want.length) {
    throw new VerificationError(`${caseName}: output has ${got.length} elements, the reference ${want.length}`);
  }
  let worst = 0, bad = 0, first = -1;
  for (let i = 0; i < want.length; i++) {
    const g = got[i], w = want[i];
    if (Number.isNaN(g) && Number.isNaN(w)) continue;
    const diff = Math.abs(g - w);
    if (!(diff <= tol.abs + tol.rel * Math.abs(w))) {
      bad++;
      if (first < 0) first = i;
    }
    if (diff > worst || Number.isNaN(diff)) worst = diff;
  }
  if (bad > 0) {
    throw new VerificationError(
      `${caseName}: output differs from the reference: element ${first} is ${got[first]}, expected ${want[first]} ` +
      `(tolerance ${tol.abs} + ${tol.rel} x |expected|); ${bad} of ${want.length} elements differ. Nothing was timed.`,
    );
  }
  return worst;
}
