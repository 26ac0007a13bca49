// A Binaryen tool (wasm-dis, wasm-merge, wasm-opt) loaded ahead of its run (binaryen-tools.ts starts it with node's
// tool flags): each tool is an Emscripten program of about 9 MB of wasm, and a new process spends 0.2-0.3 s
// starting Node and compiling that wasm before main runs. Here the script is evaluated with noInitialRun, so it
// loads and stops; "ready" goes to the parent; the first message brings the command line, main runs once on it, and
// the process exits with main's exit code, as the tool's own process would. One run per process: main never runs
// twice on Binaryen's global state.
//
// argv[2]: the tool's script (node_modules/binaryen/bin/<tool>). What the tool writes goes to this process's stdout
// and stderr, which the parent reads as it reads a spawned tool's.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";

/** The command line of the tool's one run (arguments after the tool's name). */
export interface ToolRunRequest { args: string[] }
/** The child's first message: loaded, waiting for its command line. */
export interface ToolReady { ready: true }

type CallMain = (args: string[]) => number | undefined;

process.on("disconnect", () => process.exit(0)); // the build's process (or its thread) is gone

const script = process.argv[2];
// The tool names itself (usage lines, messages) after argv[1], as when node runs its script.
process.argv.splice(1, process.argv.length - 1, script);
// The script is CommonJS that reads `Module` if one is defined: a parameter of the wrapper that its `var Module`
// re-declares keeps the value passed in. The shebang line goes (a wrapped script cannot start with one).
const source = readFileSync(script, "utf8").replace(/^#!.*/, "");
const wrapper = vm.runInThisContext(`(function (require, __filename, __dirname, module, exports, Module) {${source}\n;return callMain;})`, { filename: script }) as
  (...args: unknown[]) => CallMain;
const commonJs = { exports: {} };
const callMain = wrapper(createRequire(script), script, path.dirname(script), commonJs, commonJs.exports, {
  noInitialRun: true,
  // Not if the parent went while the tool loaded (the load is synchronous: its disconnect waits behind it).
  onRuntimeInitialized: () => { if (process.connected) process.send!({ ready: true } satisfies ToolReady); else process.exit(0); },
});

process.once("message", (request: ToolRunRequest) => {
  let code: number;
  try {
    // main's exit code (an exit() inside it included: Emscripten catches its ExitStatus and returns the status).
    code = callMain(request.args) ?? Number(process.exitCode ?? 0);
  } catch (e) {
    // An abort (Binaryen's assertion, out of memory): Emscripten printed "Aborted(...)" on stderr already; the rest
    // is what Node would print for the uncaught error in the tool's own process.
    process.stderr.write(`${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    code = 1;
  }
  process.exit(code);
});
