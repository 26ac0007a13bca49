// Names a C++ kernel may not give its own functions and globals. A kernel
// chooses its symbols freely (__asm__("..."), export_name, extern "C"), but
// what is gpsimd's code must come from how the library was built, never from a
// name: the device runtime is its own module, instrumented apart
// (post-link.ts: sanitizedRuntime) before it is merged with the kernel, whose
// functions are all checked as the kernel's. A kernel symbol that takes the
// runtime's naming (~lib/...) would still be read as the runtime's by what
// looks at the merged module's names later (the counting pass of gpsimd
// profile, the source locator's library frames), and one that takes a name the
// post-link passes add would collide with it; so the build refuses them, named.
import binaryen from "binaryen";

/** Prefixes of names the device runtime and gpsimd's passes use. */
const RESERVED_PREFIXES = ["~lib/", "__gpsimd"];
/** Exact names the post-link passes add to the kernel module (stack-checks.ts, allocation-sites.ts). */
const RESERVED_NAMES = new Set(["gpsimd_stack_limit", "gpsimd_stack_overflow", "gpsimd_tcm_malloc_at"]);

/** Whether a kernel may not define a function or global of this name. */
export function isReservedName(name: string): boolean {
  return RESERVED_NAMES.has(name) || RESERVED_PREFIXES.some((p) => name.startsWith(p));
}

/** The kernel module's own (not imported) functions and globals whose names are reserved, as build messages. */
export function reservedNameUses(module: binaryen.Module): string[] {
  const found: string[] = [];
  for (let i = 0; i < module.getNumFunctions(); i++) {
    const { name, module: imported } = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
    if (!imported && isReservedName(name)) found.push(`function "${name}"`);
  }
  for (let i = 0; i < module.getNumGlobals(); i++) {
    const { name, module: imported } = binaryen.getGlobalInfo(module.getGlobalByIndex(i));
    if (!imported && isReservedName(name)) found.push(`global "${name}"`);
  }
  return found.map((what) => `error: the kernel defines ${what}: symbols starting with ~lib/ or __gpsimd, and ${[...RESERVED_NAMES].join(", ")}, are gpsimd's device runtime's; rename it (its __asm__ label or export name)`);
}
