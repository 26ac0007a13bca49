// What the NKI checks beyond the simulator's cost (races between affine_range iterations, SPMD
// instances storing to the same elements, SBUF/PSUM capacity, the buffer rules): published kernels at
// sizes the NKI library skips in simulation, loaded through the public API with nki.load(file, name,
// { threads: 1, checks }), checks on against off, paired (alternating bursts) so the ratio survives a
// noisy machine. The report's targets compare the worst pair with the goal (at most 1.3x).
import path from "node:path";
import { nki, randn, type Tensor } from "gpsimd";
import { add as addReference } from "../../ops/add/reference.js";
import { PACKAGE_ROOT } from "../../ops/index.js";
import { CHECKS_ON } from "./checks.js";
import type { Suite, Workload } from "../suite.js";

const ADD = 4096;
const MATMUL = 1024;

/** One kernel of a file on the calling thread, called with the checks on or off (the kernel's checks option). */
function kernelCall(file: string, name: string, args: Tensor[], grid?: number[]): (checks: boolean) => Tensor {
  const kernels = [true, false].map((checks) => {
    const k = nki.load(file, name, { threads: 1, checks });
    return grid ? k.grid(...grid) : k;
  });
  return (checks) => kernels[checks ? 0 : 1](...args) as Tensor;
}

/** C = A^T B for A [K, M], B [K, N] (the tutorial's lhsT layout), row-major float32 accumulation. */
function matmulReference(lhsT: Float32Array, rhs: Float32Array, n: number): Float32Array {
  const out = new Float32Array(n * n);
  for (let k = 0; k < n; k++) {
    for (let m = 0; m < n; m++) {
      const a = lhsT[k * n + m];
      const row = m * n, brow = k * n;
      for (let j = 0; j < n; j++) out[row + j] += a * rhs[brow + j];
    }
  }
  return out;
}

function onOff(call: (checks: boolean) => Tensor): Workload["variants"] {
  return [
    { name: CHECKS_ON, run: () => call(true) },
    { name: "checks-off", run: () => call(false) },
  ];
}

export const nkiChecksSuite: Suite = {
  name: "nki-checks",
  title: `NKI checks on against off: tensor add ${ADD} x ${ADD} on an SPMD grid, the tiled matmul ${MATMUL}^3`,
  notes: [
    "checks-off: nki.load(file, kernel, { checks: false }) (bounds, uninitialised reads and unwritten outputs stay on); checks-on: the default.",
    "Both on the calling thread; the paired ratio is time(checks-on) / time(checks-off) from alternating bursts (goal: at most 1.3).",
  ],
  maxTime: 2,
  setup(scope) {
    const a = scope.keep(randn([ADD, ADD], { seed: 5 })), b = scope.keep(randn([ADD, ADD], { seed: 6 }));
    const addCall = kernelCall(path.join(PACKAGE_ROOT, "examples", "seeds-nki", "tensor_add.py"), "nki_tensor_add_kernel_", [a, b], [ADD / 128, ADD / 512]);
    const lhsT = scope.keep(randn([MATMUL, MATMUL], { seed: 7 })), rhs = scope.keep(randn([MATMUL, MATMUL], { seed: 8 }));
    const mmFile = path.join(PACKAGE_ROOT, "test", "nki", "corpus", "aws-neuron-sdk", "nki", "examples", "matrix_multiplication", "matrix_multiplication_nki_kernels.py");
    const mmCall = kernelCall(mmFile, "nki_matmul_tiled_", [lhsT, rhs]);
    return [{
      name: `nki-add-${ADD}`,
      title: `the tensor add seed, [${ADD}, ${ADD}] on a [${ADD / 128}, ${ADD / 512}] grid, one thread`,
      reference: addReference(a.data() as Float32Array, b.data() as Float32Array),
      tolerance: { abs: 0, rel: 0 },
      elements: ADD * ADD,
      paired: true,
      variants: onOff(addCall),
    }, {
      name: `nki-matmul-${MATMUL}`,
      title: `the matmul tutorial's nki_matmul_tiled_, ${MATMUL}^3 float32`,
      reference: matmulReference(lhsT.data() as Float32Array, rhs.data() as Float32Array, MATMUL),
      tolerance: { abs: 1e-2, rel: 1e-4 },
      paired: true,
      variants: onOff(mmCall),
    }];
  },
};
