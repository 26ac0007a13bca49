// NKI kernels on gpsimd: the GIOU blog's giou_kernel on its 1024 x 256 box
// pairs and the tensor add seed on a 4096 x 4096 grid of 128 x 512 tiles,
// against the plain-wasm floor of the same arithmetic measured in the same
// run (the suite prints each variant's ratio to each floor).
import path from "node:path";
import { availableParallelism } from "node:os";
import { nki, tensor, empty, randn, kFloat, setOutput, type Tensor } from "gpsimd";
import { giouOf as giou } from "../../ops/giou/reference.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../../ops/giou/boxes.js";
import { add as addReference } from "../../ops/add/reference.js";
import { PACKAGE_ROOT } from "../../ops/index.js";
import { giouFloors, FLOOR_THREADS } from "../floors/index.js";
import { PlainWasm } from "../floors/plain-wasm.js";
import { verifyOutput } from "../verify.js";
import { GIOU_TOLERANCE } from "./giou.js";
import type { Suite, Floor, Scope } from "../suite.js";

const seedNki = (file: string) => path.join(PACKAGE_ROOT, "examples", "seeds-nki", file);
const ADD_SIZE: [number, number] = [4096, 4096];
const ADD_GRID = [ADD_SIZE[0] / 128, ADD_SIZE[1] / 512];

function timed(calls: number, call: () => void): number {
  const start = performance.now();
  for (let i = 0; i < calls; i++) call();
  return (performance.now() - start) / 1e3 / calls;
}

/** The add floors: plain wasm over arrays already in place, one thread and split over every CPU. */
async function addFloors(scope: Scope, a: Float32Array, b: Float32Array, reference: Float32Array): Promise<Floor[]> {
  const wasm = await PlainWasm.create(a.byteLength * 3 + (1 << 20));
  scope.atEnd(() => { void wasm.close(); });
  const pa = wasm.place(a), pb = wasm.place(b), out = wasm.place(a.byteLength);
  const n = a.length;
  wasm.exports.add(out, pa, pb, 0, n);
  verifyOutput("nki-add/floor wasm", wasm.read(out, n), reference, { abs: 0, rel: 0 });
  const floors: Floor[] = [{ name: "wasm-1t", title: "a + b as plain wasm (v128), one thread", burst: (calls) => timed(calls, () => wasm.exports.add(out, pa, pb, 0, n)) }];
  if (FLOOR_THREADS > 1) {
    floors.push({
      name: `wasm-${FLOOR_THREADS}t`, title: `the same over ${FLOOR_THREADS} threads (spinning workers)`,
      burst: async (calls) => {
        const start = performance.now();
        for (let i = 0; i < calls; i++) await wasm.splitRun(FLOOR_THREADS, "add", [out, pa, pb], n, 16);
        return (performance.now() - start) / 1e3 / calls;
      },
    });
  }
  return floors;
}

export const nkiSuite: Suite = {
  name: "nki",
  title: "NKI kernels (the seeds' Python, unchanged): GIOU 1024 x 256 and tensor add 4096 x 4096 on a grid, against plain wasm",
  notes: [
    "nki: the kernel file interpreted, tile arithmetic in the tile engine (WebAssembly), every check on (uninitialised reads, HBM bounds, unwritten outputs).",
    "nki-giou includes the seed's debug_print of every [128, 512] tile it loads (nl.device_print on a CPU machine: formatted, then discarded).",
    `nki-Nt: a grid's instances on N threads (the calling one included); nki-1t on the calling thread alone. This machine: ${availableParallelism()} CPUs.`,
    "The ratios to wasm-1t and the split floor are what the NKI front end costs over the arithmetic itself.",
  ],
  maxTime: 3,
  async setup(scope) {
    const [predData, targetData] = w1Boxes(0);
    const preds = scope.keep(tensor(predData, [W1_BATCH, W1_BOXES * 4])), targets = scope.keep(tensor(targetData, [W1_BATCH, W1_BOXES * 4]));
    const out = scope.keep(empty([W1_BATCH, W1_BOXES], kFloat));
    const giouKernel = nki.load(seedNki("giou.py"), "giou_kernel");
    // The GIOU seed's debug_print is nl.device_print on a CPU machine: every tile it loads is printed (and timed), not shown.
    scope.atEnd(setOutput({ printf: () => undefined }));
    const giouReference = giou(predData, targetData, W1_BATCH, W1_BOXES);
    const giouFloorList = await giouFloors(scope, predData, targetData, (o) => verifyOutput("nki-giou/floor wasm", o, giouReference, GIOU_TOLERANCE));

    const a = scope.keep(randn(ADD_SIZE, { seed: 5 })), b = scope.keep(randn(ADD_SIZE, { seed: 6 }));
    const ad = a.data() as Float32Array, bd = b.data() as Float32Array;
    const addRef = addReference(ad, bd);
    const add = nki.load(seedNki("tensor_add.py"), "nki_tensor_add_kernel_");
    const threads = availableParallelism();
    scope.atEnd(() => { void nki.shutdown(); });
    return [{
      name: "nki-giou",
      title: `the GIOU blog's NKI giou_kernel, ${W1_BATCH} x ${W1_BOXES} box pairs (one instance)`,
      reference: giouReference,
      tolerance: GIOU_TOLERANCE,
      baseline: "fused-ts",
      elements: W1_BATCH * W1_BOXES,
      variants: [
        { name: "nki", run: () => { nki.simulate_kernel(giouKernel, preds, targets, out); return out.storageView() as Float32Array; } },
        { name: "fused-ts", run: () => giou(predData, targetData, W1_BATCH, W1_BOXES) },
      ],
      floors: giouFloorList,
      floorVariants: ["nki"],
    }, {
      name: "nki-add",
      title: `the tensor add seed, [${ADD_SIZE.join(", ")}] on a [${ADD_GRID.join(", ")}] grid of 128 x 512 tiles`,
      reference: addRef,
      tolerance: { abs: 0, rel: 0 },
      baseline: "ts-loop",
      elements: a.numel(),
      variants: [
        { name: "nki-1t", run: () => add.with({ threads: 1 }).grid(...ADD_GRID)(a, b) as Tensor },
        { name: `nki-${threads}t`, run: () => add.with({ threads }).grid(...ADD_GRID)(a, b) as Tensor },
        { name: "ts-loop", run: () => addReference(ad, bd) },
      ],
      floors: await addFloors(scope, ad, bd, addRef),
      floorVariants: ["nki-1t", `nki-${threads}t`],
    }];
  },
};
