// The benchmark chart page: self-contained (nothing fetched, so it renders
// offline), one panel per workload, floors drawn as reference lines, ratios
// and latency shown; and, where Chromium is installed, rendered by a real browser.
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, statSync, writeFileSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { renderChart } from "../../dist/bench/chart.js";
import { findChromium, screenshot } from "../../dist/bench/screenshot.js";
import type { SuiteResults } from "../../dist/bench/results.js";

/** A suite's results as the harness saves them: two workloads, one with floors and latency, one paired. */
function results(): SuiteResults {
  const env = { date: "2026-11-23T10:00:00.000Z", node: "v20", v8: "11", cpus: 2, cpuModel: "test CPU", platform: "linux-x64", load: 0.5 };
  const tol = { abs: 0, rel: 0 };
  return {
    benny: {
      name: "demo", date: "d", results: [
        { name: "giou/tcm", ops: 1, margin: 1, samples: 5, details: { median: 1.4e-3, mean: 0, min: 0, max: 0, sampleResults: [] } },
        { name: "giou/naive-ts", ops: 1, margin: 1, samples: 5, details: { median: 70e-3, mean: 0, min: 0, max: 0, sampleResults: [] } },
        { name: "pair/checks-on", ops: 1, margin: 1, samples: 5, details: { median: 1.05e-3, mean: 0, min: 0, max: 0, sampleResults: [] } },
        { name: "pair/checks-off", ops: 1, margin: 1, samples: 5, details: { median: 1e-3, mean: 0, min: 0, max: 0, sampleResults: [] } },
      ],
    },
    meta: {
      suite: "demo", title: "A <demo> suite", notes: ["a note"], environment: env, bennyDate: "d",
      workloads: [
        { name: "giou", title: "W1 GIOU", baseline: "naive-ts", elements: 262144, tolerance: tol, maxError: { tcm: 0, "naive-ts": 0 } },
        { name: "pair", title: "Checks", baseline: "checks-off", elements: 262144, tolerance: tol, maxError: { "checks-on": 0, "checks-off": 0 } },
      ],
      latency: { "giou/tcm": { calls: 100, p50: 1400, p90: 1500, p99: 1900, mean: 1450 } },
      paired: { pair: { a: "checks-on", b: "checks-off", ratio: 1.05, low: 0.98, high: 1.12, rounds: 20 } },
      floors: { giou: { rounds: 10, titles: { "wasm-1t": "plain wasm, one thread" }, seconds: { "wasm-1t": 1e-3, tcm: 1.4e-3 }, ratios: { "tcm/wasm-1t": { ratio: 1.4, low: 1.3, high: 1.6 } } } },
    },
  };
}

describe("bench chart page", () => {
  const html = renderChart(results());

  it("is self-contained: no scripts, no external URLs", () => {
    expect(html).not.toMatch(/<script|https?:\/\/|src=/i);
    expect(html.startsWith("<!doctype html>")).toBe(true);
  });

  it("draws a panel per workload with the time per element, escaped titles", () => {
    expect(html.match(/<section>/g)).toHaveLength(2);
    expect(html).toContain("A &lt;demo&gt; suite");
    // 1.4 ms over 262,144 elements = 5.34 ns per element, 70 ms = 267 ns.
    expect(html).toContain("5.34 ns");
    expect(html).toContain("267 ns");
  });

  it("draws each floor as a dashed reference line with its value, and the ratios to it", () => {
    expect(html.match(/class="floor"/g)?.length).toBeGreaterThanOrEqual(2); // the floor line, and the +10 % line of the pair
    expect(html).toContain("floor wasm-1t = 3.81 ns"); // 1 ms / 262,144
    expect(html).toMatch(/<td>tcm<\/td><td>wasm-1t<\/td><td>1\.40x<\/td><td>1\.30x \.\. 1\.60x<\/td>/);
  });

  it("shows latency percentiles and the paired overhead with its range", () => {
    expect(html).toMatch(/<td>tcm<\/td><td>100<\/td><td>1400 µs<\/td><td>1500 µs<\/td><td>1900 µs<\/td>/);
    expect(html).toContain("+5.0% (median of 20 alternating rounds; rounds -2.0% .. +12.0%");
  });

  it.skipIf(!findChromium())("renders in headless Chromium", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gpsimd-chart-"));
    const file = path.join(dir, "demo.html"), png = path.join(dir, "demo.png");
    writeFileSync(file, html);
    screenshot(findChromium()!, file, png, 820, 700);
    expect(existsSync(png)).toBe(true);
    const bytes = readFileSync(png);
    expect(bytes.subarray(1, 4).toString()).toBe("PNG");
    expect(statSync(png).size).toBeGreaterThan(10_000); // a blank page compresses to a few KB
  }, 60_000);
});
