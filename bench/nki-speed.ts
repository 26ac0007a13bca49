// How long NKI kernels take through the public API (nki.load + a call), for docs/nki.md's speed
// figures: the seed's tensor add over a 4096 x 4096 float32 tensor on a [32, 8] grid, the SDK's
// tiled tensor add at the same size, and the matrix-multiplication tutorial's tiled and fully
// optimised kernels at 2048 x 2048 x 2048. Each is checked against a plain reference so a fast
// wrong answer does not count.
//
//   npx tsc -p . && node dist/bench/nki-speed.js [--threads N]
import { nki, tensor, shutdown, type Tensor } from "gpsimd";

const MATMUL = "test/nki/corpus/aws-neuron-sdk/nki/examples/matrix_multiplication/matrix_multiplication_nki_kernels.py";
const SDK_ADD = "test/nki/corpus/aws-neuron-sdk/nki/examples/tensor_addition/tensor_addition_nki_kernels.py";
const SEED_ADD = "examples/seeds-nki/tensor_add.py";

/** Deterministic floats in [-1, 1) (an LCG), so runs are comparable. */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

function seconds(run: () => Tensor): { out: Tensor; s: number } {
  const t0 = performance.now();
  const out = run();
  return { out, s: (performance.now() - t0) / 1000 };
}

function checkAdd(c: Tensor, a: Float32Array, b: Float32Array): void {
  const got = c.data() as Float32Array;
  for (let i = 0; i < a.length; i++) {
    if (got[i] !== Math.fround(a[i] + b[i])) throw new Error(`tensor add: element ${i} is ${got[i]}, expected ${Math.fround(a[i] + b[i])}`);
  }
}

/** Checks a sample of rows of lhsT^T @ rhs (a full float64 reference would take longer than the kernel). */
function checkMatmul(c: Tensor, lhsT: Float32Array, rhs: Float32Array, K: number, M: number, N: number): void {
  const got = c.data() as Float32Array;
  for (const m of [0, 1, 127, 128, M - 1]) {
    for (let n = 0; n < N; n += 97) {
      let sum = 0;
      for (let k = 0; k < K; k++) sum += lhsT[k * M + m] * rhs[k * N + n];
      if (Math.abs(got[m * N + n] - sum) > 1e-3 * Math.sqrt(K)) throw new Error(`matmul: [${m}, ${n}] is ${got[m * N + n]}, expected ${sum}`);
    }
  }
}

function main(): void {
  const threadsArg = process.argv.indexOf("--threads");
  const threads = threadsArg > 0 ? Number(process.argv[threadsArg + 1]) : undefined;
  const rows: string[] = [];
  const report = (what: string, s: number) => { rows.push(`| ${what} | ${s.toFixed(2)} s |`); console.log(`${what}: ${s.toFixed(2)} s`); };

  const n = 4096;
  const av = values(n * n, 1), bv = values(n * n, 2);
  const a = tensor(av, [n, n], "float32"), b = tensor(bv, [n, n], "float32");
  const seedAdd = nki.load(SEED_ADD, "nki_tensor_add_kernel_", threads ? { threads } : undefined);
  const r1 = seconds(() => seedAdd.grid(32, 8)(a, b) as Tensor);
  checkAdd(r1.out, av, bv);
  report("tensor add 4096 x 4096 float32, seed kernel on a [32, 8] grid", r1.s);
  const sdkAdd = nki.load(SDK_ADD, "nki_tensor_add");
  const r2 = seconds(() => sdkAdd(a, b) as Tensor);
  checkAdd(r2.out, av, bv);
  report("tensor add 4096 x 4096 float32, SDK tutorial kernel (one instance, 256 tiles)", r2.s);

  const K = 2048, M = 2048, N = 2048;
  const lv = values(K * M, 3), rv = values(K * N, 4);
  const lhsT = tensor(lv, [K, M], "float32"), rhs = tensor(rv, [K, N], "float32");
  for (const name of ["nki_matmul_tiled_", "nki_matmul_fully_optimized_"]) {
    const k = nki.load(MATMUL, name);
    const r = seconds(() => k(lhsT, rhs) as Tensor);
    checkMatmul(r.out, lv, rv, K, M, N);
    report(`matmul 2048 x 2048 x 2048 float32, ${name}`, r.s);
  }
  console.log(["", "| kernel | time |", "|---|---|", ...rows].join("\n"));
  shutdown();
}

main();
