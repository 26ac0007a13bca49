// gpsimd --version, and the device options every command takes (--sanitize, --cores, --threads, --no-checks):
// listed in --help, validated (exit 2), and passed to the library.
import { describe, it, expect } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO } from "../helpers.js";
import { gpsimd } from "./run-cli.js";

describe("gpsimd --version", () => {
  it("prints package.json's version", async () => {
    const r = await gpsimd(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${(JSON.parse(readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string }).version}\n`);
  });
});

describe("device options", () => {
  it("are in every command's --help", async () => {
    for (const command of ["build", "run", "check", "profile"]) {
      const r = await gpsimd([command, "--help"]);
      for (const option of ["--sanitize", "--cores N", "--threads N", "--no-checks"]) expect(r.stdout).toContain(option);
    }
  }, 60_000);

  it("reach the library: --cores 4 runs a multicore operator on 4 cores, with --threads and --no-checks", async () => {
    const r = await gpsimd(["run", "relu_multicore", "relu_forward", "--shape", "100", "--cores", "4", "--threads", "2", "--no-checks"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("relu_multicore::relu_forward(float32[100]) on 4 cores");
  }, 120_000);

  it("are validated: exit 2 with a message naming the option", async () => {
    const threads = await gpsimd(["run", "relu_multicore", "relu_forward", "--shape", "100", "--threads", "0"]);
    expect(threads.code).toBe(2);
    expect(threads.stderr).toBe("--threads \"0\": expected an integer >= 1\n");
    const cores = await gpsimd(["check", "relu_multicore", "relu_forward", "--cores", "65"]);
    expect(cores.code).toBe(2);
    expect(cores.stderr).toBe("--cores 65: expected an integer from 1 to 64\n");
    const sanitize = await gpsimd(["run", path.join(REPO, "build", "out", "librelu_tcm.wasm"), "relu_forward", "--shape", "4", "--sanitize"]);
    expect(sanitize.code).toBe(2);
    expect(sanitize.stderr).toContain("--sanitize:");
  }, 120_000);
});
