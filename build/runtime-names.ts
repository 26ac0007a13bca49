// How the kernel library's code is named in a built kernel module, for the
// passes that treat it apart from the kernel's (build/sanitize-pass.ts,
// build/count-pass.ts). Apart from them, so the host can know it without
// loading Binaryen.

/**
 * The kernel library's runtime as AssemblyScript names its functions (~lib/gpsimd/<file>/<name>; C++ kernels are
 * merged with the same runtime, so theirs too): everything in assembly/ except the SIMD helpers, which act on the
 * kernel's raw pointers like the kernel. A name alone proves nothing: a C++ kernel could choose one (__asm__), so
 * its build refuses such names (build/cpp/reserved-names.ts), and sanitize mode checks the kernel's own module as
 * the kernel's whatever its names (build/cpp/post-link.ts); only then does this test hold for a merged module.
 */
export const isGpsimdRuntime = (name: string): boolean => name.startsWith("~lib/gpsimd/") && !name.startsWith("~lib/gpsimd/simd/");

/**
 * Source files of the kernel library as a module's source map names them: assembly/ (~lib/gpsimd/<file>.ts) but
 * simd.ts, the C++ headers (~lib/gpsimd/include/...) and the C++ kernels' export glue (~lib/(gpsimd kernel exports)).
 */
export const isGpsimdRuntimeFile = (file: string): boolean =>
  (file.startsWith("~lib/gpsimd/") && file !== "~lib/gpsimd/simd.ts") || file.startsWith("~lib/(gpsimd");
