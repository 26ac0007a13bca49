// Errors found after the faulty statement ran, which can name only a later
// one: a write past a TCM block is seen in its guard bytes at tcm_free or when
// the kernel returns, a raw store into a tensor descriptor when the kernel has
// returned. Sanitize mode checks every store before it runs and stops at the
// faulty one, so these errors say how to find it.
import { GpsimdError, type ErrorContext } from "./errors.js";

/** What such an error ends with (outside sanitize mode, where the store itself would have failed). */
export const SANITIZE_RERUN_HINT = "rerun with --sanitize (or `sanitize: true`) to stop at the store itself";

/** Codes of the errors that name a statement after the faulty store (its tcm_free, the kernel's return). */
export const NAMED_INDIRECTLY: ReadonlySet<string> = new Set(["E_TCM_GUARD", "E_DESCRIPTOR_CHANGED"]);

/** The error, ending with the rerun hint if it names its statement indirectly and the kernel was not sanitized. */
export function withRerunHint(error: GpsimdError, sanitized: boolean): GpsimdError {
  if (sanitized || !NAMED_INDIRECTLY.has(error.code) || error.message.endsWith(SANITIZE_RERUN_HINT)) return error;
  const Class = error.constructor as new (code: string, message: string, context: ErrorContext) => GpsimdError;
  return new Class(error.code, `${error.message}; ${SANITIZE_RERUN_HINT}`, {
    op: error.op, core: error.core, details: error.details, cause: error.cause,
  });
}
