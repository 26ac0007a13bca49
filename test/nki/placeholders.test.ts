// Host-side framework packages (torch, jax) import as placeholders: module-level code that uses
// them runs, as a published kernel file's host code does, but a kernel that uses one is refused.
import { describe, expect, it } from "vitest";
import { nki, randn, type Tensor } from "../../dist/host/index.js";

const SOURCE = `import torch
import torch.nn.functional as F
import jax.numpy as jnp
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl

DTYPE = torch.float32          # host code at module level: runs

@nki.jit
def copy_kernel(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    nl.store(out, value=nl.load(x))
    return out

@nki.jit
def uses_torch(x):
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    y = F.relu(t)
    nl.store(out, value=y)
    return out
`;

describe("framework placeholders", () => {
  it("a file importing torch and jax loads and its kernels run", () => {
    const k = nki.loadSource(SOURCE, { file: "placeholders.py", kernel: "copy_kernel" });
    const x = randn([128, 64]);
    expect(Array.from((k(x) as Tensor).data() as Float32Array)).toEqual(Array.from(x.data() as Float32Array));
  });

  it("using torch inside a kernel is an error at its line, and module-level use stays allowed afterwards", () => {
    const k = nki.loadSource(SOURCE, { file: "placeholders.py", kernel: "uses_torch" });
    let error: any;
    try { k(randn([128, 64])); } catch (e) { error = e; }
    expect(error?.name).toBe("PythonError");
    expect(error.code).toBe("E_PY_RuntimeError");
    expect(error.message).toContain("torch.nn.functional.relu");
    expect(error.message).toContain("placeholders.py:19:");
    // The flag is restored: loading (and so running module code) again works.
    expect(() => nki.loadSource(SOURCE, { file: "placeholders2.py" })).not.toThrow();
  });
});
