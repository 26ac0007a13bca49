// The seed "NKI Kernel as a Framework Custom Operator", on gpsimd: the NKI
// tensor add kernel (examples/seeds-nki/tensor_add.py, unchanged) registered
// as ops.nki_ops.tensor_add with the backward the seed's NkiAddFunc has
// (dy, dy), then
//   1. the seed's out = a * b * (a + b), loss = out.sum(), loss.backward(),
//      with the gradients checked against the hand-derived ones:
//      dL/da = b (a + b) + a b, dL/db = a (a + b) + a b;
//   2. a few steps of gradient descent on a parameter w that the NKI add
//      shifts x by, fitting x + w to a target: loss = sum((x + w - y)^2).
// Run: node dist/examples/nki-training.js
import path from "node:path";
import { nki, ops, autograd, randn, tensor, shutdown, type Tensor } from "gpsimd";
import { PACKAGE_ROOT } from "../ops/index.js";
import { Mul, Sub, Sum } from "./nki-ops.js";

const f32 = (t: Tensor) => t.data() as Float32Array;

const add = nki.load(path.join(PACKAGE_ROOT, "examples", "seeds-nki", "tensor_add.py"), "nki_tensor_add_kernel_");
// As the seed's nki_tensor_add: one instance per 128 x 512 tile.
const op = nki.register("nki_ops", "tensor_add", {
  forward: add,
  grid: (a) => [(a as Tensor).size(0) / 128, (a as Tensor).size(1) / 512],
  backward: (_ctx, dy) => [dy, dy],
});

// ---- 1. the seed's composition ----
const a = autograd.requires_grad_(randn([256, 1024], { seed: 1 }));
const b = autograd.requires_grad_(randn([256, 1024], { seed: 2 }));
const c = ops.nki_ops.tensor_add(a, b);
const loss = Sum.apply(Mul.apply(Mul.apply(a, b), c));
autograd.backward(loss);
const av = f32(a), bv = f32(b);
let worst = 0;
f32(autograd.gradient(a)!).forEach((g, i) => { worst = Math.max(worst, Math.abs(g - (bv[i] * (av[i] + bv[i]) + av[i] * bv[i]))); });
f32(autograd.gradient(b)!).forEach((g, i) => { worst = Math.max(worst, Math.abs(g - (av[i] * (av[i] + bv[i]) + av[i] * bv[i]))); });
console.log(`a, b float32 [256, 1024]; c = ops.nki_ops.tensor_add(a, b) on a 2 x 2 grid; loss = (a * b * c).sum() = ${f32(loss)[0].toFixed(3)}`);
console.log(`gradients of a and b against the hand-derived b(a + b) + ab and a(a + b) + ab: max abs difference ${worst.toExponential(2)}`);

// ---- 2. training a shift through the NKI operator ----
const x = randn([128, 512], { seed: 3 });
const y = tensor(f32(x).map((v) => v + 0.75), x.sizes());
let w = autograd.requires_grad_(tensor(new Float32Array(x.numel()), x.sizes()));
const LR = 0.25;
console.log(`\nfit w in (x + w) = x + 0.75 by gradient descent (lr ${LR}), x float32 [128, 512], the addition the NKI kernel:`);
for (let step = 0; step < 5; step++) {
  const r = Sub.apply(ops.nki_ops.tensor_add(x, w), y);
  const l = Sum.apply(Mul.apply(r, r));
  const [dw] = autograd.grad(l, [w]);
  console.log(`  step ${step}: loss ${f32(l)[0].toExponential(3)}`);
  const step_ = f32(dw);
  const next = tensor(f32(w).map((v, i) => v - LR * step_[i]), w.sizes());
  w.dispose();
  w = autograd.requires_grad_(next);
}
console.log(`  mean of w after 5 steps: ${(f32(w).reduce((s, v) => s + v, 0) / w.numel()).toFixed(6)} (the shift is 0.75)`);
op.unregister();
await nki.shutdown();
await shutdown();
