// What a copy out of TCM (tcm_to_tensor) checks: every byte it copies was written since its block was handed out.
// The default and sanitize builds read that from the written-map that copies in and stores keep (assembly/ownership.ts),
// so a kernel may write any value, the all-ones bytes fresh TCM used to be filled with included, and integer buffers
// are checked as float ones are; tcm_free clears the map where it may be set (a store window, a short copy, or
// anywhere in sanitize mode, whose stores mark without windows). A build without the raw store checks keeps no map of
// its stores, so it still fills fresh TCM with poison and looks for it.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { ops, tensor, custom_op, UninitializedTcmError, kInt, type Library, type Tensor } from "gpsimd";
import { WITHOUT_OWNERSHIP_CHECKS } from "../../build/ownership-names.js";
import { fixturePath, expectFailureKeepsInputs, values, TEST_BUILD_DIR } from "../helpers.js";

const NS = "tcm_copy_out";
type Ops = Record<string, (...args: Tensor[]) => Tensor>;
const o = () => ops[NS] as unknown as Ops;

/** 64 floats: 256 bytes, four 64-byte granules. */
const xs = Array.from({ length: 64 }, (_, i) => i - 20.25);

function build(name: string, extra: { sanitize?: boolean; extra_cflags?: string[] }): Library {
  return custom_op.load({
    name, compute_srcs: [fixturePath("tcm-copy-out", "kernels.ts")], shape_srcs: [fixturePath("tcm-copy-out", "shape.ts")],
    build_directory: TEST_BUILD_DIR, ...extra,
  });
}

/** The bytes of a float32 tensor's elements, as unsigned words. */
const words = (t: Tensor) => Array.from(new Uint32Array((t.data() as Float32Array).slice().buffer));

/** What every build that keeps the written-map must do. */
function writtenMapCases(): void {
  it("a block freed and handed out again after a raw store into it: the fresh block's element is unwritten", () => {
    const x = tensor(xs);
    const e = expectFailureKeepsInputs([x], () => o().stored_then_fresh(x), UninitializedTcmError, "E_UNINITIALIZED_TCM", [
      `${NS}::stored_then_fresh (core 0)`, "tcm_to_tensor", "element 1 comes from TCM+0x4", "nothing wrote since tcm_malloc",
    ]);
    expect(e.details).toMatchObject({ offset: 1, count: 1 });
  });

  it("a block freed and handed out again after a copy of three elements into it: the fresh block's first element is unwritten", () => {
    const x = tensor(xs);
    const e = expectFailureKeepsInputs([x], () => o().short_copy_then_fresh(x), UninitializedTcmError, "E_UNINITIALIZED_TCM", [
      `${NS}::short_copy_then_fresh (core 0)`, "element 0 comes from TCM+0x0",
    ]);
    expect(e.details).toMatchObject({ offset: 0, count: 3 });
  });

  it("a copy in and a raw store, copied out before the free: the written values", () => {
    expect(values(o().stored_and_copied_out(tensor(xs)))).toEqual(xs.map((v, i) => (i === 1 ? 1.5 : v)));
  });
}

describe("copies out of TCM, default build", () => {
  let lib: Library;
  beforeAll(() => { lib = build("tcm_copy_out", {}); }, 120_000);
  afterAll(() => lib?.unload());

  it("all-ones bytes written by memory.fill copy out as written (NaNs, not fresh TCM)", () => {
    expect(words(o().all_ones_out(tensor(xs)))).toEqual(xs.map(() => 0xFFFFFFFF));
  });

  it("all-ones bytes written by raw stores copy out as written", () => {
    expect(words(o().all_ones_stored_out(tensor(xs)))).toEqual(xs.map(() => 0xFFFFFFFF));
  });

  it("an int32 buffer copied out past the half written: its first unwritten element", () => {
    const x = tensor(xs.map((_, i) => i * 3), undefined, kInt);
    const e = expectFailureKeepsInputs([x], () => o().int_half_written(x), UninitializedTcmError, "E_UNINITIALIZED_TCM", [
      `${NS}::int_half_written (core 0)`, "element 32 comes from TCM+0x80",
    ]);
    expect(e.details).toMatchObject({ offset: 32, count: 64 });
  });

  writtenMapCases();
});

describe("copies out of TCM, sanitize build (stores mark the written-map without windows)", () => {
  let lib: Library;
  beforeAll(() => { lib = build("tcm_copy_out_sanitize", { sanitize: true }); }, 120_000);
  afterAll(() => lib?.unload());

  it("all-ones bytes written by memory.fill copy out as written", () => {
    expect(words(o().all_ones_out(tensor(xs)))).toEqual(xs.map(() => 0xFFFFFFFF));
  });

  writtenMapCases();
});

describe("copies out of TCM, a build without the raw store checks (fresh TCM poisoned)", () => {
  let lib: Library;
  beforeAll(() => { lib = build("tcm_copy_out_unchecked", { extra_cflags: [WITHOUT_OWNERSHIP_CHECKS] }); }, 120_000);
  afterAll(() => lib?.unload());

  it("a fresh block copied out still fails, found by its poison", () => {
    const x = tensor(xs);
    const e = expectFailureKeepsInputs([x], () => o().short_copy_then_fresh(x), UninitializedTcmError, "E_UNINITIALIZED_TCM", [
      "element 0 comes from TCM+0x0",
    ]);
    expect(e.details).toMatchObject({ offset: 0 });
  });

  it("what the kernel wrote copies out as written", () => {
    expect(values(o().stored_and_copied_out(tensor(xs)))).toEqual(xs.map((v, i) => (i === 1 ? 1.5 : v)));
  });
});
