// Where this package's files are, found from this file (which runs from
// build/ or dist/build/), and where built libraries go: a per-user cache
// folder, never the installed package (node_modules may be read-only, and
// two projects share one install). Kept apart from asc.ts so the runtime can
// know them without loading the compiler.
import { existsSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { fileURLToPath } from "node:url";
import path from "node:path";

/** The package's root folder: the first folder above this file that holds the kernel library (assembly/index.ts). */
export const PACKAGE_ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)));

/** The kernel library's folder (assembly/). */
export const ASSEMBLY_DIR = path.join(PACKAGE_ROOT, "assembly");
/** The build step's own compiled code (this folder, under dist/): the passes that rewrite every kernel. */
export const BUILD_CODE_DIR = path.dirname(fileURLToPath(import.meta.url));

/** The kernel build's compiler options (targets release, debug, sanitize); kernel authors' asconfig.json extends it. */
export const ASCONFIG_FILE = path.join(PACKAGE_ROOT, "asconfig.json");

/** The host typings shape sources are type-checked against (`import ... from "gpsimd"` on the host). */
export const HOST_TYPINGS = path.join(PACKAGE_ROOT, "dist", "host", "index.d.ts");

/**
 * What C++ builds need that depends only on this install of gpsimd (the device runtime, gpsimd's precompiled
 * headers for the default flags), built once by `npm run build` (build/cpp/prebuild.ts) instead of per user cache.
 */
export const PREBUILT_DIR = path.join(PACKAGE_ROOT, "dist", "prebuilt");

/** The environment variable that moves the cache folder. */
export const CACHE_DIR_ENV = "GPSIMD_CACHE_DIR";

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "assembly", "index.ts"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`gpsimd: cannot find the kernel library (assembly/index.ts) above ${from}`);
  }
}

/** The per-user cache folder: $GPSIMD_CACHE_DIR, else $XDG_CACHE_HOME/gpsimd, else ~/.cache/gpsimd. Read when called, so the environment decides. */
export function cacheDir(): string {
  const own = process.env[CACHE_DIR_ENV];
  if (own) return path.resolve(own);
  const xdg = process.env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(homedir(), ".cache"), "gpsimd");
}

/**
 * Where this install's shipped libraries are built: one folder per version and install place, so two
 * installs (or checkouts) never rebuild each other's libraries back and forth.
 */
export function shippedBuildDir(): string {
  const { version } = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, "package.json"), "utf8")) as { version: string };
  const place = createHash("sha256").update(PACKAGE_ROOT).digest("hex").slice(0, 12);
  return path.join(cacheDir(), "ops", `${version}-${place}`);
}

/** Where custom_op.load builds a library when no build_directory is given. */
export function defaultBuildDir(name: string): string {
  return path.join(cacheDir(), "build", name);
}
