// Whole programs against CPython: each case's printed output must equal what python3 printed
// (test/nki/python-cases.ts holds the sources and CPython's output).
import { describe, expect, test } from "vitest";
import { run } from "./python-helpers.js";
import { pythonCases } from "./python-cases.js";

describe("programs print what CPython printed", () => {
  for (const c of pythonCases) {
    test(c.name, () => {
      expect(run(c.source, { file: `/virtual/${c.name}.py` }).out).toBe(c.expected);
    });
  }
});
