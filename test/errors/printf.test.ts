// Kernel printf: shown after the operator under a header naming the operator
// and the core, C formatting, a ring of NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES
// that keeps the newest text, 0 disabling it, and invalid sizes rejected. The
// variable is read when a library loads (as the Neuron runtime reads it when
// it starts), so each case sets it and then reloads the library.
import { describe, it, expect, beforeAll, afterAll, afterEach } from "vitest";
import { ops, tensor, OptionError, type Library } from "gpsimd";
import { loadFixture, captureOutput, expectGpsimdError, values } from "../helpers.js";

const LIB = "errors_printf";
const ENV = "NEURON_RT_GPSIMD_STDOUT_QUEUE_SIZE_BYTES";

/** The header line the host prints before a core's text. */
function header(op: string): RegExp {
  return new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  gpsimd: Printing stdout from GPSIMD \\(${LIB}::${op}, core 0\\):\\n`);
}

/** The text the kernel `lines` prints for count lines. */
function linesText(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i}\n`).join("");
}

describe("printf", () => {
  let lib: Library;
  const x = tensor([1, 2, 3]);
  const saved = process.env[ENV];

  const load = () => loadFixture({ group: "errors", name: LIB, compute: ["printf.ts"], shape: ["register-printf.ts", "shape.ts"] });
  /** Sets the ring size and reloads the library, which reads it. */
  function reloadWithRing(bytes: string): void {
    process.env[ENV] = bytes;
    lib.unload();
    lib = load();
  }

  beforeAll(() => { lib = load(); });
  afterAll(() => lib.unload());
  afterEach(() => {
    if (saved === undefined) delete process.env[ENV];
    else process.env[ENV] = saved;
    lib.unload(); // a no-op when the case unloaded it already
    lib = load();
  });

  it("the text comes after the operator, in one block under a header naming the operator and the core", () => {
    const out = captureOutput(() => ops[LIB].formats(x));
    expect(values(out.result)).toEqual([0]);
    expect(out.printf).toHaveLength(1);
    expect(out.printf[0]).toMatch(header("formats"));
    expect(out.printf[0].replace(header("formats"), "")).toBe("d=-42 f= 3.14 s=str x=ff c=A pct=%\nnumel=3\n");
    expect(out.warnings).toEqual([]);
  });

  it("each call shows only its own text", () => {
    const out = captureOutput(() => [ops[LIB].lines(x, 2), ops[LIB].lines(x, 3)]);
    expect(out.printf.map((block) => block.replace(header("lines"), ""))).toEqual([linesText(2), linesText(3)]);
  });

  it("the size in force is the one the library loaded with: a later change of the variable waits for the next load", () => {
    process.env[ENV] = "64";
    const out = captureOutput(() => ops[LIB].lines(x, 12));
    expect(out.printf[0].replace(header("lines"), "")).toBe(linesText(12));
  });

  it("a full ring keeps the newest bytes and says how many were overwritten", () => {
    reloadWithRing("64");
    const full = linesText(12); // 70 bytes into a 64-byte ring
    const out = captureOutput(() => ops[LIB].lines(x, 12));
    expect(out.printf).toHaveLength(1);
    const body = out.printf[0].replace(header("lines"), "");
    expect(body).toBe(`[${full.length - 64} earlier bytes overwritten: the printf ring holds the last 64]\n${full.slice(-64)}`);
  });

  it("a ring of 0 bytes disables printf", () => {
    reloadWithRing("0");
    const out = captureOutput(() => ops[LIB].lines(x, 5));
    expect(values(out.result)).toEqual([0]);
    expect(out.printf).toEqual([]);
  });

  it("a size that is not a power of two, or above 128 KB, is an OptionError naming the variable when the library loads; a valid one then works", () => {
    lib.unload();
    for (const bad of ["100", "262144", "lots"]) {
      process.env[ENV] = bad;
      expectGpsimdError(load, OptionError, "E_OPTION", [
        `${ENV}=${bad}: expected a power of two no larger than 131072 (128 KB), or 0 to disable printf`,
      ]);
    }
    process.env[ENV] = "128";
    lib = load();
    const out = captureOutput(() => ops[LIB].lines(x, 2));
    expect(out.printf.map((block) => block.replace(header("lines"), ""))).toEqual([linesText(2)]);
  });
});
