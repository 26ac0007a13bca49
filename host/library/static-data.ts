// Where each loaded library's static data is, for the default mode's store
// checks (assembly/ownership.ts): the kernel library asks for its own range
// through the import gpsimd.static_data, and a refused store is named by the
// library whose data it hit. Every thread that runs kernels records the
// libraries it takes in.

interface StaticData { base: number; bytes: number; name: string }
const placed: StaticData[] = [];

/** Records a library's static data (placed or taken in by this thread); the newest record of a range wins. */
export function noteStaticData(base: number, bytes: number, name: string): void {
  const i = placed.findIndex((p) => p.base === base);
  if (i >= 0) placed.splice(i, 1);
  placed.push({ base, bytes, name });
}

/** The library whose static data holds addr, if this thread knows one. */
export function staticDataAt(addr: number): StaticData | undefined {
  return placed.findLast((p) => addr >= p.base && addr < p.base + p.bytes);
}

type Imports = Record<string, Record<string, WebAssembly.ImportValue>>;

/**
 * A kernel instance's extra imports (host/cores/kernel-instance.ts) with gpsimd.static_data added: the library's
 * static data, base (which 0) and bytes (which 1).
 */
export function withStaticData<T>(extra: ((instance: T) => Imports) | undefined, base: number, bytes: number): (instance: T) => Imports {
  return (instance) => {
    const modules = extra?.(instance) ?? {};
    return { ...modules, gpsimd: { ...modules.gpsimd, static_data: (which: number) => (which === 0 ? base : bytes) } };
  };
}
