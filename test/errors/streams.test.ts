// Stream accessor misuse in single-core kernels: reading or writing past the
// end or after close(), a write stream never closed, a write stream on an
// input, and more streams than a core has slots for.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import { ops, tensor, randn, StreamAccessorError, ReadOnlyTensorError, KernelLimitError, type Library } from "gpsimd";
import { loadFixture, expectFailureKeepsInputs, expectNegateWorks, values } from "../helpers.js";

const LIB = "errors_streams";
const at = (op: string) => `${LIB}::${op} (core 0)`;

describe("stream accessor errors", () => {
  let lib: Library;
  const x = tensor([1, 2, 3, 4, 5]); // float32[5]
  // 3000 elements: the 4 KB stream cache (1024 floats) is refilled and flushed on the way.
  const big = randn([3000], { seed: 3 });

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["streams.ts", "good.ts"], shape: ["register-streams.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  it("reading and writing exactly numel elements is fine", () => {
    expect(values(ops[LIB].read_past_end(x, 0))).toEqual([1, 2, 3, 4, 5]);
    expect(values(ops[LIB].read_past_end(big, 0))).toEqual(values(big));
    expect(values(ops[LIB].write_count(x, 5))).toEqual([0, 1, 2, 3, 4]);
  });

  it("a read past the end names the position and the element count", () => {
    for (const [t, n] of [[x, 5], [big, 3000]] as const) {
      const e = expectFailureKeepsInputs([t], () => ops[LIB].read_past_end(t, 1), StreamAccessorError, "E_STREAM_END", [
        at("read_past_end"), `read stream on argument 0 't_in' (float32[${n}]) read element ${n}, past the end (the tensor has ${n} elements)`,
      ]);
      expect(e.details).toMatchObject({ position: n, numel: n });
    }
  });

  it("a write past the end names the output", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].write_count(x, 6), StreamAccessorError, "E_STREAM_END", [
      at("write_count"), "write stream on the output (float32[5]) wrote element 5, past the end (the tensor has 5 elements)",
    ]);
  });

  it("a read after close()", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].read_after_close(x), StreamAccessorError, "E_STREAM_CLOSED", [
      at("read_after_close"), "read stream on argument 0 't_in' (float32[5]) used after close()",
    ]);
  });

  it("a write after close()", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].write_after_close(x), StreamAccessorError, "E_STREAM_CLOSED", [
      at("write_after_close"), "write stream on the output (float32[5]) used after close()",
    ]);
  });

  it("a write stream never closed is an error that counts the unflushed elements", () => {
    const e = expectFailureKeepsInputs([x], () => ops[LIB].never_closed(x, 3), StreamAccessorError, "E_STREAM_NOT_CLOSED", [
      at("never_closed"), "write stream on the output (float32[5]) was never closed; 3 buffered elements were never written to the tensor",
      "call close()",
    ]);
    expect(e.details).toMatchObject({ pending: 3 });
    // 1027 writes: the first 1024 filled the cache and were flushed, 3 are left in it.
    expectFailureKeepsInputs([big], () => ops[LIB].never_closed(big, 1027), StreamAccessorError, "E_STREAM_NOT_CLOSED", [
      "write stream on the output (float32[3000]) was never closed; 3 buffered elements",
    ]);
  });

  it("a write stream on an input: inputs are read-only", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].write_stream_on_input(x), ReadOnlyTensorError, "E_READ_ONLY", [
      at("write_stream_on_input"), "write through a write stream accessor into argument 0 't_in' (float32[5]), which is an operator input and read-only",
    ]);
  });

  it("more stream accessors than a core has slots for", () => {
    expectFailureKeepsInputs([x], () => ops[LIB].seventeen_streams(x), KernelLimitError, "E_TOO_MANY", [
      at("seventeen_streams"), "more than 16 stream accessors in one launch",
    ]);
  });
});
