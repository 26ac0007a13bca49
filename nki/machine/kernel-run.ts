// One launch of a kernel over its SPMD grid, and the run of one instance of it. The language's
// functions read the current run (nl.program_id, allocation of tiles, shared_hbm outputs). A launch's
// shared_hbm outputs are common to its instances: the k-th nl.ndarray(..., buffer=nl.shared_hbm) of
// every instance is the same tensor, as on the device, where the kernel's outputs exist once.
import type { SourceSite } from "../python/values.js";
import { Tensor } from "../../host/device/tensor.js";
import { hbm } from "../../host/device/hbm.js";
import { TileShapeError, UnwrittenOutputError, NkiDTypeError, KernelTimeoutError } from "../../host/checks/errors.js";
import { OnChipMemory, type Arenas, type OnChipBuffer } from "./on-chip.js";
import { Storage, wholeArray, type NkiArray } from "./tile.js";
import { nkiDTypeOf, type NkiDType } from "./nki-dtype.js";
import { deviceFigures, type DeviceFigures } from "./device.js";
import { assignedName, atSite, errorDetails, setRunDetails, shortSite } from "./site.js";
import { noteRunEnd, noteTileAllocated } from "../checks/hooks.js";

/**
 * A shared_hbm output as plain data: what a partial launch (one instance on one thread) hands to the
 * others so that the k-th nl.ndarray(shared_hbm) of every instance is the same tensor with the same
 * init map, and what finishLaunch checks at the end.
 */
export interface OutputRecord {
  readonly tensor: Tensor;
  /** Byte address of its init map (0: untracked). */
  readonly initAddr: number;
  readonly name?: string;
  readonly site?: SourceSite;
}

/** A launch: the grid, the outputs its instances share, what must be freed at the end. */
export class KernelLaunch {
  readonly outputs: Storage[] = [];
  /** Private HBM tensors the instances made (their init maps are freed with the launch). */
  readonly privates: Storage[] = [];
  /** Init maps and private HBM blocks to free when the launch is over. */
  readonly blocks: number[] = [];
  constructor(
    readonly kernelName: string,
    readonly grid: readonly number[],
    readonly device: DeviceFigures = deviceFigures("trn1"),
    /** Date.now() past which the run stops (KernelTimeoutError), or undefined. */
    readonly deadline?: number,
    /** Outputs an earlier part of the launch made (see OutputRecord). */
    readonly preset: readonly OutputRecord[] = [],
  ) {}

  /** The instance number of program ids (row-major over the grid). */
  instanceIndex(ids: readonly number[]): number {
    let n = 0;
    this.grid.forEach((g, k) => { n = n * g + (ids[k] ?? 0); });
    return n;
  }

  /** The outputs as plain records (for other threads and finishLaunch). */
  outputRecords(): OutputRecord[] {
    return this.outputs.map((s) => ({ tensor: s.tensor!, initAddr: s.initAddr, name: s.name, site: s.site }));
  }

  /** Program ids of instance n in row-major order over the grid. */
  programIds(n: number): number[] {
    const ids = new Array<number>(this.grid.length);
    for (let k = this.grid.length - 1; k >= 0; k--) { ids[k] = n % this.grid[k]; n = Math.floor(n / this.grid[k]); }
    return ids;
  }
  get instances(): number { return this.grid.reduce((a, b) => a * b, 1); }

  /**
   * The end-of-launch check: every element of every shared_hbm output must have been stored by some
   * instruction (UnwrittenOutputError E_NKI_UNWRITTEN names the output, the first unwritten index and
   * the count).
   */
  checkOutputsWritten(): void {
    checkOutputs(this.kernelName, this.outputs);
  }

  /**
   * Frees the init maps and private blocks (the outputs' tensors stay: they are returned). A partial
   * launch keeps its outputs' init maps for the other instances and finishLaunch.
   */
  release(partial = false): void {
    const kept = new Set(partial ? this.outputs.map((s) => s.initAddr) : []);
    for (const p of this.preset) kept.add(p.initAddr);
    for (const out of this.outputs) out.initAddr = 0; // the caller may still read them: untracked from now on
    for (const s of this.privates) s.initAddr = 0;
    for (const b of this.blocks.splice(0)) if (!kept.has(b)) hbm().release(b);
  }
}

