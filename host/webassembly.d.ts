// The parts of the WebAssembly JS API gpsimd uses (Node has them at run time;
// TypeScript only declares them in its DOM libraries).
declare namespace WebAssembly {
  interface MemoryDescriptor { initial: number; maximum?: number; shared?: boolean; }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(delta: number): number;
  }
  interface ModuleExportDescriptor { name: string; kind: string; }
  interface ModuleImportDescriptor { module: string; name: string; kind: string; }
  class Module {
    constructor(bytes: BufferSource);
    static exports(module: Module): ModuleExportDescriptor[];
    static imports(module: Module): ModuleImportDescriptor[];
    static customSections(module: Module, name: string): ArrayBuffer[];
  }
  type ImportValue = Function | Memory | Global | number;
  type Imports = Record<string, Record<string, ImportValue>>;
  type Exports = Record<string, Function | Memory | Global | Table>;
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Exports;
  }
  class Global { value: unknown; }
  class Table { get(index: number): Function | null; readonly length: number; }
  class RuntimeError extends Error {}
  class CompileError extends Error {}
  class LinkError extends Error {}
  function validate(bytes: BufferSource): boolean;
}
type BufferSource = ArrayBufferView | ArrayBuffer;
