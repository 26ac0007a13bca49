// The names build/allocation-sites.ts gives and the host's source locator reads, in a module without Binaryen
// (whose top-level await would keep the host from being require()d).

/** The kernel library's allocator that takes a site (assembly/tcm.ts), and its C ABI entry (assembly/cpp-abi.ts). */
export const SITED_ALLOCATORS = ["tcm_malloc_at", "gpsimd_tcm_malloc_at"] as const;

/** Whether a function (by its name in the built module's name section) is an allocator that takes a site. */
export function isSitedAllocator(name: string): boolean {
  const base = name.replace(/^.*\//, "");
  return (SITED_ALLOCATORS as readonly string[]).includes(base);
}

/** The export that keeps an AssemblyScript kernel's allocator whole. */
export const SITED_EXPORT = "__gpsimd_tcm_malloc_at";
