// The compiler's process (build/cpp/clang-child.ts) outlives a build's process that exits while clang runs (a script
// that calls process.exit, a Ctrl-C): it must then end quietly. It used to answer into the closed channel, and Node
// printed an unhandled EPIPE error and its stack on the user's terminal (the child's stderr is the build's).
import { describe, it, expect } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("../../dist/build/cpp/clang-child.js", import.meta.url));
const ENTRY = createRequire(import.meta.url).resolve("@yowasp/clang");

/** A compile that takes clang a second or more, so the parent is gone long before it ends. */
const HEAVY = "#include <algorithm>\n#include <map>\n#include <string>\n#include <vector>\n#include <sstream>\n"
  + "std::string f(const std::vector<int>& v) { std::map<int, std::string> m; for (int x : v) { std::ostringstream o; o << x; m[x] = o.str(); } std::string s; for (auto& [k, t] : m) s += t; std::sort(s.begin(), s.end()); return s; }\n";

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

describe("the compiler's process", () => {
  it("ends quietly when the build's process exits while clang runs", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gpsimd-clang-orphan-"));
    try {
      const stderr = path.join(dir, "stderr.txt");
      const parent = path.join(dir, "parent.cjs");
      // The parent starts the child as clang-process.ts does, hands it a compile, and exits without waiting for it.
      writeFileSync(parent, `
        const { fork } = require("node:child_process");
        const fs = require("node:fs");
        const err = fs.openSync(${JSON.stringify(stderr)}, "w");
        const child = fork(${JSON.stringify(CHILD)}, [${JSON.stringify(ENTRY)}], { execArgv: ["--liftoff-only"], serialization: "advanced", stdio: ["ignore", "ignore", err, "ipc"] });
        child.on("message", (m) => {
          if (!m.ready) { console.error("not ready: " + JSON.stringify(m)); process.exit(1); }
          child.send({ id: 1, args: ["clang++", "-O2", "-c", "k.cpp", "-o", "k.o"], files: { "k.cpp": ${JSON.stringify(HEAVY)} } });
          console.log(child.pid);
          // Long enough for the request to reach the child and its compile to start; far shorter than the compile.
          setTimeout(() => process.exit(0), 300);
        });
      `);
      const run = spawnSync(process.execPath, [parent], { encoding: "utf8", timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      const pid = Number(run.stdout.trim());
      expect(pid).toBeGreaterThan(0);
      const deadline = Date.now() + 60_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(alive(pid), "the orphaned compiler process is still running").toBe(false);
      expect(readFileSync(stderr, "utf8")).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
