// Runs the compiled CLI (dist/cli/gpsimd.js) in a child process, as a user runs it.
import { execFile } from "node:child_process";
import path from "node:path";
import { REPO } from "../helpers.js";

export const CLI = path.join(REPO, "dist", "cli", "gpsimd.js");

export interface CliResult { code: number; stdout: string; stderr: string; }

/** Runs the CLI with args in cwd; resolves with its exit code and output (never rejects on a non-zero exit). */
export function gpsimd(args: string[], cwd = REPO): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { cwd, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
