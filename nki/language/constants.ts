// nl.* objects that are not functions: memory regions (buffer=), nl.par_dim, nl.tile_size, the
// engine selectors and enum-like namespaces of nisa (oob_mode, dge_mode, engine), nl.fp32 limits.
import { HostObject, PyException, PyFloat, PyModule, type CallContext, type PyValue } from "../python/values.js";
import type { DeviceFigures } from "../machine/device.js";
import { maybeCurrentRun } from "../machine/kernel-run.js";
import { deviceFigures } from "../machine/device.js";

export type BufferName = "sbuf" | "psum" | "private_hbm" | "shared_hbm";

/** nl.sbuf, nl.psum, nl.hbm (= private_hbm), nl.private_hbm, nl.shared_hbm. */
export class MemoryRegion extends HostObject {
  readonly typeName = "MemoryRegion";
  constructor(readonly name: BufferName) { super(); }
  override getAttr(name: string): PyValue | undefined { return name === "name" || name === "value" ? this.name : undefined; }
  override repr(): string { return `MemoryRegion.${this.name}`; }
  override hashKey(): string { return `nki-buffer:${this.name}`; }
}

export const BUFFERS = {
  sbuf: new MemoryRegion("sbuf"),
  psum: new MemoryRegion("psum"),
  private_hbm: new MemoryRegion("private_hbm"),
  shared_hbm: new MemoryRegion("shared_hbm"),
} as const;

/** nl.par_dim(n): marks the partition dimension in a shape; it is just n here. */
export class ParDim extends HostObject {
  readonly typeName = "par_dim";
  constructor(readonly size: number) { super(); }
  override repr(): string { return `par_dim(${this.size})`; }
}

/** nl.tile_size: the figures of the device the current run models (trn1 outside a run). */
export class TileSize extends HostObject {
  readonly typeName = "tile_size";
  override getAttr(name: string): PyValue | undefined {
    const d: DeviceFigures = maybeCurrentRun()?.device ?? deviceFigures();
    switch (name) {
      case "pmax": return d.partitions;
      case "psum_fmax": case "psum_bank_fmax": return d.psumFmax;
      case "psum_bank_fmax_bytes": return d.psumBankBytes;
      case "gemm_stationary_fmax": return d.gemmStationaryFmax;
      case "gemm_moving_fmax": return d.gemmMovingFmax;
      case "bn_stats_fmax": return 512;
      case "psum_num_banks": return d.psumPartitionBytes / d.psumBankBytes;
      case "sbuf_size_bytes": return d.sbufPartitionBytes * d.partitions;
      case "sbuf_fmax_bytes": case "total_available_sbuf_size": return d.sbufPartitionBytes;
      case "sbuf_fmax": return d.sbufPartitionBytes / 4;
      case "psum_min_align": return 4;
      case "sbuf_min_align": return 4;
    }
    return undefined;
  }
}

/** A namespace of named constants (nisa.oob_mode.error, nisa.dge_mode.swdge, nl.fp32.min). */
export function namespace(name: string, values: Record<string, PyValue>): PyModule {
  const m = new PyModule(name);
  for (const [k, v] of Object.entries(values)) m.attrs.set(k, v);
  return m;
}

/** An enum member: compares by identity, prints as Name.member. */
export class EnumValue extends HostObject {
  readonly typeName: string;
  constructor(readonly enumName: string, readonly member: string) { super(); this.typeName = enumName; }
  override repr(): string { return `${this.enumName}.${this.member}`; }
  override hashKey(): string { return `nki-enum:${this.enumName}.${this.member}`; }
}

export function enumNamespace(enumName: string, members: string[]): PyModule {
  return namespace(enumName, Object.fromEntries(members.map((m) => [m, new EnumValue(enumName, m)])));
}

/** nl.fp32 / nl.bf16 style limits: .min, .max, .tiny, .eps. */
export function floatLimits(name: string, max: number, tiny: number, eps: number): PyModule {
  return namespace(name, { min: new PyFloat(-max), max: new PyFloat(max), tiny: new PyFloat(tiny), eps: new PyFloat(eps) });
}

/** The buffer= argument: a MemoryRegion (None gives the default). */
export function bufferArg(v: PyValue, dflt: BufferName, ctx: CallContext): BufferName {
  if (v === null || v === undefined) return dflt;
  if (v instanceof MemoryRegion) return v.name;
  throw new PyException("TypeError", "buffer must be nl.sbuf, nl.psum, nl.hbm, nl.private_hbm or nl.shared_hbm", ctx.site);
}
