// Views of device memory for a thread that does not allocate (a core
// thread): made once and again only when an address lies past them. Device
// memory only grows, so a view covers every address below its length; taking
// memory.buffer of a shared memory and making a DataView cost about 150 ns,
// paid several times per core per launch before.

/** A DataView and an Int32Array over device memory, remade only when they no longer reach an address. */
export class MemoryViews {
  private dataView: DataView<ArrayBufferLike>;
  private int32: Int32Array<ArrayBufferLike>;

  constructor(private readonly memory: WebAssembly.Memory) {
    this.dataView = new DataView(memory.buffer);
    this.int32 = new Int32Array(this.dataView.buffer);
  }

  /** A DataView reaching at least byte `end` (exclusive). */
  view(end: number): DataView {
    if (end > this.dataView.byteLength) this.remake();
    return this.dataView;
  }

  /** An Int32Array (for Atomics) reaching at least byte `end` (exclusive). */
  words(end: number): Int32Array {
    if (end > this.int32.byteLength) this.remake();
    return this.int32;
  }

  private remake(): void {
    this.dataView = new DataView(this.memory.buffer);
    this.int32 = new Int32Array(this.dataView.buffer);
  }
}
