// Repro bundles: a failing check leaves a folder that replays it (sources, reference, inputs as .npy, seed,
// options, version, expected verdict and hashes); a copy in a fresh folder replays to the same verdict and
// output hashes; an edited reference, a changed case generator or a pinned --reference-hash that does not
// match is refused (exit 2); a bundle whose recorded outputs differ says so (exit 1).
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { FIXTURES_DIR, REPO } from "../helpers.js";
import { loadNpy } from "../../host/index.js";
import { gpsimd } from "./run-cli.js";

const TOOLS = path.join(FIXTURES_DIR, "tools");
const TWINS = ["bugs.ts", "register-as.ts", "shape.ts"].map((f) => path.join(FIXTURES_DIR, "cpp", "twins", f));
const sha = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");
let work: string, bundle: string, failing: { stdout: string; code: number; verdict: Record<string, any> };

/** A fresh copy of the check's bundle in a new temporary folder. */
function copyOfBundle(): string {
  const copy = path.join(mkdtempSync(path.join(work, "copy-")), "bundle");
  cpSync(bundle, copy, { recursive: true });
  return copy;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), "gpsimd-repro-"));
  // doubled goes wrong from a size on (test/fixtures/tools/kernels.ts): the check fails with a mismatch.
  const r = await gpsimd(["check", TOOLS, "doubled", "--runs", "30", "--out", path.join(work, "out"), "--json"], work);
  failing = { stdout: r.stdout, code: r.code, verdict: JSON.parse(r.stdout) };
  const made = readdirSync(work).filter((f) => f.startsWith("gpsimd-repro-"));
  expect(made).toEqual(["gpsimd-repro-tools_fixtures_doubled-seed1"]);
  bundle = path.join(work, made[0]);
  expect(r.stderr).toContain(`repro bundle: ${made[0]}`);
}, 240_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("a failing check writes a bundle", () => {
  it("holds the sources, the reference, the inputs as .npy, the options, seed, version and expected verdict", () => {
    expect(failing.code).toBe(1);
    const b = JSON.parse(readFileSync(path.join(bundle, "bundle.json"), "utf8"));
    expect(b).toMatchObject({ format: "gpsimd-repro", version: 1, command: "check", seed: 1, gpsimd: failing.verdict.gpsimd });
    expect(b.argv).toEqual(["src/tools", "doubled", "--runs", "30", "--seed", "1", "--reference-hash", sha(path.join(TOOLS, "reference.ts"))]);
    expect(b.reference).toEqual({ file: "src/tools/reference.ts", sha256: sha(path.join(TOOLS, "reference.ts")) });
    for (const f of ["kernels.ts", "register.ts", "reference.ts"]) expect(readFileSync(path.join(bundle, "src", "tools", f), "utf8")).toBe(readFileSync(path.join(TOOLS, f), "utf8"));
    expect(b.expected).toEqual(failing.verdict);
    expect(b.expected.errors[0]).toMatchObject({ class: "CheckFailure", code: "E_CHECK_MISMATCH" });
    // The shrunk case's input, as .npy: its hash is the verdict's, and it holds the failing case's sizes.
    const [input] = b.inputs;
    expect(sha(path.join(bundle, input.file))).toBe(input.sha256);
    expect(input.sha256).toBe(failing.verdict.inputs[0].sha256);
    expect(loadNpy(path.join(bundle, input.file)).sizes()).toEqual(failing.verdict.check.failingCase.arguments[0].sizes);
    expect(failing.verdict.outputs[0].sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe("gpsimd replay", () => {
  it("replays a copy in a fresh folder to the same verdict and output hashes (exit 0)", async () => {
    const r = await gpsimd(["replay", copyOfBundle()], work);
    expect(r.stdout).toContain("recorded verdict: error: CheckFailure [E_CHECK_MISMATCH]");
    expect(r.stdout).toContain("replayed verdict: error: CheckFailure [E_CHECK_MISMATCH]");
    expect(r.stdout).toContain(`output output float32[${failing.verdict.outputs[0].sizes.join(", ")}] sha256 ${failing.verdict.outputs[0].sha256.slice(0, 16)} same`);
    expect(r.stdout).toContain("SAME");
    expect(r.code).toBe(0);
  });

  it("says DIFFERENT (exit 1) when the recorded output hash is not what the replay gives", async () => {
    const copy = copyOfBundle();
    const file = path.join(copy, "bundle.json");
    const b = JSON.parse(readFileSync(file, "utf8"));
    b.expected.outputs[0].sha256 = "0".repeat(64);
    writeFileSync(file, JSON.stringify(b));
    const r = await gpsimd(["replay", copy], work);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/DIFFERENT:\n  outputs\.0: recorded .*0000000000.*, replayed /);
  });

  it("refuses (exit 2) when the reference was edited since the bundle was made", async () => {
    const copy = copyOfBundle();
    appendFileSync(path.join(copy, "src", "tools", "reference.ts"), "\n// edited\n");
    const r = await gpsimd(["replay", copy], work);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/the reference src\/tools\/reference\.ts changed since the bundle was made \(sha256 [0-9a-f]{12}\.\.\. recorded, [0-9a-f]{12}\.\.\. now\)/);
    expect(r.stdout).not.toContain("SAME");
  });

  it("refuses (exit 2) when the case generator's parameters changed", async () => {
    const copy = copyOfBundle();
    const file = path.join(copy, "bundle.json");
    const b = JSON.parse(readFileSync(file, "utf8"));
    b.argv[b.argv.indexOf("--runs") + 1] = "31";
    writeFileSync(file, JSON.stringify(b));
    const r = await gpsimd(["replay", copy], work);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the case generator changed since the bundle was made");
  });

  it("replays a run's bundle (--save-repro) with its inputs and the error", async () => {
    const dir = path.join(work, "run-bundle");
    const made = await gpsimd(["run", ...TWINS, "accessor_past_end", "--shape", "5", "--seed", "3", "--out", path.join(work, "out"), "--save-repro", dir], work);
    expect(made.code).toBe(1);
    expect(existsSync(path.join(dir, "inputs", "0-t_in.npy"))).toBe(true);
    const r = await gpsimd(["replay", dir], work);
    expect(r.stdout).toContain("recorded verdict: error: AccessorIndexError [E_ACCESSOR_INDEX]");
    expect(r.stdout).toContain("same as inputs/");
    expect(r.code).toBe(0);
  });
});

describe("a bundle of a shipped library's check", () => {
  it("copies in the reference the check found outside the command line's files, names it with --ref, and replays", async () => {
    const dir = path.join(work, "shipped-bundle");
    const made = await gpsimd(["check", "giou_tcm", "giou", "--shape", "n,b,4", "--values", "boxes", "--runs", "3", "--save-repro", dir], work);
    expect(made.code).toBe(0);
    const b = JSON.parse(readFileSync(path.join(dir, "bundle.json"), "utf8"));
    expect(b.argv.slice(-4, -2)).toEqual(["--ref", "src/reference-reference.ts"]);
    expect(readFileSync(path.join(dir, "src", "reference-reference.ts"), "utf8")).toBe(readFileSync(path.join(REPO, "ops", "giou", "reference.ts"), "utf8"));
    const r = await gpsimd(["replay", dir], work);
    expect(r.stdout).toContain("SAME");
    expect(r.code).toBe(0);
  });
});

describe("gpsimd check --reference-hash", () => {
  it("refuses with a clear error (exit 2) when the reference is not the pinned one", async () => {
    const r = await gpsimd(["check", TOOLS, "doubled", "--runs", "3", "--out", path.join(work, "out"), "--reference-hash", "ab".repeat(32), "--json"], work);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is not the one pinned by --reference-hash");
    expect(JSON.parse(r.stdout).errors[0]).toMatchObject({ class: "ReferenceChangedError", code: "E_REFERENCE_CHANGED" });
  });

  it("runs when it is", async () => {
    const r = await gpsimd(["check", TOOLS, "bins", "--arg", "5", "--runs", "3", "--out", path.join(work, "out"), "--reference-hash", sha(path.join(TOOLS, "reference.ts"))], work);
    expect(r.stdout).toContain("OK: 3 cases passed");
    expect(r.code).toBe(0);
  });
});
