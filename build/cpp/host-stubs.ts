// Stubs for the WASI imports a C++ kernel's C library keeps after the link
// but that no kernel line reaches (unavailable.ts refuses those that one
// does): printf's formatter, for one, can report an unsupported long double
// on stderr. A GpSimd core has no host, so each stub stops the kernel with a
// named error (gpsimd_host_unavailable in assembly/cpp-abi.ts) if it ever
// runs; wasm-merge resolves the kernel's imports against these modules, so
// the library instantiates with gpsimd's imports alone.
import binaryen from "binaryen";
import { readSections, readFunctionImports, SectionId } from "../wasm-reader.js";
import { ABI_MODULE } from "./post-link.js";

/** A module named as the import module it stands in for. */
export interface StubModule { name: string; wasm: Uint8Array }

/** What a WASI function gives a program, as the runtime's code for the error (gpsimd_host_unavailable). */
function hostKind(wasi: string): number {
  if (wasi.startsWith("fd_") || wasi.startsWith("path_")) return 0; // files and the console
  if (wasi.startsWith("clock_")) return 1;
  if (wasi.startsWith("environ_") || wasi.startsWith("args_")) return 2;
  if (wasi === "proc_exit") return 3;
  return 4;
}

/** One stub module per import module other than the runtime's; none when the kernel imports only the runtime. */
export function hostStubModules(kernel: Uint8Array): StubModule[] {
  const section = readSections(kernel).find((s) => s.id === SectionId.import);
  const hosts = new Set((section ? readFunctionImports(kernel, section) : []).map((i) => i.module).filter((m) => m !== ABI_MODULE));
  if (!hosts.size) return [];
  const source = binaryen.readBinary(kernel);
  try {
    const imports = Array.from({ length: source.getNumFunctions() }, (_, i) => binaryen.getFunctionInfo(source.getFunctionByIndex(i)))
      .flatMap((f) => (f.module && f.base && hosts.has(f.module) ? [{ module: f.module, base: f.base, params: f.params, results: f.results }] : []));
    return [...hosts].map((name) => {
      const stub = new binaryen.Module();
      try {
        stub.addFunctionImport("gpsimd_host_unavailable", ABI_MODULE, "gpsimd_host_unavailable", binaryen.i32, binaryen.none);
        for (const f of imports.filter((i) => i.module === name)) {
          stub.addFunction(f.base, f.params, f.results, [], stub.block(null, [
            stub.call("gpsimd_host_unavailable", [stub.i32.const(hostKind(f.base))], binaryen.none),
            stub.unreachable(),
          ]));
          stub.addFunctionExport(f.base, f.base);
        }
        return { name, wasm: stub.emitBinary() };
      } finally {
        stub.dispose();
      }
    });
  } finally {
    source.dispose();
  }
}
