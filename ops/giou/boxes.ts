// The W1 inputs: random boxes [x1, y1, x2, y2] in a 256 x 256 image, as the
// seed generates them with numpy (sizes in [1, 255], top-left corners in
// [0, 254], bottom-right = clip(top-left + size, 0, 255)), from gpsimd's
// seeded generator so every run sees the same boxes.
import { Rng } from "gpsimd";

/** W1's batch size and boxes per sample. */
export const W1_BATCH = 1024;
export const W1_BOXES = 256;

const IMAGE = 256;

/** n x b random boxes, float32 [n, b, 4]; draws all sizes first, then all corners, as the seed does. */
export function randomBoxes(rng: Rng, n: number, b: number): Float32Array {
  const count = n * b;
  const sizes = Array.from({ length: 2 * count }, () => rng.int(1, IMAGE - 1));
  const corners = Array.from({ length: 2 * count }, () => rng.int(0, IMAGE - 2));
  const out = new Float32Array(4 * count);
  for (let i = 0; i < count; i++) {
    for (let axis = 0; axis < 2; axis++) {
      const lo = corners[2 * i + axis];
      out[4 * i + axis] = lo;
      out[4 * i + 2 + axis] = Math.min(lo + sizes[2 * i + axis], IMAGE - 1);
    }
  }
  return out;
}

/** The pair of box sets (pred, target) of W1, or of another n x b, from one seeded stream. */
export function w1Boxes(seed = 0, n = W1_BATCH, b = W1_BOXES): [Float32Array, Float32Array] {
  const rng = new Rng(seed);
  const pred = randomBoxes(rng, n, b);
  return [pred, randomBoxes(rng, n, b)];
}
