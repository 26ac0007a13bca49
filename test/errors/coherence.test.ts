// Coherence policy: potentially incoherent accessors on one tensor are an
// error under COHERENT (the default), a warning under INCOHERENT_VERBOSE and
// nothing under INCOHERENT_QUIET; safe combinations always pass.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import { ops, tensor, CoherenceError, type Library, type Tensor } from "gpsimd";
import { loadFixture, expectFailureKeepsInputs, expectNegateWorks, captureOutput, values } from "../helpers.js";

const LIB = "errors_coherence";
const at = (op: string) => `${LIB}::${op} (core 0)`;
// Policy values, as assembly/coherence.ts numbers them.
const COHERENT = 0, INCOHERENT_VERBOSE = 1, INCOHERENT_QUIET = 2;

const x = tensor([1, 2, 3, 4, 5]);
const OUTPUT = "the output (float32[5])";
const T_IN = "argument 0 't_in' (float32[5])";

/** Each incoherent use: the operator, what it computes (from x), and the accessor pair and tensor its error names. */
const INCOHERENT: { op: string; expected: (v: number) => number; text: string }[] = [
  { op: "stream_and_elementwise", expected: (v) => 2 * v, text: `element-wise accessor opened on ${OUTPUT} while a write stream accessor is active` },
  { op: "two_write_streams", expected: (v) => v, text: `write stream accessor opened on ${OUTPUT} while a write stream accessor is active` },
  { op: "read_and_write_stream", expected: (v) => v, text: `write stream accessor opened on ${OUTPUT} while a read stream accessor is active` },
  { op: "elementwise_then_stream", expected: (v) => v + 1, text: `read stream accessor opened on ${T_IN} while an element-wise accessor is active` },
];

describe("coherence policy", () => {
  let lib: Library;
  const call = (op: string, ...args: unknown[]): Tensor => ops[LIB][op](...args);

  beforeAll(() => {
    lib = loadFixture({ group: "errors", name: LIB, compute: ["coherence.ts", "good.ts"], shape: ["register-coherence.ts", "shape.ts"] });
  });
  afterAll(() => lib.unload());
  afterEach(() => expectNegateWorks(ops[LIB].negate));

  for (const { op, text } of INCOHERENT) {
    it(`${op}: a CoherenceError under COHERENT`, () => {
      const e = expectFailureKeepsInputs([x], () => call(op, x, COHERENT), CoherenceError, "E_INCOHERENT", [
        at(op), text, "potentially incoherent under the COHERENT policy",
      ]);
      expect(e.details).toMatchObject({ policy: "COHERENT" });
    });
  }

  for (const { op, expected, text } of INCOHERENT) {
    it(`${op}: a warning under INCOHERENT_VERBOSE, and the call succeeds`, () => {
      const out = captureOutput(() => call(op, x, INCOHERENT_VERBOSE));
      expect(values(out.result)).toEqual(values(x).map(expected));
      expect(out.warnings).toHaveLength(1);
      expect(out.warnings[0]).toContain(`${at(op)}: ${text}`);
      expect(out.warnings[0]).toContain("INCOHERENT_VERBOSE");
    });
  }

  for (const { op, expected } of INCOHERENT) {
    it(`${op}: nothing under INCOHERENT_QUIET`, () => {
      const out = captureOutput(() => call(op, x, INCOHERENT_QUIET));
      expect(values(out.result)).toEqual(values(x).map(expected));
      expect(out.warnings).toEqual([]);
      expect(out.printf).toEqual([]);
    });
  }

  it("the policy set in one call does not carry over to the next", () => {
    captureOutput(() => call("two_write_streams", x, INCOHERENT_QUIET));
    expectFailureKeepsInputs([x], () => call("two_write_streams", x, COHERENT), CoherenceError, "E_INCOHERENT");
  });

  it("safe uses pass without warnings: several read streams; streams closed before other accessors open", () => {
    const out = captureOutput(() => [call("three_readers", x), call("write_then_read_back", x)]);
    expect(values(out.result[0])).toEqual(values(x).map((v) => 3 * v));
    expect(values(out.result[1])).toEqual(values(x).map((v) => v + 1));
    expect(out.warnings).toEqual([]);
  });
});
