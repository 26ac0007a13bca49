// TensorFlow.js on its WebAssembly backend, the peer the suites compare with.
// Never return a large typed array from tf.tidy: tidy walks its result
// looking for tensors, one property at a time (about 1 s for 2^20 floats).
import * as tf from "@tensorflow/tfjs-core";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";
import { createRequire } from "node:module";
import path from "node:path";

let ready: Promise<typeof tf> | null = null;

/** tfjs-core with the wasm backend selected (SIMD, one thread in Node). */
export function tfjs(): Promise<typeof tf> {
  ready ??= (async () => {
    const pkg = createRequire(import.meta.url).resolve("@tensorflow/tfjs-backend-wasm/package.json");
    setWasmPaths(path.join(path.dirname(pkg), "dist") + path.sep);
    if (!(await tf.setBackend("wasm"))) throw new Error("TensorFlow.js: the wasm backend did not initialise");
    return tf;
  })();
  return ready;
}

/** Runs a composition, reads its result (dataSync, in the timed region) and frees every tensor it made. */
export function readResult(t: typeof tf, compose: () => tf.Tensor): Float32Array {
  const y = t.tidy(compose);
  const out = y.dataSync() as Float32Array;
  y.dispose();
  return out;
}
