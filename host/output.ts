// Where kernel printf text and gpsimd warnings go. By default printf goes to
// standard output and warnings to standard error; tests and tools redirect.

/** Receivers of printf text and warnings. */
export interface OutputSinks {
  /** Kernel printf output, header line included. */
  printf(text: string): void;
  /** A warning (incoherent accessors under INCOHERENT_VERBOSE, TCM leaks, dropped printf). */
  warn(text: string): void;
}

const defaults: OutputSinks = {
  printf: (text) => { process.stdout.write(text); },
  warn: (text) => { process.stderr.write(`gpsimd warning: ${text}\n`); },
};

let sinks: OutputSinks = defaults;

/** The sinks in use. */
export function output(): OutputSinks { return sinks; }

/** Replaces some or all sinks; returns a function that restores the previous ones. */
export function setOutput(next: Partial<OutputSinks>): () => void {
  const previous = sinks;
  sinks = { ...sinks, ...next };
  return () => { sinks = previous; };
}
