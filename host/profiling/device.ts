// The GpSimd hardware the cost model describes, from the Neuron documentation
// (aws-neuron/aws-neuron-sdk). Every number here is a documented figure or a
// stated consequence of one; docs/cost-model.md cites each. Nothing is fitted.

/** One NeuronCore's GpSimd engine and the memory system it sees. */
export interface DeviceProfile {
  /** "trn1" (NeuronCore-v2: trn1, inf2) or "trn2" (NeuronCore-v3). */
  name: DeviceName;
  /** One line for reports. */
  title: string;
  /** GpSimd cores per NeuronCore. */
  cores: number;
  /** Core clock, cycles per ns. */
  clockGHz: number;
  /** float32 lanes of one core's vector unit (512 bits). */
  lanesF32: number;
  /** Bytes per ns one core's TCM copies move (one DMA transfer at a time per core). */
  dmaBytesPerNs: number;
  /** Fixed cost of one DMA transfer (descriptor, setup, completion), ns. */
  dmaFixedNs: number;
  /** HBM bytes per ns available to one NeuronCore (the device's bandwidth over its NeuronCores). */
  hbmBytesPerNs: number;
  /** TCM load-to-use latency, cycles (pipelined: one access per cycle). */
  tcmLatencyCycles: number;
  /** Where each figure comes from. */
  sources: Record<string, string>;
}

export type DeviceName = "trn1" | "trn2";

const GIB = 2 ** 30;

/** trn1 / inf2: NeuronCore-v2. Custom C++ operators run on this generation only. */
export const TRN1: DeviceProfile = Object.freeze({
  name: "trn1",
  title: "trn1/inf2 (NeuronCore-v2): 8 GpSimd cores at 1.4 GHz, 512-bit vectors",
  cores: 8,
  clockGHz: 1.4,
  lanesF32: 16,
  dmaBytesPerNs: (27 * GIB) / 1e9, // one DMA engine: 27 GiB/s = 29.0 bytes/ns
  dmaFixedNs: 1300,
  hbmBytesPerNs: 820 / 2, // 820 GB/s per device, two NeuronCores
  tcmLatencyCycles: 3,
  sources: {
    cores: "nki/guides/architecture/trainium_inferentia2_arch.rst (GpSimd: 8 fully programmable processors)",
    clockGHz: "nki/guides/architecture/trainium_inferentia2_arch.rst (engine clock table: GpSimd 1.4 GHz)",
    lanesF32: "about-neuron/arch/neuron-hardware/neuron-core-v2.rst (each processor is a 512-bit vector machine: 16 fp32 lanes)",
    dmaBytesPerNs: "nki/deep-dives/nki-dma-bandwidth-guide.rst (16 DMA engines per NeuronCore, 27 GiB/s each)",
    dmaFixedNs: "nki/deep-dives/nki-dma-bandwidth-guide.rst (about 1.3 µs fixed cost per DMA transfer)",
    hbmBytesPerNs: "nki/arch/trainium_inferentia2_arch (2 HBM stacks, 820 GB/s, 2 NeuronCores per device)",
    tcmLatencyCycles: "custom-ops API guide (64 KB local data RAM per core, 3-cycle latency, 512-bit wide)",
  },
});

/** trn2: NeuronCore-v3, whose GpSimd cores have DMA of their own. Custom C++ operators are documented for NeuronCore-v2 only: an extrapolation. */
export const TRN2: DeviceProfile = Object.freeze({
  name: "trn2",
  title: "trn2 (NeuronCore-v3): 8 GpSimd cores at 1.2 GHz with their own DMA (an extrapolation: custom C++ operators are documented for NeuronCore-v2)",
  cores: 8,
  clockGHz: 1.2,
  lanesF32: 16,
  dmaBytesPerNs: 153 / 8, // 153 GB/s per direction for all 8 cores
  dmaFixedNs: 1300,
  hbmBytesPerNs: 2900 / 8, // 2.9 TB/s per device, eight NeuronCores
  tcmLatencyCycles: 3,
  sources: {
    cores: "nki/guides/architecture/trainium2_arch.rst",
    clockGHz: "nki/guides/architecture/trainium2_arch.rst (engine clock table: GpSimd 1.2 GHz)",
    lanesF32: "as NeuronCore-v2 (512-bit vectors)",
    dmaBytesPerNs: "nki/guides/architecture/trainium2_arch.rst (GpSimd cores' own DMA: 153 GB/s per direction for all 8)",
    dmaFixedNs: "assumed as trn1 (nki-dma-bandwidth-guide.rst)",
    hbmBytesPerNs: "nki/arch/trainium2_arch (4 HBM stacks, 2.9 TB/s, 8 NeuronCores per device)",
    tcmLatencyCycles: "as NeuronCore-v2",
  },
});

/** The devices by name. */
export const DEVICES: Readonly<Record<DeviceName, DeviceProfile>> = Object.freeze({ trn1: TRN1, trn2: TRN2 });
