// Coherence policy: what happens when accessors that may see stale data are
// used together on one tensor. Safe: many read streams, or one write stream,
// and no stream together with element-wise accessors.
import { TD_POLICY, TD_READERS, TD_WRITERS, TD_ELEMWISE } from "./layout";
import { E_INCOHERENT, KIND_ELEMENTWISE, KIND_READ_STREAM, KIND_WRITE_STREAM } from "./errors";
import { fail, warn, slot_of } from "./core";

/** Potentially incoherent use is an error (the default). */
export const COHERENT: i32 = 0;
/** Potentially incoherent use prints a warning. */
export const INCOHERENT_VERBOSE: i32 = 1;
/** Potentially incoherent use is allowed silently. */
export const INCOHERENT_QUIET: i32 = 2;

/** The kind of an accessor already open on the tensor that conflicts with opening `kind`, or -1. */
function conflicting(desc: usize, kind: i32): i32 {
  const readers = load<i32>(desc, TD_READERS);
  const writers = load<i32>(desc, TD_WRITERS);
  const elementwise = load<i32>(desc, TD_ELEMWISE);
  if (kind == KIND_ELEMENTWISE) return writers > 0 ? KIND_WRITE_STREAM : readers > 0 ? KIND_READ_STREAM : -1;
  if (elementwise > 0) return KIND_ELEMENTWISE;
  if (writers > 0) return KIND_WRITE_STREAM;
  if (kind == KIND_WRITE_STREAM && readers > 0) return KIND_READ_STREAM;
  return -1;
}

/** Applies the tensor's policy before an accessor of `kind` is opened on it. */
export function check_coherence(desc: usize, kind: i32): void {
  const other = conflicting(desc, kind);
  if (other < 0) return;
  const policy = load<i32>(desc, TD_POLICY);
  if (policy == COHERENT) fail(E_INCOHERENT, slot_of(desc), kind, other, policy);
  else if (policy == INCOHERENT_VERBOSE) warn(E_INCOHERENT, slot_of(desc), kind, other, policy);
}
