// The dtype= argument of NKI functions: an nl/np dtype object, or its name as a string.
import { PyException, type CallContext, type PyValue } from "../python/values.js";
import { NkiDType, NKI_DTYPES, NUMPY_DTYPES } from "../machine/nki-dtype.js";
import { typeName } from "./args.js";

/** dtype= as an NkiDType; null when None (the instruction's default applies). */
export function dtypeArg(v: PyValue, ctx: CallContext): NkiDType | null {
  if (v === null || v === undefined) return null;
  if (v instanceof NkiDType) return v;
  if (typeof v === "string") {
    const t = NKI_DTYPES.get(v) ?? NUMPY_DTYPES.get(v);
    if (t) return t;
  }
  throw new PyException("TypeError", `dtype must be an nki.language dtype such as nl.float32, not ${typeof v === "string" ? `'${v}'` : typeName(v)}`, ctx.site);
}

/** A required dtype argument. */
export function requiredDType(v: PyValue, fn: string, ctx: CallContext): NkiDType {
  const t = dtypeArg(v, ctx);
  if (!t) throw new PyException("TypeError", `${fn}() needs a dtype`, ctx.site);
  return t;
}
