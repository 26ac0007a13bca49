// What executed-instruction counting costs (docs/cost-model.md): each kernel
// called through its library and through the library's counting copy
// (host/profiling/counting.ts), interleaved in one process so both see the
// same machine load; trace and checks off in both, so only the counters
// differ. Prints the median wall time of each and their ratio.
//   node dist/bench/counting-overhead.js [calls]
import { countingLibrary, randn, tensor, kFloat, shutdown, type Library, type Tensor } from "gpsimd";
import { loadOp, type OpLibraryName } from "../ops/index.js";
import { w1Boxes, W1_BATCH, W1_BOXES } from "../ops/giou/boxes.js";

const calls = Number(process.argv[2] ?? 30);
const [pred, target] = w1Boxes(0);
const relu = () => [randn([32, 4096], { seed: 1 })];
const cases: { name: string; library: OpLibraryName; op: string; args: () => unknown[] }[] = [
  { name: "W1 giou, 8 cores (TCM)", library: "giou_multicore", op: "giou", args: () => [tensor(pred, [W1_BATCH, W1_BOXES, 4], kFloat), tensor(target, [W1_BATCH, W1_BOXES, 4], kFloat)] },
  { name: "ReLU [32, 4096] element-wise", library: "relu_elementwise", op: "relu_forward", args: relu },
  { name: "ReLU [32, 4096] TCM", library: "relu_tcm", op: "relu_forward", args: relu },
  { name: "ReLU [32, 4096] TCM, 8 cores", library: "relu_multicore", op: "relu_forward", args: relu },
  { name: "log_softmax [64, 1000] TCM", library: "nn_tcm", op: "log_softmax", args: () => [randn([64, 1000], { seed: 2 })] },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (lib: Library, op: string, args: unknown[]) => {
  const t0 = performance.now();
  (lib.call(op, args) as Tensor).dispose();
  return performance.now() - t0;
};

process.stdout.write(`calls per variant: ${calls} (after ${Math.ceil(calls / 3)} warm-up calls each), interleaved\n`);
for (const c of cases) {
  const plain = loadOp(c.library, { checks: false });
  const counting = countingLibrary(plain).configure({ checks: false });
  const args = c.args();
  for (let i = 0; i < Math.ceil(calls / 3); i++) { time(plain, c.op, args); time(counting, c.op, args); }
  const a: number[] = [], b: number[] = [];
  for (let i = 0; i < calls; i++) { a.push(time(plain, c.op, args)); b.push(time(counting, c.op, args)); }
  process.stdout.write(`${c.name}: plain ${median(a).toFixed(3)} ms, counting ${median(b).toFixed(3)} ms, ratio ${(median(b) / median(a)).toFixed(2)}\n`);
  for (const t of args) (t as Tensor).dispose();
  plain.unload();
}
await shutdown();