export function checkOutputs(kernelName: string, outputs: readonly Storage[]): void {
  const bytes = hbm().bytes();
  for (const out of outputs) {
    if (out.initAddr === 0) continue;
    const n = out.numel;
    const map = bytes.subarray(out.initAddr, out.initAddr + n);
    const first = map.indexOf(0);
    if (first < 0) continue;
    let count = 0, lastOfRun = first;
    for (let i = first; i < n; i++) if (map[i] === 0) count++;
    while (lastOfRun + 1 < n && map[lastOfRun + 1] === 0) lastOfRun++;
    const at = (flat: number) => unflatten(flat, out.shape);
    const range = first === lastOfRun ? `[${at(first).join(", ")}]` : `[${at(first).join(", ")}] to [${at(lastOfRun).join(", ")}]`;
    throw new UnwrittenOutputError(
      "E_NKI_UNWRITTEN",
      `${kernelName}: ${count} of ${n} elements of the output ${out.describe()} were never stored by any instruction, the first at ${range}; ` +
        `on the device they would hold whatever the memory held${atSite(out.site)}`,
      { details: { ...errorDetails(out.site), kernel: kernelName, tensor: out.name, count, first: at(first), firstRunEnd: at(lastOfRun) } },
    );
  }
}

/**
 * The end of a launch run in parts (LaunchOptions.instance): the unwritten-output check over the
 * records instance 0 returned, then their init maps are freed (also when the check throws).
 */
export function finishLaunch(kernelName: string, records: readonly OutputRecord[]): void {
  try {
    checkOutputs(kernelName, records.map((r) => new Storage("shared_hbm", r.tensor.address, r.initAddr, nkiDTypeOf(r.tensor.dtype), r.tensor.sizes(), r.site, r.name, r.tensor)));
  } finally {
    for (const r of records) if (r.initAddr) hbm().release(r.initAddr);
  }
}

export function unflatten(flat: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length);
  for (let k = shape.length - 1; k >= 0; k--) { idx[k] = flat % shape[k]; flat = Math.floor(flat / shape[k]); }
  return idx;
}

/** One SPMD instance's run of a kernel. */
export class KernelRun {
  readonly memory: OnChipMemory;
  /**
   * The engines' reduction registers (VectorE's, ScalarE's): what reduce_cmd=reduce accumulates into
   * across instructions and reduce_res reads, as [P, 1] float32 tiles.
   */
  readonly accumulators = new Map<string, NkiArray>();
  private sharedCount = 0;
  private steps = 0;
  constructor(readonly launch: KernelLaunch, readonly instance: number, arenas: Arenas) {
    this.memory = new OnChipMemory(arenas);
  }

  get programIds(): number[] { return this.launch.programIds(this.instance); }
  get device(): DeviceFigures { return this.launch.device; }

  /** A new SBUF or PSUM tile (its elements unwritten). */
  /**
   * A new SBUF or PSUM tile (its elements unwritten). partitionAxis is the axis nl.par_dim marked
   * (axes before it are blocks of tiles: (4, par_dim(128), 512) is four [128, 512] tiles).
   */
  allocTile(buffer: OnChipBuffer, shape: readonly number[], dtype: NkiDType, site: SourceSite | undefined, name: string | undefined, partitionAxis = 0): NkiArray {
    const tileShape = shape.slice(partitionAxis);
    checkPartitions(tileShape, buffer, site, name, this.device.partitions, shape);
    requireSupported(dtype, site);
    const numel = shape.reduce((a, b) => a * b, 1);
    if (buffer === "psum") checkPsumBank(tileShape, dtype, site, name, this.device, shape);
    const place = this.memory.alloc(buffer, numel, dtype.bytes, shape.slice(0, partitionAxis + 1).reduce((a, b) => a * b, 1));
    const storage = new Storage(buffer, place.addr, place.initAddr, dtype, shape, site, name);
    noteTileAllocated(storage, partitionAxis);
    return wholeArray(storage);
  }

  /** A new HBM tensor: shared_hbm outputs are the launch's (the same for every instance); private ones are this instance's. */
  allocHbm(kind: "shared_hbm" | "private_hbm", shape: readonly number[], dtype: NkiDType, site: SourceSite | undefined, name: string | undefined): NkiArray {
    requireSupported(dtype, site);
    if (kind === "shared_hbm") {
      const k = this.sharedCount++;
      const existing = this.launch.outputs[k];
      if (existing) return wholeArray(existing);
      const preset = this.launch.preset[k];
      if (preset) {
        const t = preset.tensor;
        const storage = new Storage("shared_hbm", t.address, preset.initAddr, dtype, t.sizes(), preset.site ?? site, preset.name ?? name, t);
        this.launch.outputs.push(storage);
        return wholeArray(storage);
      }
    }
    if (!dtype.hostDType) {
      throw new NkiDTypeError("E_NKI_DTYPE", `an HBM tensor of ${dtype.name} cannot be made: gpsimd tensors are float32, bfloat16, float16, int32, int16, int8, int64 or uint8${atSite(site)}`, { details: errorDetails(site, { dtype: dtype.name }) });
    }
    const tensor = new Tensor(shape, dtype.hostDType);
    const numel = tensor.numel();
    const initAddr = hbm().alloc(Math.max(1, numel), "NKI output init map");
    hbm().bytes().fill(0, initAddr, initAddr + numel);
    this.launch.blocks.push(initAddr);
    const storage = new Storage(kind, tensor.address, initAddr, dtype, shape, site, name, tensor);
    if (kind === "shared_hbm") this.launch.outputs.push(storage);
    else this.launch.privates.push(storage);
    return wholeArray(storage);
  }

