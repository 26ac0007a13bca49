// C printf formatting for kernel printf calls: flags, width, precision and
// the conversions d i u x X o c s f F e E g G p %, with length modifiers
// (h hh l ll z j t L) accepted and ignored (arguments arrive as 64-bit values).

/** One printf argument as the kernel sent it. */
export type PrintfArg = { kind: "int"; value: bigint } | { kind: "uint"; value: bigint } | { kind: "float"; value: number } | { kind: "string"; value: string } | { kind: "bool"; value: boolean };

const SPEC = /%([-+ 0#]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L)?([diuxXocsfFeEgGpaA%])/g;

function asBigInt(a: PrintfArg | undefined): bigint {
  if (!a) return 0n;
  switch (a.kind) {
    case "int": case "uint": return a.value;
    case "float": return Number.isFinite(a.value) ? BigInt(Math.trunc(a.value)) : 0n;
    case "bool": return a.value ? 1n : 0n;
    default: return 0n;
  }
}

function asNumber(a: PrintfArg | undefined): number {
  if (!a) return 0;
  switch (a.kind) {
    case "float": return a.value;
    case "int": case "uint": return Number(a.value);
    case "bool": return a.value ? 1 : 0;
    default: return 0;
  }
}

// Floating conversions are exact, as C's are: a double is m * 2^e, so its decimal digits are computed with BigInt
// and rounded to nearest, ties to even (printf("%.2f", 0.125) is 0.12 and "%.0f" of 2.5 is 2, where JavaScript's
// toFixed and toExponential round ties up), and %f writes every integer digit (toFixed switches to exponent form
// from 1e21).

/** Finite x >= 0 as [m, e] with x = m * 2^e exactly. */
function decompose(x: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0), lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  return biased === 0 ? [m, -1074] : [m | (1n << 52n), biased - 1075];
}

/** x * 10^k rounded to an integer, to nearest with ties to even, exactly (finite x >= 0). */
function scaledRound(x: number, k: number): bigint {
  const [m, e] = decompose(x);
  let num = e >= 0 ? m << BigInt(e) : m, den = e >= 0 ? 1n : 1n << BigInt(-e);
  if (k >= 0) num *= 10n ** BigInt(k); else den *= 10n ** BigInt(-k);
  const q = num / den, twice = 2n * (num % den);
  return twice > den || (twice === den && (q & 1n) === 1n) ? q + 1n : q;
}

/** %.<p>f of finite x >= 0. */
function fixed(x: number, p: number): string {
  const n = scaledRound(x, p).toString().padStart(p + 1, "0");
  return p === 0 ? n : `${n.slice(0, n.length - p)}.${n.slice(n.length - p)}`;
}

/** The p + 1 significant digits and the decimal exponent of finite x >= 0 in %.<p>e form. */
function expParts(x: number, p: number): { digits: string; exp: number } {
  if (x === 0) return { digits: "0".repeat(p + 1), exp: 0 };
  let exp = Math.floor(Math.log10(x));
  for (;;) {
    const digits = scaledRound(x, p - exp).toString();
    if (digits.length > p + 1) exp++;        // the estimate was low, or rounding carried (9.996 -> 10.00)
    else if (digits.length < p + 1) exp--;   // the estimate was high
    else return { digits, exp };
  }
}

function expo(x: number, precision: number, upper: boolean, alt = false): string {
  const { digits, exp } = expParts(x, precision);
  const m = precision > 0 ? `${digits[0]}.${digits.slice(1)}` : alt ? `${digits}.` : digits;
  const out = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return upper ? out.toUpperCase() : out;
}

function general(x: number, precision: number, alt: boolean, upper: boolean): string {
  const p = precision === 0 ? 1 : precision;
  const exp = x === 0 ? 0 : expParts(x, p - 1).exp;
  let s = exp < -4 || exp >= p ? expo(x, p - 1, upper, alt) : fixed(x, p - 1 - exp);
  if (alt && !s.includes(".")) s = s.replace(/(?=[eE])|$/, ".");
  if (!alt) {
    s = s.includes("e") || s.includes("E")
      ? s.replace(/\.?0+(?=[eE])/, "")
      : s.includes(".") ? s.replace(/\.?0+$/, "") : s;
  }
  return s;
}

/** %a of finite x >= 0: 0x1.<hex>p<exp>, normalised (subnormals too); a precision rounds the hex digits, ties to even. */
function hexFloat(x: number, precision: number | undefined, alt: boolean, upper: boolean): string {
  let lead = 0n, frac = 0n, exp = 0;
  if (x !== 0) {
    let [m, e] = decompose(x);
    while (m < 1n << 52n) { m <<= 1n; e--; }
    lead = 1n; frac = m - (1n << 52n); exp = e + 52;
  }
  let digits: string;
  if (precision === undefined) digits = frac === 0n ? "" : frac.toString(16).padStart(13, "0").replace(/0+$/, "");
  else if (precision >= 13) digits = frac.toString(16).padStart(13, "0").padEnd(precision, "0");
  else {
    const shift = BigInt(4 * (13 - precision)), half = 1n << (shift - 1n);
    let q = frac >> shift;
    const r = frac & ((1n << shift) - 1n);
    if (r > half || (r === half && ((precision === 0 ? lead : q) & 1n) === 1n)) q++;   // ties to the even last digit kept
    if (q === 1n << BigInt(4 * precision)) { q = 0n; exp++; }   // 0x1.f8p+0 to one digit: 0x2.0p+0, written 0x1.0p+1
    digits = precision === 0 ? "" : q.toString(16).padStart(precision, "0");
  }
  const out = `0x${lead}${digits || alt ? "." : ""}${digits}p${exp < 0 ? "-" : "+"}${Math.abs(exp)}`;
  return upper ? out.toUpperCase() : out;
}

function nonFinite(x: number, upper: boolean): string | null {
  if (Number.isNaN(x)) return upper ? "NAN" : "nan";
  if (!Number.isFinite(x)) return (x < 0 ? "-" : "") + (upper ? "INF" : "inf");
  return null;
}

/**
 * The most characters of one call that can be seen: the device's printf ring is at most 128 KB and keeps the last
 * bytes written (API.md). A width or zero-padding precision beyond it only adds padding that would scroll out, so it
 * is cut to this many characters more than the value's own: the ring's tail is the same, and a call with a width of
 * 3e8 takes no longer than any other.
 */
export const PRINTF_VISIBLE_CHARS = 128 * 1024;

/** Formats fmt with args like C's printf (padding bounded: PRINTF_VISIBLE_CHARS). */
export function formatPrintf(fmt: string, args: PrintfArg[]): string {
  let next = 0;
  const take = () => args[next++];
  return fmt.replace(SPEC, (_all, flags: string, width: string | undefined, prec: string | undefined, len: string | undefined, conv: string) => {
    if (conv === "%") return "%";
    const left = flags.includes("-"), plus = flags.includes("+"), space = flags.includes(" "), zero = flags.includes("0"), alt = flags.includes("#");
    let w = width === "*" ? Number(asBigInt(take())) : width ? Number(width) : 0;
    const leftAlign = left || w < 0;
    w = Math.abs(w);
    const givenPrecision = prec === undefined ? undefined : prec === "*" ? Number(asBigInt(take())) : Number(prec || 0);
    // A negative precision from '*' means none, as in C; a huge one only pads integers with zeros (bounded like w).
    const precision = givenPrecision === undefined || givenPrecision < 0 ? undefined : Math.min(givenPrecision, PRINTF_VISIBLE_CHARS + 64);
    const arg = take();
    let body: string;
    let sign = "";
    let numeric = true;
    switch (conv) {
      case "d": case "i": {
        let v = asBigInt(arg);
        if (len === "h") v = BigInt.asIntN(16, v); else if (len === "hh") v = BigInt.asIntN(8, v); else if (!len && arg?.kind !== "float") v = arg?.kind === "uint" ? v : BigInt.asIntN(64, v);
        if (v < 0n) { sign = "-"; v = -v; } else if (plus) sign = "+"; else if (space) sign = " ";
        body = v.toString();
        if (precision !== undefined) body = precision === 0 && v === 0n ? "" : body.padStart(precision, "0");
        break;
      }
      case "u": case "x": case "X": case "o": {
        const bits = len === "h" ? 16 : len === "hh" ? 8 : len ? 64 : arg?.kind === "int" && asBigInt(arg) >= -(2n ** 31n) && asBigInt(arg) < 2n ** 31n ? 32 : 64;
        const v = BigInt.asUintN(bits, asBigInt(arg));
        body = conv === "u" ? v.toString() : conv === "o" ? v.toString(8) : v.toString(16);
        if (conv === "X") body = body.toUpperCase();
        if (precision !== undefined) body = precision === 0 && v === 0n ? "" : body.padStart(precision, "0");
        if (alt && v !== 0n) body = conv === "o" ? `0${body}` : conv === "x" ? `0x${body}` : conv === "X" ? `0X${body}` : body;
        break;
      }
      case "p": body = `0x${BigInt.asUintN(32, asBigInt(arg)).toString(16)}`; break;
      case "c": numeric = false; body = String.fromCodePoint(Number(BigInt.asUintN(21, asBigInt(arg)))); break;
      case "s": {
        numeric = false;
        const s = arg?.kind === "string" ? arg.value : arg?.kind === "bool" ? String(arg.value) : arg === undefined ? "(null)" : String(arg.value);
        body = precision === undefined ? s : s.slice(0, precision);
        break;
      }
      default: { // f F e E g G a A
        const x = asNumber(arg);
        const upper = conv === conv.toUpperCase();
        if (x < 0 || Object.is(x, -0)) sign = "-"; else if (plus) sign = "+"; else if (space) sign = " ";
        const ax = Math.abs(x);
        const p = precision ?? 6;
        body = nonFinite(ax, upper) ?? (conv === "f" || conv === "F" ? fixed(ax, Math.min(p, 100))
          : conv === "e" || conv === "E" ? expo(ax, Math.min(p, 100), upper, alt)
          : conv === "g" || conv === "G" ? general(ax, Math.min(p, 100), alt, upper)
          : hexFloat(ax, precision === undefined ? undefined : Math.min(precision, 100), alt, upper));
        if (alt && !body.includes(".") && (conv === "f" || conv === "F")) body += ".";
        if (!Number.isFinite(x)) numeric = false;
      }
    }
    const text = sign + body;
    w = Math.min(w, text.length + PRINTF_VISIBLE_CHARS);
    if (text.length >= w) return text;
    if (leftAlign) return text.padEnd(w, " ");
    if (zero && numeric && (precision === undefined || !"diuxXo".includes(conv))) {
      const prefix = sign + (/^0[xX]/.test(body) ? body.slice(0, 2) : "");
      const rest = text.slice(prefix.length);
      return prefix + rest.padStart(w - prefix.length, "0");
    }
    return text.padStart(w, " ");
  });
}
