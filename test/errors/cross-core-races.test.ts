// Cross-core errors of multicore AssemblyScript kernels name both cores, both statements, the tensor and the
// element range: a core reading output elements another core writes (CrossCoreRaceError), two cores writing the same
// elements (CrossCoreWriteError), elements no core wrote (UnwrittenOutputError, with the last statement that wrote
// before the gap). The statements come from a rerun of the failed call (host/cores/locate-rerun.ts), so the rerun
// must leave the caller's tensors as they were. The expected lines are found in the kernel source by their markers.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  custom_op, ops, randn, shutdown, tensor, type Library,
  CrossCoreRaceError, CrossCoreWriteError, UnwrittenOutputError, ReadOnlyTensorError,
} from "gpsimd";
import { FIXTURES_DIR, TEST_BUILD_DIR, captureOutput, expectGpsimdError, snapshot } from "../helpers.js";

const KERNELS = path.join(FIXTURES_DIR, "cross-core-races", "kernels.ts");
const SOURCE = readFileSync(KERNELS, "utf8").split("\n");

/** The 1-based line of the kernel source that carries `marker`. */
function lineOf(marker: string): number {
  const i = SOURCE.findIndex((l) => l.includes(`// ${marker}`));
  if (i < 0) throw new Error(`no line marked ${marker}`);
  return i + 1;
}

/** The places an error's details name, per core. */
type Places = { core: number; access: string; start?: number; end?: number; file?: string; line?: number }[];

const N = 1000; // 8 cores of 125 elements
let lib: Library;
beforeAll(() => {
  lib = custom_op.load({
    name: "cc_races", compute_srcs: [KERNELS], shape_srcs: [path.join(FIXTURES_DIR, "cross-core-races", "register.ts")],
    build_directory: TEST_BUILD_DIR, multicore: true, threads: 2,
  });
}, 120_000);
afterAll(async () => { lib?.unload(); await shutdown(); });

describe("no false alarm", () => {
  it("a core reading back the elements it wrote itself (a second pass) is fine, and the result is right", () => {
    const x = randn([N], { seed: 3 });
    const got = ops.cc_races.own_second_pass(x).data() as Float32Array;
    const want = (x.data() as Float32Array).map((v) => Math.fround(Math.fround(v * 2) + 1));
    expect(got).toEqual(want);
  });

  it("reads of a core's own elements out of order, one run each, are merged: the check runs and warns of nothing", () => {
    const x = randn([8 * 8192], { seed: 12 });
    const { result, warnings } = captureOutput(() => ops.cc_races.own_scattered_reads(x));
    expect(warnings).toEqual([]);
    expect(result.data()).toEqual((x.data() as Float32Array).map((v) => v * 2));
  });
});