  /** Called by loops each iteration: stops a run past its deadline. */
  tick(site: SourceSite | undefined): void {
    if (this.launch.deadline === undefined || (++this.steps & 255) !== 0) return;
    if (Date.now() > this.launch.deadline) {
      throw new KernelTimeoutError("E_NKI_TIMEOUT", `${this.launch.kernelName} ran past its deadline${atSite(site)}`, { details: errorDetails(site) });
    }
  }

  describeInstance(): string { return `[${this.programIds.join(", ")}]`; }
}

function checkPartitions(tileShape: readonly number[], buffer: OnChipBuffer, site: SourceSite | undefined, given: string | undefined, pmax: number, shape: readonly number[]): void {
  if ((tileShape[0] ?? 1) <= pmax) return;
  const name = given ?? assignedName(site);
  throw new TileShapeError(
    "E_NKI_PARTITION",
    `a ${buffer} tile${name ? ` '${name}'` : ""} of shape (${shape.join(", ")}) has ${tileShape[0]} partitions; the partition dimension (the first) is at most ${pmax} (nl.tile_size.pmax)${atSite(site)}`,
    { details: errorDetails(site, { shape: [...shape], limit: pmax, buffer }) },
  );
}

/** A PSUM tile lives in one bank: at most 2 KiB (512 float32) per partition. */
function checkPsumBank(tileShape: readonly number[], dtype: NkiDType, site: SourceSite | undefined, given: string | undefined, device: DeviceFigures, shape: readonly number[]): void {
  const free = tileShape.slice(1).reduce((a, b) => a * b, 1) * dtype.bytes;
  if (free <= device.psumBankBytes) return;
  const name = given ?? assignedName(site);
  throw new TileShapeError(
    "E_NKI_PSUM_BANK",
    `a psum tile${name ? ` '${name}'` : ""} of shape (${shape.join(", ")}) and dtype ${dtype.name} takes ${free} bytes per partition; a PSUM tile fits in one bank of ${device.psumBankBytes} bytes per partition (${device.psumFmax} float32, nl.tile_size.psum_fmax)${atSite(site)}`,
    { details: errorDetails(site, { shape: [...shape], bytes: free, limit: device.psumBankBytes, buffer: "psum" }) },
  );
}

export function requireSupported(dtype: NkiDType, site: SourceSite | undefined): void {
  if (dtype.supported) return;
  throw new NkiDTypeError("E_NKI_DTYPE", `${dtype.name} is not supported by gpsimd's NKI machine${atSite(site)}`, { details: errorDetails(site, { dtype: dtype.name }) });
}

// ---- the current run (one per thread: kernels run one at a time on a thread) ----

let current: KernelRun | null = null;

/** The run in progress; native functions called outside a kernel get a clear error. */
export function currentRun(site?: SourceSite): KernelRun {
  if (current) return current;
  throw new Error(`this NKI function can only be called inside a kernel run (nki.jit kernels run through launchKernel or nki.simulate_kernel)${site ? ` (${shortSite(site)})` : ""}`);
}
export function maybeCurrentRun(): KernelRun | null { return current; }

/** Runs f with `run` current, restoring the previous run afterwards (a kernel called from a kernel). */
export function withRun<T>(run: KernelRun, f: () => T): T {
  const previous = current;
  current = run;
  try {
    const result = f();
    noteRunEnd(run);
    return result;
  } catch (e) {
    // A Python exception becomes a gpsimd error only where the call began (program.call), which
    // knows the raising function but not the kernel or instance it ran in: remember them here.
    if (typeof e === "object" && e !== null && !raisedIn.has(e)) raisedIn.set(e, { kernel: run.launch.kernelName, instance: run.programIds });
    throw e;
  } finally { current = previous; }
}

const raisedIn = new WeakMap<object, { kernel: string; instance: readonly number[] }>();
/** The kernel and SPMD instance whose run an exception (a Python exception) was raised in, innermost first. */
export function runRaising(e: object): { kernel: string; instance: readonly number[] } | undefined { return raisedIn.get(e); }

setRunDetails(() => (current ? { kernel: current.launch.kernelName, instance: current.programIds } : {}));
