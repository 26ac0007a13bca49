// The kernel library for the AssemblyScript compiler: asc resolves
// `import ... from "gpsimd"` to node_modules/gpsimd/index.ts (it ignores
// package.json's ascMain). Hosts import dist/ through package.json "exports".
export * from "./assembly/index";
