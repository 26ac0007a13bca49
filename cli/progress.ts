// Progress of long work on standard error: a line rewritten in place on a
// terminal; on a pipe nothing until the end, so logs stay readable.

/** Reports done/total of a task; finish() clears the line. */
export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

/** A progress line labelled `what` (silent when stderr is not a terminal). */
export function progress(what: string): Progress {
  if (!process.stderr.isTTY) return { update: () => undefined, finish: () => undefined };
  let last = 0;
  return {
    update(done, total) {
      const now = performance.now();
      if (now - last < 100 && done < total) return;
      last = now;
      process.stderr.write(`\r${what}: ${done}/${total}`);
    },
    finish() { process.stderr.write("\r\x1b[K"); },
  };
}
