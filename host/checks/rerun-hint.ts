// Errors found after the faulty statement ran, which can name only a later
// one: a write past a TCM block is seen in its guard bytes at tcm_free or when
// the kernel returns, a raw store into a tensor descriptor when the kernel has
// returned. Sanitize mode checks every store before it runs and stops at the
// faulty one, so these errors say how to find it.
import { GpsimdError, type ErrorContext } from "./errors.js";

/** What such an error says (outside sanitize mode, where the store itself would have failed). */
export const SANITIZE_RERUN_HINT = "rerun with --sanitize (or `sanitize: true`) to stop at the store itself";

/** Codes of the errors that name a statement after the faulty store (its tcm_free, the kernel's return). */
export const NAMED_INDIRECTLY: ReadonlySet<string> = new Set(["E_TCM_GUARD", "E_DESCRIPTOR_CHANGED"]);

/** The statement an error names, as messages end with it: " at fn (file:line:column)" or " at fn". */
const PLACE_SUFFIX = / at \S+(?: \([^)]*\))?$/;

/**
 * The error with the rerun hint if it names its statement indirectly and the kernel was not sanitized: the hint
 * ends the text, before the statement where the error was found ("...; rerun with --sanitize ...; found at fn
 * (file:line:column)"), which stays last as in every message.
 */
export function withRerunHint(error: GpsimdError, sanitized: boolean): GpsimdError {
  if (sanitized || !NAMED_INDIRECTLY.has(error.code) || error.message.includes(SANITIZE_RERUN_HINT)) return error;
  const Class = error.constructor as new (code: string, message: string, context: ErrorContext) => GpsimdError;
  const place = typeof error.details.function === "string" ? PLACE_SUFFIX.exec(error.message) : null;
  const text = place
    ? `${error.message.slice(0, place.index)}; ${SANITIZE_RERUN_HINT}; found${place[0]}`
    : `${error.message}; ${SANITIZE_RERUN_HINT}`;
  return new Class(error.code, text, {
    op: error.op, core: error.core, details: error.details, cause: error.cause,
  });
}
