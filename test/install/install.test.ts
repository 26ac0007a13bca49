// gpsimd as a dependency, tried as a user would from a fresh clone: a consumer
// project outside the repository (test/fixtures/consumer, copied under the
// system's temp dir) installs it three ways — the tarball of `npm pack`, the
// folder of a checkout, git+file:// — and then imports it, type-checks
// against it, runs its CLI, builds its own kernel and loads a shipped
// operator. The clone is of the committed HEAD. Installs reach the npm
// registry (or npm's cache) for gpsimd's dependencies; the git install also
// installs the devDependencies (npm does, to run prepare): minutes, not
// seconds, hence the timeouts.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, FIXTURES_DIR } from "../helpers.js";

const WORK = realpathSync(mkdtempSync(path.join(tmpdir(), "gpsimd-install-")));
const CLONE = path.join(WORK, "gpsimd");
const TSC = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
const MINUTES = 60_000;

/** The environment of every command: without the npm_* variables of the `npm test` that may be running us. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")));

/** Runs a command; its stdout, or an error carrying its output. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(command, args, { cwd, env: { ...ENV, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} (in ${cwd}) failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

const npm = (args: string[], cwd: string) => run("npm", [...args, "--no-audit", "--no-fund"], cwd);

/** Seconds each step took, printed at the end (the suite's slowest file). */
const timings: [string, number][] = [];
function timed<T>(what: string, fn: () => T): T {
  const t0 = performance.now();
  try { return fn(); } finally { timings.push([what, (performance.now() - t0) / 1000]); }
}

/** A consumer project: the fixture copied to WORK/<name>, then `npm install <spec>`. */
function consumer(name: string, spec: string): string {
  const dir = path.join(WORK, name);
  cpSync(path.join(FIXTURES_DIR, "consumer"), dir, { recursive: true });
  timed(`npm install (${name})`, () => npm(["install", spec], dir));
  return dir;
}

let tarballFiles: string[] = [];
let tarball = "";
const consumers: Record<string, string> = {};

beforeAll(() => {
  timed("git clone", () => run("git", ["clone", "--quiet", REPO, CLONE], WORK));
  // The README's first step in a checkout, without its prepare: npm pack runs prepare (builds dist/) right after,
  // and so does the folder install (npm runs prepare in a linked folder), which then finds dist/ built.
  timed("npm install --ignore-scripts (checkout)", () => npm(["install", "--ignore-scripts"], CLONE));
  timed("npm pack (checkout)", () => {
    const [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", WORK], CLONE)) as { filename: string; files: { path: string }[] }[];
    tarballFiles = packed.files.map((f) => f.path);
    tarball = path.join(WORK, packed.filename);
  });
  consumers.tarball = consumer("from-tarball", tarball);
  consumers.folder = consumer("from-folder", CLONE);
  consumers.git = consumer("from-git", `git+${pathToFileURL(CLONE).href}`);
}, 20 * MINUTES);

afterAll(() => {
  process.stdout.write(`install test timings (s): ${timings.map(([w, s]) => `${w} ${s.toFixed(1)}`).join(", ")}\n`);
  rmSync(WORK, { recursive: true, force: true });
});

describe("a fresh clone", () => {
  it("keeps its lockfile as committed through npm install", () => {
    expect(run("git", ["status", "--porcelain"], CLONE)).toBe("");
  });

  it("packs what users need and nothing else", () => {
    for (const needed of ["LICENSE", "README.md", "package.json", "index.ts", "asconfig.json", "assembly/index.ts", "assembly/tsconfig.json",
      "dist/host/index.js", "dist/host/index.d.ts", "dist/cli/gpsimd.js", "dist/ops/index.js", "dist/ops/index.d.ts",
      "dist/build/compile-worker.js", "ops/relu/tcm.ts", "ops/relu/register-tcm.ts", "include/torch/torch.h", "include/gpsimd/abi.h"]) {
      expect(tarballFiles).toContain(needed);
    }
    const unwanted = tarballFiles.filter((f) => /^(test|bench|examples|\.ci|build|dist\/(examples|bench|test))\//.test(f) || /^(tsconfig|vitest\.config|package-lock)/.test(f));
    expect(unwanted).toEqual([]);
    expect(readFileSync(path.join(CLONE, "LICENSE"), "utf8")).toContain("Apache License\n                           Version 2.0");
  });
});

describe.each(["tarball", "folder", "git"])("installed from the %s", (how) => {
  const dir = () => consumers[how];
  const installed = () => realpathSync(path.join(dir(), "node_modules", "gpsimd"));

  it("imports as ESM and as require()", () => {
    const esm = run(process.execPath, ["--input-type=module", "-e", `import { custom_op } from "gpsimd"; import { OP_LIBRARIES, loadOp } from "gpsimd/ops"; console.log(typeof custom_op.load, typeof loadOp, Object.keys(OP_LIBRARIES).includes("relu_tcm"))`], dir());
    expect(esm.trim()).toBe("function function true");
    const cjs = run(process.execPath, ["-e", `console.log(typeof require("gpsimd").custom_op.load)`], dir());
    expect(cjs.trim()).toBe("function");
  });

  it("runs the CLI through npx: --help, and --version prints the installed package.json's version", () => {
    expect(run("npx", ["gpsimd", "--help"], dir())).toMatch(/^usage: gpsimd <command>/);
    const { version } = JSON.parse(readFileSync(path.join(installed(), "package.json"), "utf8")) as { version: string };
    expect(version).toBe((JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }).version);
    expect(run("npx", ["gpsimd", "--version"], dir())).toBe(`${version}\n`);
  });

  it("type-checks the consumer's host code against gpsimd's typings", () => {
    timed(`tsc host (${how})`, () => run(process.execPath, [TSC, "-p", "."], dir()));
    expect(existsSync(path.join(dir(), "dist", "main.js"))).toBe(true);
  });

  it("type-checks a kernel through gpsimd/assembly/tsconfig.json (\"gpsimd\" is the kernel library)", () => {
    timed(`tsc kernels (${how})`, () => run(process.execPath, [TSC, "-p", "kernels"], dir()));
  });

  it("compiles a kernel with a plain asc and the consumer's asconfig.json extending gpsimd's", () => {
    const assemblyscript = path.dirname(createRequire(path.join(installed(), "package.json")).resolve("assemblyscript/package.json"));
    const bin = path.join(assemblyscript, "bin", "asc.js");
    timed(`asc (${how})`, () => run(process.execPath, [bin, "kernels/scale.ts", "--target", "debug", "--noEmit"], dir()));
  });

  it("builds its own kernel and loads a shipped operator, into the per-user cache only", () => {
    const cache = path.join(dir(), "cache");
    mkdirSync(cache, { recursive: true });
    const out = timed(`run (${how})`, () => run(process.execPath, ["dist/main.js"], dir(), { GPSIMD_CACHE_DIR: cache }));
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as { scaled: number[]; relu: number[]; libraries: string[] };
    expect(result.scaled).toEqual([2, -4, 7]);
    expect(result.relu).toEqual([0, 2, 0, 4]);
    for (const file of result.libraries) expect(file.startsWith(cache + path.sep)).toBe(true);
    // The CLI finds the shipped library in the same cache (it used to build into node_modules/gpsimd/build/out).
    expect(run("npx", ["gpsimd", "run", "relu_tcm", "relu_forward", "--shape", "8"], dir(), { GPSIMD_CACHE_DIR: cache })).toContain("relu_tcm::relu_forward");
    expect(existsSync(path.join(installed(), "build", "out"))).toBe(false);
  }, 5 * MINUTES);
});
