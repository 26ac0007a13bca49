// Warnings a build raises that are not build errors (a cache folder that cannot be written, a damaged cache entry
// replaced): collected on the compiler thread, handed back with the build's answer (compile-worker.ts), and shown by
// the loader through gpsimd's warning sink.
const pending: string[] = [];

/** Records a warning for the build that is running. */
export function warnBuild(text: string): void {
  pending.push(text);
}

/** The warnings recorded since the last call, emptied. */
export function takeBuildWarnings(): string[] {
  return pending.splice(0);
}
