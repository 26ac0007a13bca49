// What a kernel author's tools rely on inside this repository: shape sources
// type-checked at build (a mistake is a BuildError with file:line:column),
// the build compiling with asconfig.json, built libraries in the per-user
// cache folder, and the lockfile's root entry mirroring package.json (npm
// rewrites the lockfile on `npm install` when they differ).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { custom_op, ops, tensor, BuildError, type Library } from "gpsimd";
import { typeCheckShapeSources, collectShapeFiles } from "../../dist/build/shape-sources.js";
import { ASCONFIG_FILE, cacheDir, defaultBuildDir } from "../../dist/build/paths.js";
import { REPO, FIXTURES_DIR } from "../helpers.js";

const DIR = path.join(FIXTURES_DIR, "shape-check");
const at = (f: string) => path.join(DIR, f);
const loaded: Library[] = [];
const CACHE = mkdtempSync(path.join(tmpdir(), "gpsimd-cache-"));

afterAll(() => {
  for (const lib of loaded) lib.unload();
  rmSync(CACHE, { recursive: true, force: true });
});

/** The BuildError custom_op.load throws for a shape source, with its messages. */
function buildError(shape: string): BuildError {
  try {
    loaded.push(custom_op.load({ name: path.basename(shape, ".ts").replace(/-/g, "_"), compute_srcs: [at("kernel.ts")], shape_srcs: [at(shape)], build_directory: CACHE }));
  } catch (e) {
    expect(e).toBeInstanceOf(BuildError);
    return e as BuildError;
  }
  throw new Error(`custom_op.load built ${shape}`);
}

describe("shape sources are type-checked at build", () => {
  it("a misspelt import fails the build with file:line:column", () => {
    const e = buildError("register-misspelt.ts");
    expect(e.code).toBe("E_BUILD");
    expect(e.message).toContain(`${at("register-misspelt.ts")}:2:33: error: '"gpsimd"' has no exported member named 'kFlaot'. Did you mean 'kFloat'?`);
  });

  it("an argument of the wrong type fails the build with file:line:column", () => {
    const e = buildError("register-wrong-type.ts");
    expect(e.message).toContain(`${at("register-wrong-type.ts")}:5:42: error: Argument of type 'number' is not assignable to parameter of type 'readonly number[]'`);
  });

  it("correct sources pass, with or without Node (console, node:path, process)", () => {
    for (const shape of ["register.ts", "register-node.ts"]) expect(typeCheckShapeSources(collectShapeFiles([at(shape)]))).toEqual([]);
  });

  it("every shipped library's shape sources pass", async () => {
    const { OP_LIBRARIES } = await import("../../dist/ops/index.js");
    for (const entry of Object.values(OP_LIBRARIES)) {
      expect(typeCheckShapeSources(collectShapeFiles(entry.shape.map((f) => path.join(REPO, "ops", f))))).toEqual([]);
    }
  });
});

describe("the kernel build", () => {
  it("compiles with asconfig.json, into the per-user cache when no build_directory is given", () => {
    const saved = process.env.GPSIMD_CACHE_DIR;
    process.env.GPSIMD_CACHE_DIR = CACHE;
    try {
      const lib = custom_op.load({ name: "shape_check_ok", compute_srcs: [at("kernel.ts")], shape_srcs: [at("register.ts")] });
      loaded.push(lib);
      expect(lib.path).toBe(path.join(CACHE, "build", "shape_check_ok", "libshape_check_ok.wasm"));
      expect(lib.manifest.inputs).toContain(ASCONFIG_FILE);
      expect(ops.shape_check_ok.twice(tensor([1, -2.5])).tolist()).toEqual([2, -5]);
    } finally {
      if (saved === undefined) delete process.env.GPSIMD_CACHE_DIR; else process.env.GPSIMD_CACHE_DIR = saved;
    }
  });

  it("asconfig.json has the targets release, debug and sanitize", () => {
    const config = JSON.parse(readFileSync(ASCONFIG_FILE, "utf8")) as { targets: Record<string, unknown> };
    expect(Object.keys(config.targets).sort()).toEqual(["debug", "release", "sanitize"]);
  });
});

describe("the per-user cache folder", () => {
  const env = (vars: Record<string, string | undefined>, fn: () => void) => {
    const saved = { GPSIMD_CACHE_DIR: process.env.GPSIMD_CACHE_DIR, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, HOME: process.env.HOME };
    Object.assign(process.env, vars);
    for (const [k, v] of Object.entries(vars)) if (v === undefined) delete process.env[k];
    try { fn(); } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
    }
  };

  it("is GPSIMD_CACHE_DIR, else XDG_CACHE_HOME/gpsimd, else ~/.cache/gpsimd", () => {
    env({ GPSIMD_CACHE_DIR: "/c/own", XDG_CACHE_HOME: "/c/xdg" }, () => expect(cacheDir()).toBe("/c/own"));
    env({ GPSIMD_CACHE_DIR: undefined, XDG_CACHE_HOME: "/c/xdg" }, () => expect(cacheDir()).toBe("/c/xdg/gpsimd"));
    env({ GPSIMD_CACHE_DIR: undefined, XDG_CACHE_HOME: "relative", HOME: "/home/u" }, () => expect(cacheDir()).toBe("/home/u/.cache/gpsimd"));
    env({ GPSIMD_CACHE_DIR: undefined, XDG_CACHE_HOME: undefined, HOME: "/home/u" }, () => expect(defaultBuildDir("x")).toBe("/home/u/.cache/gpsimd/build/x"));
  });
});

describe("the lockfile", () => {
  it("mirrors package.json in its root entry, so npm install leaves it as committed", () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as Record<string, unknown>;
    const root = (JSON.parse(readFileSync(path.join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, Record<string, unknown>> }).packages[""];
    for (const field of ["name", "version", "license", "bin", "engines", "dependencies", "devDependencies", "peerDependencies", "peerDependenciesMeta", "optionalDependencies"]) {
      expect({ field, value: root[field] }).toEqual({ field, value: pkg[field] });
    }
  });
});
