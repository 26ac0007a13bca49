// What one NKI instruction costs on its engine, from the rules of thumb of the NeuronCore-v2
// architecture guide (nki/guides/architecture/trainium_inferentia2_arch.rst) where it gives one, and a
// stated assumption where it does not (docs/cost-model.md, "NKI kernels", lists which is which).
// Costs are initiation intervals: how long the engine is busy before it can start the next instruction.

export type EngineName = "Tensor" | "Vector" | "Scalar" | "GpSimd" | "DMA";

export interface CostConstant {
  readonly value: number;
  readonly unit: string;
  /** Where the figure comes from: a document and section, or "assumed: why". */
  readonly source: string;
}

const ARCH = "trainium_inferentia2_arch.rst";

/** Every constant the estimate uses, with its source (printed by docs and the profile's --constants). */
export const COSTS = {
  tensorGHz: { value: 2.8, unit: "GHz", source: `${ARCH}, engine table` },
  vectorGHz: { value: 1.12, unit: "GHz", source: `${ARCH}, engine table` },
  scalarGHz: { value: 1.4, unit: "GHz", source: `${ARCH}, engine table` },
  gpsimdGHz: { value: 1.4, unit: "GHz", source: `${ARCH}, engine table` },
  matmulMinCycles: { value: 64, unit: "cycles", source: `${ARCH}, Tensor Engine cost model: max(N, MM_INIT_LATENCY = 64)` },
  matmulFp32Factor: { value: 4, unit: "x", source: `${ARCH}, Tensor Engine cost model: FP32 inputs about 4x` },
  vectorStaticCycles: { value: 100, unit: "cycles", source: `${ARCH}, Vector Engine cost model: static overhead for N << 128 or dependent instructions` },
  vectorPsumSbufPass: { value: 1, unit: "x N cycles", source: "nki.isa.tensor_tensor API doc (Neuron SDK 2.26), Estimated instruction cost: max(MIN_II, N) when one input tile is in PSUM and the other in SBUF (2N otherwise; tensor_tensor_scan is always 2N)" },
  scalarLikeVector: { value: 1, unit: "cycles per element", source: "assumed: ScalarE costed as VectorE with one input (the guide describes it as similar to VectorE and gives no rule)" },
  gpsimdIotaCycles: { value: 150, unit: "cycles + N", source: "NKI.md / nki.isa docs: iota and affine_select about 150 + N" },
  gpsimdOtherCycles: { value: 150, unit: "cycles + N", source: "assumed: other GpSimd instructions as iota (the guide: no rule of thumb)" },
  dmaEngineGiBps: { value: 27, unit: "GiB/s per DMA engine", source: `${ARCH}, Data Movement: 27 GiB/s per DMA engine` },
  dmaEngines: { value: 16, unit: "engines", source: `${ARCH}, Data Movement: 16 DMA engines per NeuronCore-v2, a 128x512 load spread over all 16` },
  dmaLatencyUs: { value: 2, unit: "µs", source: "assumed: fixed latency of a DMA transfer (descriptor processing and HBM round trip), overlapped with other transfers" },
  dmaMinBufferBytes: { value: 512, unit: "bytes", source: "assumed: each contiguous DMA buffer costs at least 512 bytes of bandwidth (the guide: small buffers and transfers carry an overhead, aim for 4 KiB per partition)" },
  syncUs: { value: 0, unit: "µs", source: "assumed: a dependency between engines (semaphore wait) costs nothing beyond the producer's end" },
} as const satisfies Record<string, CostConstant>;

/** The shape facts of one instruction the cost depends on. */
export interface InstructionShape {
  readonly engine: EngineName;
  readonly name: string;
  /** Free size N: elements per partition of the largest output (matmul: the moving tile's free size). */
  readonly free: number;
  /** Tile inputs (not scalars, not HBM). */
  readonly inputs: number;
  /** A matmul with a float32 input. */
  readonly fp32Matmul: boolean;
  /** Inputs that sit in PSUM (a PSUM tile, a TensorE result such as a partition broadcast). */
  readonly psumInputs?: number;
  /** Bytes a DMA moves and the contiguous runs (DMA buffers) they come in. */
  readonly dmaBytes: number;
  readonly dmaBuffers: number;
}

export interface Cost {
  /** Engine busy time (µs): until the engine can start its next instruction. */
  readonly busyUs: number;
  /** Time until the result is there for a dependent instruction (µs, from the start). */
  readonly latencyUs: number;
  readonly cycles: number;
}

/** The cost of an instruction; `dependent`: it reads what the previous instruction of its engine wrote. */
export function instructionCost(s: InstructionShape, dependent: boolean): Cost {
  const N = Math.max(1, s.free);
  const c = (cycles: number, ghz: number): Cost => ({ busyUs: cycles / ghz / 1e3, latencyUs: cycles / ghz / 1e3, cycles });
  switch (s.engine) {
    case "Tensor": {
      const cycles = Math.max(N, COSTS.matmulMinCycles.value) * (s.fp32Matmul ? COSTS.matmulFp32Factor.value : 1);
      return c(cycles, COSTS.tensorGHz.value);
    }
    case "Vector": {
      const stat = dependent || N < 128 ? COSTS.vectorStaticCycles.value : 0;
      // Two input tiles stream in two passes (2N), unless one comes from PSUM and the other from SBUF:
      // then they stream side by side (N), except in a scan, whose cost the API doc gives as 2N.
      const sideBySide = s.inputs === 2 && s.psumInputs === 1 && !/scan/.test(s.name);
      const passes = sideBySide ? COSTS.vectorPsumSbufPass.value : Math.max(1, Math.min(2, s.inputs));
      return c(N * passes + stat, COSTS.vectorGHz.value);
    }
    case "Scalar": {
      const stat = dependent || N < 128 ? COSTS.vectorStaticCycles.value : 0;
      return c(N * COSTS.scalarLikeVector.value + stat, COSTS.scalarGHz.value);
    }
    case "GpSimd":
      return c((/iota|affine_select/.test(s.name) ? COSTS.gpsimdIotaCycles.value : COSTS.gpsimdOtherCycles.value) + N, COSTS.gpsimdGHz.value);
    case "DMA": {
      const bytesPerUs = (COSTS.dmaEngineGiBps.value * COSTS.dmaEngines.value * 2 ** 30) / 1e6;
      const charged = Math.max(s.dmaBytes, s.dmaBuffers * COSTS.dmaMinBufferBytes.value);
      const busyUs = charged / bytesPerUs;
      return { busyUs, latencyUs: busyUs + COSTS.dmaLatencyUs.value, cycles: 0 };
    }
  }
}