describe("reads racing writes between cores: CrossCoreRaceError", () => {
  it("core c reading an element of core c + 1's part names both cores, the read's and the write's lines, the output and the range", () => {
    const x = randn([N], { seed: 4 });
    const before = snapshot(x);
    const e = expectGpsimdError(() => ops.cc_races.neighbour_second_pass(x), CrossCoreRaceError, "E_CROSS_CORE_RACE", [
      "cc_races::neighbour_second_pass: core 0 read output elements [125, 126) of float32[1000], which core 1 wrote in the same call",
      `core 0 read [125, 126) at neighbour_second_pass (${KERNELS}:${lineOf("READ_NEIGHBOUR")}:`,
      `core 1 wrote [125, 250) at double_into (${KERNELS}:${lineOf("WRITE_PART")}:`,
      "also: core 1 read [250, 251), which core 2 wrote",
    ]);
    expect(e.core).toBe(0);
    expect(e.details).toMatchObject({ tensor: "output (float32[1000])", reader: 0, writer: 1, start: 125, end: 126, file: KERNELS, line: lineOf("READ_NEIGHBOUR") });
    expect((e.details.races as unknown[]).length).toBe(7);
    expect(e.details.places as Places).toMatchObject([
      { core: 0, access: "read", start: 125, end: 126, file: KERNELS, line: lineOf("READ_NEIGHBOUR") },
      { core: 1, access: "write", start: 125, end: 250, file: KERNELS, line: lineOf("WRITE_PART") },
    ]);
    expect(snapshot(x)).toEqual(before); // the rerun ran on copies
  });

  it("a tensor operation reading the whole output on core 0 races the other cores' writes", () => {
    expectGpsimdError(() => ops.cc_races.op_reads_output(randn([N], { seed: 5 })), CrossCoreRaceError, "E_CROSS_CORE_RACE", [
      "core 0 read output elements [125, 250) of float32[1000], which core 1 wrote",
      `core 0 read [0, 1000) at op_reads_output (${KERNELS}:${lineOf("OP_READS_OUTPUT")}:`,
      `core 1 wrote [125, 250) at double_into (${KERNELS}:${lineOf("WRITE_PART")}:`,
    ]);
  });

  it("the same call through .async names the same lines", async () => {
    const e = await ops.cc_races.neighbour_second_pass.async(randn([N], { seed: 6 })).then(() => null, (err: unknown) => err);
    expect(e).toBeInstanceOf(CrossCoreRaceError);
    expect((e as CrossCoreRaceError).details).toMatchObject({ reader: 0, writer: 1, line: lineOf("READ_NEIGHBOUR") });
  });

  it("with cross_core_checks off nothing is logged or checked", () => {
    lib.configure({ cross_core_checks: false });
    try {
      expect((ops.cc_races.neighbour_second_pass(tensor([...Array(N).keys()], [N], "float32")).data() as Float32Array)[999]).toBe(1998);
    } finally {
      lib.configure({ cross_core_checks: true });
    }
  });
});

describe("a core writing an input another core reads", () => {
  it("is stopped at the write: inputs are read-only (ReadOnlyTensorError at its line), so no other core can read a changed value", () => {
    const x = randn([N], { seed: 7 });
    const before = snapshot(x);
    const e = expectGpsimdError(() => ops.cc_races.writes_input(x), ReadOnlyTensorError, "E_READ_ONLY", [`${KERNELS}:${lineOf("WRITE_INPUT")}:`]);
    expect(e.core).toBe(1);
    expect(snapshot(x)).toEqual(before);
  });
});

describe("overlaps and gaps name the statements that wrote", () => {
  it("two cores writing the same elements: CrossCoreWriteError naming each core's write", () => {
    const e = expectGpsimdError(() => ops.cc_races.overlapping(randn([N], { seed: 8 })), CrossCoreWriteError, "E_CROSS_CORE_OVERLAP", [
      "cores 0 and 1 both wrote output elements [125, 141) of float32[1000]",
      // Each names the whole copy that touched the range: core 0's one chunk [0, 141), core 1's [125, 266).
      `core 0 wrote [0, 141) at double_into (${KERNELS}:${lineOf("WRITE_PART")}:`,
      `core 1 wrote [125, 266) at double_into (${KERNELS}:${lineOf("WRITE_PART")}:`,
    ]);
    expect(e.details.places as Places).toMatchObject([{ core: 0, access: "write", line: lineOf("WRITE_PART") }, { core: 1, access: "write", line: lineOf("WRITE_PART") }]);
  });

  it("elements no core wrote: UnwrittenOutputError naming the last write before the gap", () => {
    const e = expectGpsimdError(() => ops.cc_races.short_last(randn([N], { seed: 9 })), UnwrittenOutputError, "E_UNWRITTEN_OUTPUT", [
      "5 output elements were written by no core: [995, 1000)",
      `the last write before [995, 1000): core 7 wrote [875, 995) at double_into (${KERNELS}:${lineOf("WRITE_PART")}:`,
    ]);
    expect(e.details).toMatchObject({ gaps: [[995, 1000]], file: KERNELS, line: lineOf("WRITE_PART") });
  });
});
