// The process that runs clang for C++ builds (clang-process.ts starts it, with node --liftoff-only): @yowasp/clang is
// LLVM as 75 MB of wasm, and in a process of its own V8 runs it on Liftoff alone. In the build's own process V8
// compiles its hot functions again with TurboFan on the same two CPUs, which cost a new process's first compiles
// 2-5 s each (the seed's shape.cpp from the precompiled headers: 5-7 s there, 1.3 s here, load 8) and gives back
// about 15 % on later compiles. The kernels run in the build's process, unaffected.
//
// argv[2]: the compiler package's entry (as the build's process resolved it). Requests { id, args, files } run in
// turn; each answer carries the output tree or the failure, and what clang wrote to stdout and stderr.
import { pathToFileURL } from "node:url";

interface Request { id: number; args: string[]; files: Record<string, unknown> }
type RunClang = (args: string[] | null, files: Record<string, unknown>, options?: Record<string, unknown>) => Promise<Record<string, unknown>>;

function joined(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}

process.on("disconnect", () => process.exit(0)); // the build's process (or its thread) is gone

/**
 * Answers the build's process. A compile runs clang synchronously, so the build's process can exit in the middle of
 * one and its "disconnect" wait behind the answer: a send into the closed channel then ends this process quietly
 * (an unhandled EPIPE printed its stack on the build's stderr, the user's terminal).
 */
function answer(message: object): void {
  if (!process.connected) process.exit(0);
  process.send!(message, undefined, undefined, (e: Error | null) => { if (e) process.exit(0); });
}
try {
  const { runClang } = (await import(pathToFileURL(process.argv[2]).href)) as { runClang: RunClang };
  // The resources now, quietly (left to the first run, it prints "fetched N%" lines).
  await runClang(null, {}, { fetchProgress: () => {} });
  process.on("message", (req: Request) => {
    const stdout: Uint8Array[] = [], stderr: Uint8Array[] = [];
    const take = (into: Uint8Array[]) => (b: Uint8Array | null) => { if (b) into.push(b.slice()); };
    runClang(req.args, req.files, { stdout: take(stdout), stderr: take(stderr) }).then(
      (files) => answer({ id: req.id, ok: true, files, stdout: joined(stdout), stderr: joined(stderr) }),
      (e: unknown) => answer({ id: req.id, ok: false, message: e instanceof Error ? e.message : String(e), stdout: joined(stdout), stderr: joined(stderr) }),
    );
  });
  answer({ ready: true });
} catch (e) {
  answer({ loadError: e instanceof Error ? e.message : String(e) });
}
