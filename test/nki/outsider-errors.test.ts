// The outsider round's buggy kernels (test/nki/fixtures/outsider/bugs/*.py): each mistake an author
// makes gives the documented error class and code, at the kernel's line, naming the tile or tensor.
import { describe, it, expect, afterAll } from "vitest";
import { nki, tensor, GpsimdError } from "gpsimd";
import { OUTSIDER, values, ints } from "./outsider-helpers.js";

afterAll(() => nki.shutdown());

const f32 = (shape: number[]) => tensor(values(shape.reduce((a, b) => a * b, 1), 1), shape);

interface Expected {
  name: string; code: string; line: number;
  /** Fragments the message must contain (the tile or tensor, the range). */
  says: (string | RegExp)[];
  details?: Record<string, unknown>;
}

function failure(file: string, kernel: string, args: unknown[], grid?: number[], threads = 1): GpsimdError {
  const k = nki.load(OUTSIDER(`bugs/${file}`), kernel, { threads });
  try {
    (grid ? k.grid(...grid) : k)(...(args as Parameters<typeof k>));
  } catch (e) {
    if (e instanceof GpsimdError) return e;
    throw e;
  }
  throw new Error(`${file}: the kernel ran without an error`);
}

function expectFailure(e: GpsimdError, file: string, fn: string, want: Expected): void {
  expect(e.name, e.message).toBe(want.name);
  expect(e.code, e.message).toBe(want.code);
  expect(e.details.line, e.message).toBe(want.line);
  expect(e.details.file).toBe(OUTSIDER(`bugs/${file}`));
  expect(e.message).toMatch(new RegExp(` at ${fn} \\(${OUTSIDER(`bugs/${file}`).replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:${want.line}:\\d+\\)$`));
  for (const s of want.says) expect(e.message).toMatch(s);
  if (want.details) expect(e.details).toMatchObject(want.details);
}

