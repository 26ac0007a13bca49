// repr(), str(), format specs (f-strings, format(), str.format) and %-formatting, as Python
// writes them: float repr is the shortest round-tripping form with Python's exponent rules, and
// fixed/exponent conversions are exact with ties to even (host/cores/printf-format.ts).

import { formatPrintf } from "../../host/cores/printf-format.js";
import {
  Ellipsis, HostObject, PyDict, PyException, PyFloat, PyList, PySlice, PyTuple, type PyValue,
} from "./values.js";
import { PySet } from "./types.js";

export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x < 0 ? "-inf" : "inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, expPart] = x.toExponential().split("e");
  const exp = Number(expPart);
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace("-", "").replace(".", "");
  let out: string;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
      const frac = digits.slice(exp + 1);
      out = `${intPart}.${frac || "0"}`;
    } else out = `0.${"0".repeat(-exp - 1)}${digits}`;
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return negative ? `-${out}` : out;
}

function stringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** repr(v). */
export function pyRepr(v: PyValue): string {
  if (v === null) return "None";
  switch (typeof v) {
    case "number": return String(v);
    case "boolean": return v ? "True" : "False";
    case "string": return stringRepr(v);
    default: break;
  }
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (v instanceof PyTuple) return v.items.length === 1 ? `(${pyRepr(v.items[0])},)` : `(${v.items.map(pyRepr).join(", ")})`;
  if (v instanceof PyList) return `[${v.items.map(pyRepr).join(", ")}]`;
  if (v instanceof PyDict) return `{${[...v.entries.values()].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  if (v instanceof PySet) return v.items.size ? `{${[...v.items.values()].map(pyRepr).join(", ")}}` : "set()";
  if (v instanceof PySlice) return `slice(${pyRepr(v.start)}, ${pyRepr(v.stop)}, ${pyRepr(v.step)})`;
  if (v === Ellipsis) return "Ellipsis";
  if (v instanceof HostObject) return v.repr ? v.repr() : `<${v.typeName} object>`;
  return String(v);
}

/** str(v). */
export function pyStr(v: PyValue): string {
  if (typeof v === "string") return v;
  if (v instanceof HostObject && v.str) return v.str();
  return pyRepr(v);
}

// ---------------------------------------------------------------- format specs

interface Spec {
  fill: string; align: string | undefined; sign: string; alt: boolean; zero: boolean;
  width: number; grouping: string; precision: number | undefined; type: string;
}

function parseSpec(spec: string): Spec {
  const m = /^(?:([\s\S])?([<>=^]))?([+\- ])?(z)?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([a-zA-Z%])?$/.exec(spec);
  if (!m) throw new PyException("ValueError", `Invalid format specifier '${spec}'`);
  return {
    fill: m[1] ?? (m[6] && !m[2] ? "0" : " "), align: m[2] ?? (m[6] ? "=" : undefined), sign: m[3] ?? "-", alt: !!m[5], zero: !!m[6],
    width: m[7] ? Number(m[7]) : 0, grouping: m[8] ?? "", precision: m[9] === undefined ? undefined : Number(m[9]), type: m[10] ?? "",
  };
}

function pad(body: string, sign: string, s: Spec, defaultAlign: string): string {
  const align = s.align ?? defaultAlign;
  const len = [...body].length + sign.length;
  if (len >= s.width) return sign + body;
  const fill = s.fill.repeat(s.width - len);
  switch (align) {
    case "<": return sign + body + fill;
    case "^": { const half = Math.floor(fill.length / 2); return fill.slice(0, half) + sign + body + fill.slice(half); }
    case "=": return sign + fill + body;
    default: return fill + sign + body;
  }
}

function group(intDigits: string, sep: string, every = 3): string {
  if (!sep) return intDigits;
  let out = "";
  for (let i = 0; i < intDigits.length; i++) {
    if (i > 0 && (intDigits.length - i) % every === 0) out += sep;
    out += intDigits[i];
  }
  return out;
}

function signOf(negative: boolean, s: Spec): string { return negative ? "-" : s.sign === "+" ? "+" : s.sign === " " ? " " : ""; }

function formatInt(n: number, s: Spec): string {
  const neg = n < 0;
  const a = Math.abs(n);
  let body: string;
  switch (s.type) {
    case "b": body = (s.alt ? "0b" : "") + a.toString(2); break;
    case "o": body = (s.alt ? "0o" : "") + a.toString(8); break;
    case "x": body = (s.alt ? "0x" : "") + a.toString(16); break;
    case "X": body = (s.alt ? "0X" : "") + a.toString(16).toUpperCase(); break;
    case "c": return pad(String.fromCodePoint(n), "", s, "<");
    case "": case "d": case "n": body = group(String(a), s.grouping); break;
    default: throw new PyException("ValueError", `Unknown format code '${s.type}' for object of type 'int'`);
  }
  return pad(body, signOf(neg, s), s, ">");
}

function formatFloat(x: number, s: Spec): string {
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  let body: string;
  let type = s.type;
  if (!Number.isFinite(a)) body = Number.isNaN(a) ? "nan" : "inf";
  else if (type === "" && s.precision === undefined) body = floatRepr(a);
  else {
    let value = a, suffix = "";
    if (type === "%") { value = a * 100; suffix = "%"; type = "f"; }
    if (type === "n") type = "g";
    const p = s.precision ?? 6;
    body = type === "" ? generalWithDot(value, Math.max(1, p), s.alt) : formatPrintf(`%${s.alt ? "#" : ""}.${p}${type}`, [{ kind: "float", value }]);
    body += suffix;
  }
  if (/[EFG]/.test(s.type) && !Number.isFinite(a)) body = body.toUpperCase();
  if (s.grouping) {
    const dot = body.search(/[.e%]/);
    const intPart = dot < 0 ? body : body.slice(0, dot);
    if (/^\d+$/.test(intPart)) body = group(intPart, s.grouping) + (dot < 0 ? "" : body.slice(dot));
  }
  return pad(body, signOf(neg, s), s, ">");
}

/**
 * A float under a spec with a precision and no type: 'g', except that fixed notation keeps a
 * digit after the point, so it switches to exponent form one digit earlier (format(100.0, ".3")
 * is 1e+02, format(10.0, ".3") is 10.0), as CPython does.
 */
function generalWithDot(x: number, p: number, alt: boolean): string {
  const exp = Number(formatPrintf(`%.${p - 1}e`, [{ kind: "float", value: x }]).split("e")[1]);
  const strip = (t: string) => (alt ? t : t.replace(/(\.\d*?)0+(?=e|$)/, "$1").replace(/\.(?=e|$)/, ""));
  if (exp < -4 || exp >= p - 1) return strip(formatPrintf(`%.${p - 1}e`, [{ kind: "float", value: x }]));
  const fixed = strip(formatPrintf(`%.${p - 1 - exp}f`, [{ kind: "float", value: x }]));
  return fixed.includes(".") ? fixed : `${fixed}.0`;
}

/** format(value, spec): the format spec mini-language for int, float, bool, str and str() of others. */
export function formatValue(v: PyValue, spec: string): string {
  if (v instanceof HostObject) {
    const custom = (v as unknown as { format?: (spec: string) => string }).format;
    if (typeof custom === "function") return custom.call(v, spec);
  }
  if (spec === "") return pyStr(v);
  const s = parseSpec(spec);
  if (typeof v === "boolean") v = v ? 1 : 0;
  if (typeof v === "number") {
    if ("eEfFgG%".includes(s.type) && s.type !== "") return formatFloat(v, s);
    if (s.precision !== undefined) throw new PyException("ValueError", "Precision not allowed in integer format specifier");
    return formatInt(v, s);
  }
  if (v instanceof PyFloat) {
    if ("bcdoxX".includes(s.type) && s.type !== "") throw new PyException("ValueError", `Unknown format code '${s.type}' for object of type 'float'`);
    return formatFloat(v.value, s);
  }
  let text = pyStr(v);
  if (s.type !== "" && s.type !== "s") throw new PyException("ValueError", `Unknown format code '${s.type}' for object of type '${typeof v === "string" ? "str" : "object"}'`);
  if (s.precision !== undefined) text = [...text].slice(0, s.precision).join("");
  return pad(text, "", s, "<");
}

// ---------------------------------------------------------------- %-formatting

/** fmt % args. */
export function percentFormat(fmt: string, args: PyValue): string {
  const positional = args instanceof PyTuple ? args.items : [args];
  let next = 0;
  let usedMapping = false;
  const take = (): PyValue => {
    if (next >= positional.length) throw new PyException("TypeError", "not enough arguments for format string");
    return positional[next++];
  };
  const out = fmt.replace(/%(?:\(([^)]*)\))?([-+ 0#]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcrsa%])/g, (_all, key: string | undefined, flags: string, width: string | undefined, prec: string | undefined, conv: string) => {
    if (conv === "%") return "%";
    let value: PyValue;
    if (key !== undefined) {
      if (!(args instanceof PyDict)) throw new PyException("TypeError", "format requires a mapping");
      usedMapping = true;
      const hit = [...args.entries.values()].find(([k]) => k === key);
      if (!hit) throw new PyException("KeyError", pyRepr(key));
      value = hit[1];
    }
    const w = width === "*" ? Number(take()) : width ? Number(width) : 0;
    const p = prec === "*" ? Number(take()) : prec;
    if (key === undefined) value = take();
    const left = flags.includes("-");
    const spec = `${left ? "<" : flags.includes("0") ? "0" : ""}${flags.includes("+") ? "+" : flags.includes(" ") ? " " : ""}${flags.includes("#") ? "#" : ""}`;
    const widthText = w ? String(w) : "";
    const precText = p !== undefined ? `.${p}` : "";
    switch (conv) {
      case "s": return formatValue(pyStr(value!), `${left ? "<" : ">"}${widthText}${precText}`);
      case "r": case "a": return formatValue(pyRepr(value!), `${left ? "<" : ">"}${widthText}${precText}`);
      case "c": return formatValue(typeof value! === "number" ? String.fromCodePoint(value as number) : pyStr(value!), `${left ? "<" : ">"}${widthText}`);
      case "d": case "i": case "u": {
        const n = toIntForFormat(value!);
        return formatValue(n, `${spec}${widthText}d`);
      }
      case "o": case "x": case "X": return formatValue(toIntForFormat(value!), `${spec}${widthText}${conv}`);
      default: {
        const x = value! instanceof PyFloat ? value : typeof value! === "number" || typeof value! === "boolean" ? new PyFloat(Number(value)) : null;
        if (x === null) throw new PyException("TypeError", `must be real number, not ${typeof value!}`);
        return formatValue(x, `${spec}${widthText}${p !== undefined ? `.${p}` : ".6"}${conv}`);
      }
    }
  });
  if (!usedMapping && !(args instanceof PyDict) && next < positional.length) throw new PyException("TypeError", "not all arguments converted during string formatting");
  return out;
}

function toIntForFormat(v: PyValue): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return Math.trunc(v.value);
  throw new PyException("TypeError", `%d format: a real number is required, not ${v === null ? "NoneType" : typeof v}`);
}
