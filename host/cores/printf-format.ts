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

function expo(x: number, precision: number, upper: boolean): string {
  const s = x.toExponential(precision);
  const [m, e] = s.split("e");
  const sign = e[0] === "-" ? "-" : "+";
  const digits = e.replace(/^[-+]/, "").padStart(2, "0");
  const out = `${m}e${sign}${digits}`;
  return upper ? out.toUpperCase() : out;
}

function general(x: number, precision: number, alt: boolean, upper: boolean): string {
  const p = precision === 0 ? 1 : precision;
  if (x === 0) return alt ? (0).toFixed(p - 1) : "0";
  const exp = Math.floor(Math.log10(Math.abs(Number(x.toExponential(p - 1)))));
  let s = exp < -4 || exp >= p ? expo(x, p - 1, upper) : x.toFixed(Math.max(0, p - 1 - exp));
  if (!alt) {
    s = s.includes("e") || s.includes("E")
      ? s.replace(/\.?0+(?=[eE])/, "")
      : s.includes(".") ? s.replace(/\.?0+$/, "") : s;
  }
  return s;
}

function nonFinite(x: number, upper: boolean): string | null {
  if (Number.isNaN(x)) return upper ? "NAN" : "nan";
  if (!Number.isFinite(x)) return (x < 0 ? "-" : "") + (upper ? "INF" : "inf");
  return null;
}

/** Formats fmt with args like C's printf. */
export function formatPrintf(fmt: string, args: PrintfArg[]): string {
  let next = 0;
  const take = () => args[next++];
  return fmt.replace(SPEC, (_all, flags: string, width: string | undefined, prec: string | undefined, len: string | undefined, conv: string) => {
    if (conv === "%") return "%";
    const left = flags.includes("-"), plus = flags.includes("+"), space = flags.includes(" "), zero = flags.includes("0"), alt = flags.includes("#");
    let w = width === "*" ? Number(asBigInt(take())) : width ? Number(width) : 0;
    const leftAlign = left || w < 0;
    w = Math.abs(w);
    const precision = prec === undefined ? undefined : prec === "*" ? Number(asBigInt(take())) : Number(prec || 0);
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
        body = nonFinite(ax, upper) ?? (conv === "f" || conv === "F" ? ax.toFixed(Math.min(p, 100))
          : conv === "e" || conv === "E" ? expo(ax, Math.min(p, 100), upper)
          : conv === "g" || conv === "G" ? general(ax, Math.min(p, 100), alt, upper)
          : (upper ? ax.toString(16).toUpperCase() : ax.toString(16)));
        if (alt && !body.includes(".") && (conv === "f" || conv === "F")) body += ".";
        if (!Number.isFinite(x)) numeric = false;
      }
    }
    const text = sign + body;
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
