// Screenshots of the chart pages in a real browser: headless Chromium (Debian's
// `chromium` package; CHROMIUM=path to use another) renders bench/out/<suite>.html
// to <suite>.png beside it. `npm run bench:screenshot -- [suite...]`.
// The flags keep a headless start off the network (this machine has none).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { RESULTS_DIR, resultPath } from "./results.js";
import { SUITES } from "./suites/index.js";

/** The browser, or null. */
export function findChromium(): string | null {
  for (const candidate of [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]) {
    if (candidate && existsSync(candidate)) return candidate;
  }
  return null;
}

/** Renders an HTML file to a PNG of the given size with headless Chromium. */
export function screenshot(browser: string, html: string, png: string, width = 820, height = 1400): void {
  const profile = mkdtempSync(path.join(os.tmpdir(), "gpsimd-chromium-"));
  try {
    execFileSync(browser, [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--hide-scrollbars", `--user-data-dir=${profile}`,
      `--window-size=${width},${height}`, `--screenshot=${png}`, pathToFileURL(html).href,
    ], { stdio: "ignore", timeout: 60_000 });
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const browser = findChromium();
  if (!browser) {
    process.stderr.write("bench:screenshot: no Chromium found (apt-get install chromium, or set CHROMIUM=/path/to/chrome)\n");
    process.exit(2);
  }
  const asked = process.argv.slice(2);
  for (const suite of asked.length ? asked : SUITES.map((s) => s.name)) {
    const html = resultPath(suite, "html");
    if (!existsSync(html)) { process.stderr.write(`bench:screenshot: ${suite}: no ${path.relative(process.cwd(), html)} (run npm run bench -- ${suite} first)\n`); continue; }
    const png = path.join(RESULTS_DIR, `${suite}.png`);
    screenshot(browser, html, png);
    console.log(`${suite}: ${png}`);
  }
}
