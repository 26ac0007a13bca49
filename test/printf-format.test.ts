// Kernel printf's floating conversions as C's printf writes them: exact decimal digits rounded to nearest with
// ties to even (JavaScript's toFixed / toExponential round ties up: 0.125 to "0.13"), every integer digit of a
// large %f (toFixed switches to exponent form from 1e21), and %a in hexadecimal. The expected strings are what
// C prints (glibc and Python's % agree on these; %a as musl, the kernels' C library, normalises).
import { describe, it, expect } from "vitest";
import { formatPrintf } from "../host/cores/printf-format.js";

const f = (fmt: string, ...values: number[]) => formatPrintf(fmt, values.map((value) => ({ kind: "float" as const, value })));

describe("printf floating conversions", () => {
  it("rounds exact ties to even in %f, %e and %g", () => {
    expect(f("%.2f %.0f %.0f %.0f %.1f", 0.125, 2.5, 0.5, 1.5, 0.25)).toBe("0.12 2 0 2 0.2");
    expect(f("%.2f %.2f", -0.125, 0.375)).toBe("-0.12 0.38");
    expect(f("%.1e %.0e %.0e", 1.25, 2.5, 3.5)).toBe("1.2e+00 2e+00 4e+00");
    expect(f("%.2g %.1g", 0.125, 2.5)).toBe("0.12 2");
  });

  it("keeps non-ties as C does (the exact binary value decides)", () => {
    expect(f("%.2f %.2f %.1f", 2.675, 1.005, 0.35)).toBe("2.67 1.00 0.3");
    expect(f("%.20f", 0.1)).toBe("0.10000000000000000555");
    expect(f("%.17g %.10g", 0.1, 0.1)).toBe("0.10000000000000001 0.1");
  });

  it("writes every digit of a large %f", () => {
    expect(f("%.1f", 1e22)).toBe("10000000000000000000000.0");
    expect(f("%f", 2 ** 70)).toBe("1180591620717411303424.000000");
  });

  it("carries rounding into the exponent and picks %g's style from the rounded exponent", () => {
    expect(f("%.2e %g %g %g", 9.996, 9.9999999, 999999.5, 0.00009999995)).toBe("1.00e+01 10 1e+06 0.0001");
    expect(f("%g %g %g %G", 100000, 1000000, 1e-5, 1e-10)).toBe("100000 1e+06 1e-05 1E-10");
    expect(f("%.3g %#.3g %#g %.0g %#.0g", 0.0001235, 1, 0, 15, 15)).toBe("0.000123 1.00 0.00000 2e+01 2.e+01");
  });

  it("keeps flags, widths, signs and the alternate form", () => {
    expect(f("%010.3f|%+.3e|%-9.2f|% .1f|%#.0f|%#.0e", -3.14159, 123456, 1.5, 2, 3, 3)).toBe("-00003.142|+1.235e+05|1.50     | 2.0|3.|3.e+00");
    expect(f("%f %e %g", -0, 0, -0)).toBe("-0.000000 0.000000e+00 -0");
  });

  it("writes %a in hexadecimal", () => {
    expect(f("%a|%a|%A|%a|%#a", 3, 0.1, -0.5, 0, 1)).toBe("0x1.8p+1|0x1.999999999999ap-4|-0X1P-1|0x0p+0|0x1.p+0");
    expect(f("%.2a|%.1a|%.0a|%.0a|%.3a", 1.999, 1.96875, 1.5, 2.5, 1)).toBe("0x1.00p+1|0x1.0p+1|0x1p+1|0x1p+1|0x1.000p+0");
    expect(f("%a", 5e-324)).toBe("0x1p-1074");
  });
});
