// --save-repro DIR: a folder that replays a run or check exactly. It holds
// copies of every file and folder the command line named (kernel sources,
// shape functions, the NKI file, the reference), the command line rewritten
// to use them, the inputs as .npy, and the expected verdict with its input
// and output hashes (bundle.json). gpsimd replay DIR reruns it (cli/replay.ts).
import { cpSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Verdict } from "../host/verdict/verdict.js";
import { callReport } from "./report.js";

/** The bundle format's name and version (bundle.json). */
export const BUNDLE_FORMAT = "gpsimd-repro";
export const BUNDLE_VERSION = 1;

export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  version: typeof BUNDLE_VERSION;
  /** The gpsimd version that made it. */
  gpsimd: string;
  command: string;
  /** The command line, relative to the bundle folder. */
  argv: string[];
  seed?: number;
  /** The reference module (check): its path in the bundle and the sha256 of its text. */
  reference?: { file: string; sha256: string };
  /** sha256 of the case generator's parameters (check). */
  generatorSha256?: string;
  inputs: { file: string; name: string; dtype: string; sizes: number[]; sha256: string }[];
  /** The verdict of the call the bundle was made from. */
  expected: Verdict;
}

/** Options whose values are places the command writes, not sources: left out of a bundle's command line. */
const OUTPUT_OPTIONS = new Set(["--out", "--trace"]);

/** Where a failing check's bundle goes unless --save-repro names a folder: gpsimd-repro-<op>-seed<seed>. */
export function defaultBundleFolder(verdict: Verdict): string {
  const op = String(verdict.target?.op ?? verdict.target?.kernel ?? "call").replace(/[^\w.-]+/g, "_");
  return `gpsimd-repro-${op}-seed${verdict.check?.seed ?? 0}`;
}

/** Copies each path argv names into folder/src; returns argv rewritten to the copies, and each copy's original (absolute). */
function bundleSources(folder: string, argv: string[]): { argv: string[]; copies: Map<string, string> } {
  const out: string[] = [];
  const copies = new Map<string, string>();
  const taken = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (OUTPUT_OPTIONS.has(word)) { i++; continue; }
    const stat = word.startsWith("-") ? undefined : statSync(word, { throwIfNoEntry: false });
    if (!stat || !(stat.isFile() || stat.isDirectory())) { out.push(word); continue; }
    let name = path.basename(path.resolve(word));
    for (let k = 2; taken.has(name); k++) name = `${k}-${path.basename(path.resolve(word))}`;
    taken.add(name);
    // A folder's build output is not a source: the replay builds again.
    cpSync(word, path.join(folder, "src", name), { recursive: true, filter: (src) => !/(^|[/\\])(node_modules|build|dist)$/.test(src) && !src.endsWith(".wasm") });
    out.push(`src/${name}`);
    copies.set(path.resolve(word), `src/${name}`);
  }
  return { argv: out, copies };
}

/**
 * The reference module a check used, inside the bundle: --ref's copy; without --ref, the one the check found (an
 * operator folder's reference.ts, a manifest's, a shipped library's) is copied in and named with --ref, so the
 * replay uses that text even where it lay outside the folders copied.
 */
function bundledReference(folder: string, argv: string[], used: unknown, copies: Map<string, string>): { argv: string[]; file?: string } {
  const i = argv.indexOf("--ref");
  if (i >= 0) return { argv, file: argv[i + 1]?.startsWith("src/") ? argv[i + 1] : undefined };
  if (typeof used !== "string" || !existsSync(used)) return { argv };
  // Inside a copied folder: the check finds the copy itself.
  for (const [original, copy] of copies) {
    const inside = path.relative(original, path.resolve(used));
    if (inside && !inside.startsWith("..") && !path.isAbsolute(inside)) return { argv, file: `${copy}/${inside.split(path.sep).join("/")}` };
  }
  const file = `src/reference-${path.basename(used)}`;
  cpSync(used, path.join(folder, file));
  return { argv: [...argv, "--ref", file], file };
}

/** Writes the bundle of a call that gave `verdict`. */
export function saveBundle(folder: string, command: string, argv: string[], verdict: Verdict): Bundle {
  mkdirSync(path.join(folder, "inputs"), { recursive: true });
  const sources = bundleSources(folder, argv);
  let args = sources.argv;
  const seed = verdict.check?.seed;
  // The seed is pinned even where it was the default: a later default must not change the replay.
  if (seed !== undefined && !args.includes("--seed")) args = [...args, "--seed", String(seed)];
  let refFile: string | undefined;
  if (command === "check") ({ argv: args, file: refFile } = bundledReference(folder, args, verdict.target?.reference, sources.copies));
  const refHash = verdict.check?.referenceSha256;
  if (refHash && !args.includes("--reference-hash")) args = [...args, "--reference-hash", refHash];
  const inputs = callReport().inputs.map((input, k) => {
    const file = `inputs/${k}-${input.name.replace(/[^\w.-]+/g, "_")}.npy`;
    writeFileSync(path.join(folder, file), input.npy);
    return { file, name: input.name, dtype: input.dtype, sizes: input.sizes, sha256: input.sha256 };
  });
  const bundle: Bundle = {
    format: BUNDLE_FORMAT, version: BUNDLE_VERSION, gpsimd: verdict.gpsimd, command, argv: args, seed,
    reference: refFile && refHash ? { file: refFile, sha256: refHash } : undefined,
    generatorSha256: verdict.check?.generatorSha256, inputs, expected: verdict,
  };
  writeFileSync(path.join(folder, "bundle.json"), `${JSON.stringify(bundle, null, 2)}\n`);
  writeFileSync(path.join(folder, "verdict.json"), `${JSON.stringify(verdict, null, 2)}\n`);
  return bundle;
}