describe("buggy kernels give the documented error at their line", () => {
  it("an HBM slice one column too wide: HbmAccessError naming 'x' and the range", () => {
    const e = failure("off_by_one.py", "off_by_one_kernel", [f32([256, 64])]);
    expectFailure(e, "off_by_one.py", "off_by_one_kernel", {
      name: "HbmAccessError", code: "E_NKI_HBM_RANGE", line: 10,
      says: ["nl.load: indices 0..64 of dimension 1 of HBM tensor 'x'", "outside the allowed range 0..63"],
      details: { tensor: "x", dim: 1, asked: [0, 64], allowed: [0, 63] },
    });
  });

  it("a 129-partition tile: TileShapeError E_NKI_PARTITION naming the tile", () => {
    const e = failure("partitions129.py", "partitions_kernel", [f32([256, 64])]);
    expectFailure(e, "partitions129.py", "partitions_kernel", {
      name: "TileShapeError", code: "E_NKI_PARTITION", line: 8, says: ["tile 'rows' of shape (129, 64) has 129 partitions"],
    });
  });

  it("a PSUM tile of 1024 float32 per partition: E_NKI_PSUM_BANK", () => {
    const e = failure("psum_wide.py", "psum_wide_kernel", [f32([128, 128]), f32([128, 1024])]);
    expectFailure(e, "psum_wide.py", "psum_wide_kernel", {
      name: "TileShapeError", code: "E_NKI_PSUM_BANK", line: 8, says: ["psum tile 'acc' of shape (128, 1024)", "4096 bytes per partition"],
    });
  });

  it("nc_matmul with contraction sizes 128 and 64: E_NKI_MATMUL", () => {
    const e = failure("k_mismatch.py", "k_mismatch_kernel", [f32([128, 128]), f32([64, 512])]);
    expectFailure(e, "k_mismatch.py", "k_mismatch_kernel", {
      name: "TileShapeError", code: "E_NKI_MATMUL", line: 11, says: ["nisa.nc_matmul", "stationary has shape (128, 128), moving (64, 512)"],
    });
  });

  it("reading an SBUF tile whose second half was never loaded: UninitializedTileError at the read", () => {
    const e = failure("partial_load.py", "partial_load_kernel", [f32([128, 512])]);
    expectFailure(e, "partial_load.py", "partial_load_kernel", {
      name: "UninitializedTileError", code: "E_NKI_UNINIT", line: 10,
      says: ["nl.exp reads element [0, 256] of tile 'buf'", "allocated at"], details: { tile: "buf", index: [0, 256] },
    });
  });

  it("a PSUM tile half accumulated, then stored whole: UninitializedTileError naming 'acc'", () => {
    const e = failure("psum_partial.py", "psum_uninit_kernel", [f32([128, 128]), f32([128, 512])]);
    expectFailure(e, "psum_partial.py", "psum_uninit_kernel", {
      name: "UninitializedTileError", code: "E_NKI_UNINIT", line: 10, says: ["nl.store reads element [0, 256] of tile 'acc' (psum float32[128, 512]"],
    });
  });

  it("storing only half of the output: UnwrittenOutputError naming 'result' and the rows", () => {
    const e = failure("half_output.py", "half_output_kernel", [f32([256, 64])]);
    expectFailure(e, "half_output.py", "half_output_kernel", {
      name: "UnwrittenOutputError", code: "E_NKI_UNWRITTEN", line: 8,
      says: ["8192 of 16384 elements of the output HBM tensor 'result'", "the first at [128, 0] to [255, 63]"],
    });
  });

  it("nl.bitwise_and of a float tile: NkiDTypeError naming the tile", () => {
    const e = failure("wrong_dtype.py", "wrong_dtype_kernel", [f32([128, 64])]);
    expectFailure(e, "wrong_dtype.py", "wrong_dtype_kernel", {
      name: "NkiDTypeError", code: "E_NKI_DTYPE", line: 9, says: ["nl.bitwise_and: takes integer tiles (a bitwise operation); 'vals' is float32"],
    });
  });

  it("nl.exp of an int32 tile: NkiDTypeError", () => {
    const e = failure("exp_int.py", "exp_int_kernel", [tensor(ints(128 * 8, 1, 0, 9), [128, 8])]);
    expectFailure(e, "exp_int.py", "exp_int_kernel", {
      name: "NkiDTypeError", code: "E_NKI_DTYPE", line: 9, says: ["nl.exp: takes a float tile", "'counts' is int32"],
    });
  });

  it("a failed assert with an f-string message: KernelAbortError with the formatted message", () => {
    const e = failure("assert_fstring.py", "assert_kernel", [f32([200, 64])]);
    expectFailure(e, "assert_fstring.py", "assert_kernel", {
      name: "KernelAbortError", code: "E_NKI_ASSERT", line: 10,
      says: ["AssertionError: rows (200) must be a multiple of 128, got remainder 72"], details: { kernel: "assert_kernel" },
    });
  });

  it("a NameError in a helper: PythonError at the helper's line, details naming the kernel it ran in", () => {
    const e = failure("name_error.py", "name_error_kernel", [f32([128, 64])]);
    expectFailure(e, "name_error.py", "scaled", {
      name: "PythonError", code: "E_PY_NameError", line: 6,
      says: ["NameError: name 'factr' is not defined"], details: { function: "scaled", kernel: "name_error_kernel", instance: [] },
    });
    // Python's traceback from the kernel's def (the host called it), not from line 1 of the module.
    const tb = String(e.details.traceback).split("\n");
    expect(tb[1]).toMatch(/line 10, in <module>$/);
    expect(tb[2].trim()).toBe("def name_error_kernel(x):");
    expect(e.details.traceback).toMatch(/line 12, in name_error_kernel\n.*\n.*line 6, in scaled/);
  });

  it("the walrus operator: NkiSyntaxError E_NKI_UNSUPPORTED naming the construct", () => {
    const e = failure("walrus.py", "walrus_kernel", [f32([128, 64])]);
    expectFailure(e, "walrus.py", "walrus_kernel", {
      name: "NkiSyntaxError", code: "E_NKI_UNSUPPORTED", line: 8, says: ["the walrus operator (:=)"],
    });
  });

  it("adding tiles of shapes (128, 64) and (128, 32): E_NKI_SHAPE", () => {
    const e = failure("shape_mismatch.py", "shape_mismatch_kernel", [f32([128, 64]), f32([128, 32])]);
    expectFailure(e, "shape_mismatch.py", "shape_mismatch_kernel", {
      name: "TileShapeError", code: "E_NKI_SHAPE", line: 10, says: ["nl.add: operand shapes (128, 64) and (128, 32) do not broadcast"],
    });
  });

  it("storing a [128, 32] tile into a [128, 64] output names the tile", () => {
    const e = failure("store_shape.py", "store_shape_kernel", [f32([128, 64])]);
    expectFailure(e, "store_shape.py", "store_shape_kernel", {
      name: "TileShapeError", code: "E_NKI_SHAPE", line: 9, says: ["nl.store: the operand 't' of shape (128, 32) does not broadcast to (128, 64)"],
      details: { tile: "t" },
    });
  });

  it("a tile slice past the tile's end is E_NKI_TILE_RANGE naming the tile (not a shape mismatch)", () => {
    const e = failure("tile_range.py", "tile_range_kernel", [f32([128, 512])]);
    expectFailure(e, "tile_range.py", "tile_range_kernel", {
      name: "TileShapeError", code: "E_NKI_TILE_RANGE", line: 9, says: ["indices 0..599 of dimension 1", "tile 't'", "outside the allowed range 0..511"],
      details: { tile: "t" },
    });
  });

  it("a masked load but an unmasked store of the tail tile: HbmAccessError on the output", () => {
    const e = failure("store_unmasked.py", "mask_kernel", [f32([300, 64])]);
    expectFailure(e, "store_unmasked.py", "mask_kernel", {
      name: "HbmAccessError", code: "E_NKI_HBM_RANGE", line: 13, says: ["nl.store: indices 256..383 of dimension 0 of HBM tensor 'out'", "0..299"],
    });
  });

  it("an out-of-range load in one SPMD instance names that instance in the message and details", () => {
    const e = failure("spmd_oob.py", "spmd_oob_kernel", [f32([256, 512])], [2, 2]);
    expectFailure(e, "spmd_oob.py", "spmd_oob_kernel", {
      name: "HbmAccessError", code: "E_NKI_HBM_RANGE", line: 10, says: ["indices 256..519 of dimension 1 of HBM tensor 'x'", "in SPMD instance [0, 1] at spmd_oob_kernel"],
      details: { instance: [0, 1], kernel: "spmd_oob_kernel" },
    });
  });

  it("the same instance and message when the grid runs on two threads", () => {
    const one = failure("spmd_oob.py", "spmd_oob_kernel", [f32([256, 512])], [2, 2]);
    const two = failure("spmd_oob.py", "spmd_oob_kernel", [f32([256, 512])], [2, 2], 2);
    expect(two.name).toBe("HbmAccessError");
    expect(two.message).toBe(one.message);
    expect(two.details.instance).toEqual([0, 1]);
  });

  it("a misspelled keyword of a current nki.isa function is Python's TypeError, not ignored", () => {
    const e = failure("misspelled_kwarg.py", "misspelled_kernel", [f32([128, 128]), f32([128, 512])]);
    expectFailure(e, "misspelled_kwarg.py", "misspelled_kernel", {
      name: "PythonError", code: "E_PY_TypeError", line: 14, says: ["nisa.nc_matmul() got an unexpected keyword argument 'acumulate'"],
    });
  });

  it("a gather index past the partition's elements is E_NKI_TILE_RANGE naming the index tile", () => {
    const iv = ints(128 * 4, 5, 0, 64);
    iv[4 * 7 + 2] = 64;
    const e = failure("gather_oob.py", "gather_oob_kernel", [f32([128, 64]), tensor(iv, [128, 4])]);
    expectFailure(e, "gather_oob.py", "gather_oob_kernel", {
      name: "TileShapeError", code: "E_NKI_TILE_RANGE", line: 10,
      says: ["nl.gather_flattened: index 64 at [7, 2] of the indices 'positions' is outside the 64 free elements of each partition of data 'data' (allowed 0..63)"],
      details: { tile: "positions", index: [7, 2], value: 64 },
    });
  });

  it("a kernel called without one of its arguments: TypeError at the kernel's def, not an unknown site", () => {
    const e = failure("missing_arg.py", "two_args_kernel", [f32([128, 64])]);
    expectFailure(e, "missing_arg.py", "two_args_kernel", {
      name: "PythonError", code: "E_PY_TypeError", line: 6, says: ["two_args_kernel() missing 1 required positional argument: 'y'"],
    });
  });
});
