// `npm run build` (build-ops.ts) makes what C++ builds need that depends only on this install of gpsimd, into the
// package's own folder (PREBUILT_DIR, dist/prebuilt/): the device runtime (prebuilt-runtime.ts) and gpsimd's
// precompiled headers for kernels and shape functions compiled without extra_cflags (header-pch.ts). A user's first
// C++ build with an empty cache folder then compiles neither the runtime nor the headers. Files of older versions
// (other keys) are removed. Without the C++ compiler package only the runtime is made.
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { compileRuntime } from "./build-cpp.js";
import { prebuiltRuntimeFile } from "./prebuilt-runtime.js";
import { readEntry, storeEntry } from "./runtime-cache.js";
import { defaultKernelPchInputs } from "./clang-driver.js";
import { defaultShapePchInputs } from "./shape-module.js";
import { prebuildPrecompiledHeader } from "./header-pch.js";
import { clang, MissingCompilerError } from "./toolchain.js";

/** Makes what is missing; `say` gets one line per product. Throws only if the runtime does not compile. */
export async function prebuildCppProducts(say: (line: string) => void): Promise<void> {
  const kept: string[] = [];
  const runtimeFile = prebuiltRuntimeFile(false);
  const found = readEntry(runtimeFile, false);
  if (found && !("problem" in found)) say(`device runtime: up to date (${runtimeFile})`);
  else {
    const t0 = performance.now();
    const runtime = await compileRuntime(false);
    if ("messages" in runtime) throw new Error(`the device runtime did not compile:\n${runtime.messages.join("\n")}`);
    const unwritable = storeEntry(runtimeFile, false, runtime);
    say(unwritable ? `device runtime: cannot be stored (${unwritable}); C++ builds compile it into their cache folder` : `device runtime: compiled in ${ms(t0)} (${runtimeFile})`);
  }
  kept.push(runtimeFile);
  try {
    await clang();
  } catch (e) {
    if (!(e instanceof MissingCompilerError)) throw e;
    say("precompiled headers: not made (the C++ compiler package @yowasp/clang is not installed)");
    removeOthers(kept);
    return;
  }
  const kernel = defaultKernelPchInputs(), shape = await defaultShapePchInputs();
  for (const [what, inputs] of [["kernels", kernel], ["shape functions", shape]] as const) {
    const t0 = performance.now();
    const made = await prebuildPrecompiledHeader(inputs.flags, inputs.tree, inputs.headerTexts);
    if (made) kept.push(made.file);
    say(`precompiled headers for ${what}: ${!made ? "clang could not make them; C++ builds make them in their cache folder" : made.made ? `made in ${ms(t0)} (${made.file})` : "up to date"}`);
  }
  removeOthers(kept);
}

function ms(t0: number): string {
  return `${((performance.now() - t0) / 1000).toFixed(1)} s`;
}

/** Removes the files of other keys (older versions) from the folders of `kept`. */
function removeOthers(kept: string[]): void {
  for (const dir of new Set(kept.map((f) => path.dirname(f)))) {
    let names: string[];
    try { names = readdirSync(dir); } catch { continue; }
    for (const name of names) if (!kept.includes(path.join(dir, name)) && !name.endsWith(".tmp")) rmSync(path.join(dir, name), { force: true });
  }
}
