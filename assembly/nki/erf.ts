// The error function in double precision, from two textbook expansions (no tables, no static data):
//   |x| < 2.5:  erf(x)  = 2/sqrt(pi) * exp(-x^2) * sum_{n>=0} 2^n x^(2n+1) / (1*3*...*(2n+1))
//               (all terms positive: no cancellation, relative error a few ulps of f64)
//   |x| >= 2.5: erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
//               (Laplace's continued fraction, evaluated by the modified Lentz method)
// Results go on to be rounded to float32, far coarser than the error of either.

const TWO_OVER_SQRT_PI: f64 = 1.1283791670955126;
const ONE_OVER_SQRT_PI: f64 = 0.5641895835477563;
const SWITCH: f64 = 2.5;

/** erf(x) for 0 <= x < SWITCH by the positive series. */
function erfSeries(x: f64): f64 {
  const x2 = x * x;
  let term = x;
  let sum = x;
  for (let n = 1; n < 200; n++) {
    term *= 2 * x2 / <f64>(2 * n + 1);
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
}

/** erfc(x) for x >= SWITCH by the continued fraction. */
function erfcFraction(x: f64): f64 {
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + a1/(x + a2/(x + ...))) with a_k = k/2.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0.0;
  for (let k = 1; k < 500; k++) {
    const a = <f64>k * 0.5;
    d = x + a * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = x + a / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return ONE_OVER_SQRT_PI * Math.exp(-x * x) / f;
}

export function erf(x: f64): f64 {
  if (x != x) return x;
  const a = Math.abs(x);
  if (a >= 6) return x < 0 ? -1.0 : 1.0; // erfc(6) < 2^-54: 1 in double
  const r = a < SWITCH ? erfSeries(a) : 1 - erfcFraction(a);
  return x < 0 ? -r : r;
}

export function erfc(x: f64): f64 {
  if (x != x) return x;
  if (x < SWITCH) {
    if (x > -SWITCH) return 1 - (x < 0 ? -erfSeries(-x) : erfSeries(x));
    if (x <= -6) return 2;
    return 2 - erfcFraction(-x);
  }
  if (x > 27.3) return 0; // exp(-x^2) underflows
  return erfcFraction(x);
}
