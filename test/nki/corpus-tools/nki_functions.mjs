// Prints, as JSON, what gpsimd registers in the NKI modules a kernel imports (both generations):
// every attribute of neuronxcc.nki.language / .isa and nki.language / nki.isa, with the parameter
// names of native functions. Read by docs_table.py; needs the build (npx tsc -p .).
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const dist = (p) => import(path.join(root, "dist", p));
const { loadProgram } = await dist("nki/python/index.js");
const { registerNkiModules } = await dist("nki/language/run.js");
const { nativeSignature } = await dist("nki/language/args.js");
const { NativeFunction, PyModule, HostObject } = await dist("nki/python/values.js");

registerNkiModules();
const program = loadProgram("<nki-functions>.py", {
  source: [
    "import neuronxcc.nki.language as legacy_nl",
    "import neuronxcc.nki.isa as legacy_isa",
    "import nki.language as nl",
    "import nki.isa as isa",
  ].join("\n"),
});

function describe(v) {
  if (v instanceof NativeFunction) {
    const sig = nativeSignature(v);
    return sig ? { kind: "function", params: sig.params, open: sig.open } : { kind: "function", params: null };
  }
  if (v instanceof PyModule) return { kind: "module" };
  if (v instanceof HostObject) return { kind: v.typeName };
  return { kind: typeof v };
}

const out = {};
for (const alias of ["legacy_nl", "legacy_isa", "nl", "isa"]) {
  const m = program.globals.attrs.get(alias);
  out[alias] = Object.fromEntries([...m.attrs].map(([k, v]) => [k, describe(v)]));
}
process.stdout.write(JSON.stringify(out));
