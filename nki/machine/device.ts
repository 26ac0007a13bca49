// The NeuronCore figures the checks use. trn1 (NeuronCore-v2) from trainium_inferentia2_arch.rst,
// trn2 (NeuronCore-v3) from trainium2_arch.rst: SBUF 128 partitions x 192 KiB (24 MiB) on trn1 and
// x 224 KiB (28 MiB) on trn2; PSUM 128 x 16 KiB (2 MiB) on both, 8 banks of 2 KiB per partition.

export type DeviceName = "trn1" | "trn2";

export interface DeviceFigures {
  readonly name: DeviceName;
  /** Partitions of SBUF and PSUM; the largest partition dimension of a tile (nl.tile_size.pmax). */
  readonly partitions: number;
  readonly sbufPartitionBytes: number;
  readonly psumPartitionBytes: number;
  /** Bytes of one PSUM bank per partition (512 float32). */
  readonly psumBankBytes: number;
  /** Largest free size of a matmul's stationary operand. */
  readonly gemmStationaryFmax: number;
  /** Largest free size of a matmul's moving operand. */
  readonly gemmMovingFmax: number;
  /** Largest free size of a PSUM tile, in float32 elements (one bank). */
  readonly psumFmax: number;
}

const KiB = 1024;

export const TRN1: DeviceFigures = Object.freeze({
  name: "trn1", partitions: 128, sbufPartitionBytes: 192 * KiB, psumPartitionBytes: 16 * KiB, psumBankBytes: 2 * KiB,
  gemmStationaryFmax: 128, gemmMovingFmax: 512, psumFmax: 512,
});

export const TRN2: DeviceFigures = Object.freeze({
  name: "trn2", partitions: 128, sbufPartitionBytes: 224 * KiB, psumPartitionBytes: 16 * KiB, psumBankBytes: 2 * KiB,
  gemmStationaryFmax: 128, gemmMovingFmax: 512, psumFmax: 512,
});

export const DEVICES: Readonly<Record<DeviceName, DeviceFigures>> = Object.freeze({ trn1: TRN1, trn2: TRN2 });

/** The figures of a device by name (trn1 when none is given). */
export function deviceFigures(name: DeviceName = "trn1"): DeviceFigures {
  return DEVICES[name];
}
