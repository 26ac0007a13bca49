// What a long build shows while custom_op.load waits for it: the main thread
// is blocked in Atomics.wait (compile-service.ts), so no timer or stream can
// run; it wakes once a second and writes synchronously to file descriptor 2.
// On a terminal one line is rewritten in place; elsewhere a line at 1 s and
// then every 5 s, so logs stay short.
import { writeSync } from "node:fs";

/** Called with the milliseconds waited so far, about once a second, while a build runs. */
export type BuildWaiting = (elapsedMs: number) => void;

/** Progress lines for the build of `name`, nothing for builds under a second; done() ends the line. */
export function buildProgress(name: string, tty = !!process.stderr.isTTY): { waiting: BuildWaiting; done(): void } {
  let shown = false;
  let lastLine = 0;
  return {
    waiting(elapsedMs) {
      const seconds = Math.floor(elapsedMs / 1000);
      if (seconds < 1) return;
      if (tty) {
        writeSync(2, `\rgpsimd: building ${name}: ${seconds} s (compiling the kernels to WebAssembly)`);
        shown = true;
      } else if (seconds === 1 || seconds - lastLine >= 5) {
        writeSync(2, `gpsimd: still building ${name}: ${seconds} s (compiling the kernels to WebAssembly)\n`);
        lastLine = seconds;
      }
    },
    done() { if (shown) writeSync(2, "\r\x1b[K"); },
  };
}
