// Native floors: native/floors.c compiled at bench time with the system C
// compiler, twice: -O3 -march=native (all the vector width this CPU has) and
// -O3 with SIMD limited to 128 bits (wasm's width), so a ratio separates vector
// width from everything else. Skipped, with the reason, when there is no compiler.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { PACKAGE_ROOT } from "../../ops/index.js";

/** The two builds: name, flags. */
export const NATIVE_BUILDS = {
  "c-native": ["-O3", "-march=native"],
  "c-128bit": ["-O3", "-march=native", "-mno-avx", "-mno-avx2", "-mno-avx512f"],
} as const;
export type NativeBuild = keyof typeof NATIVE_BUILDS;

const SOURCE = path.join(PACKAGE_ROOT, "bench", "floors", "native", "floors.c");

/** The compiler, or why there is none. */
function compiler(): { cc: string } | { missing: string } {
  for (const cc of [process.env.CC, "cc", "gcc", "clang"].filter((c): c is string => !!c)) {
    try {
      execFileSync(cc, ["--version"], { stdio: "ignore" });
      return { cc };
    } catch { /* next */ }
  }
  return { missing: "no C compiler (cc, gcc, clang or $CC) on this machine: native floors skipped" };
}

const built = new Map<NativeBuild, string | { missing: string }>();

/** Path of the build's binary (compiled once, cached in the temp dir by source and flags), or why it is missing. */
export function nativeBinary(build: NativeBuild): string | { missing: string } {
  let found = built.get(build);
  if (found) return found;
  const c = compiler();
  if ("missing" in c) found = c;
  else {
    const flags = NATIVE_BUILDS[build];
    const hash = createHash("sha256").update(readFileSync(SOURCE)).update(c.cc + flags.join(" ")).digest("hex").slice(0, 12);
    const dir = path.join(os.tmpdir(), "gpsimd-bench-floors");
    const bin = path.join(dir, `floors-${build}-${hash}`);
    if (!existsSync(bin)) {
      mkdirSync(dir, { recursive: true });
      try {
        execFileSync(c.cc, [...flags, "-o", bin, SOURCE], { stdio: ["ignore", "ignore", "pipe"] });
      } catch (e) {
        found = { missing: `${c.cc} ${flags.join(" ")} failed: ${(e as { stderr?: Buffer }).stderr?.toString().trim().split("\n")[0] ?? e}` };
      }
    }
    found ??= bin;
  }
  built.set(build, found);
  return found;
}

/** Seconds per call of `calls` calls of a native workload (timed inside the process). */
export function runNative(bin: string, workload: "giou" | "relu-fwd" | "relu-bwd" | "copy-chunks", n: number, calls: number): number {
  return Number(execFileSync(bin, [workload, String(n), String(calls)], { encoding: "utf8" }).trim());
}
