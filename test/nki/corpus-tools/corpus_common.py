"""Shared helpers for the scripts that write the NKI corpus fixtures and manifest.

Every path written into the manifest is relative to test/nki/corpus/. Fixtures go to
test/nki/corpus/fixtures/<entry id>/<name>.npy. Nothing here imports nki: expected outputs are
computed with numpy alone (the published tests' own golden code where they have one).
"""
import hashlib
import os

import numpy as np

CORPUS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus"))

SDK_COMMIT = "81ce03ae261e12925e53437a0f690478e6366155"
SAMPLES_COMMIT = "6905a68a122f937e68403727759f035ddd144f95"

EXACT = {"rtol": 0, "atol": 0}


def sdk_source(path):
  return {"repo": "aws-neuron/aws-neuron-sdk", "path": path, "commit": SDK_COMMIT,
          "licence": "MIT-0 (LICENSE-SAMPLECODE)"}


def samples_source(path):
  return {"repo": "aws-neuron/nki-samples", "path": path, "commit": SAMPLES_COMMIT,
          "licence": "MIT-0 (LICENSE)"}


_written = {}  # (dtype, shape, bytes digest) -> path already written


def save(entry_id, name, array):
  """Write one fixture and return the manifest's {"npy": path} for it.

  An array identical (dtype, shape, bytes) to one already written is not written again: the
  manifest points at the first file (many tests draw the same seeded input, and a copy kernel's
  expected output is its input)."""
  array = np.ascontiguousarray(array)
  key = (array.dtype.str, array.shape, hashlib.sha256(array.tobytes()).hexdigest())
  if key in _written:
    return {"npy": _written[key]}
  rel = "fixtures/%s/%s.npy" % (entry_id, name)
  _written[key] = rel
  full = os.path.join(CORPUS, rel)
  os.makedirs(os.path.dirname(full), exist_ok=True)
  np.save(full, np.ascontiguousarray(array), allow_pickle=False)
  return {"npy": rel}


def entry(id, file, kernel, source, args, expected, *, outputs="return", grid=None,
          tolerance=None, call="jit", notes="", expected_error=None, also_scan=None):
  """One manifest entry.

  call: how the published code runs the kernel: "jit" (kernel(*args), or kernel[grid](*args)),
  "simulate_kernel" (nki.simulate_kernel(kernel, *args)), "simulate" (nki.simulate(kernel)(*args)),
  "caller" (a plain Python function of the module that launches the kernel itself).
  expected: fixture paths, one per output (a tuple return gives several).
  """
  e = {"id": id, "file": file, "kernel": kernel, "source": source, "call": call, "grid": grid,
       "args": args, "outputs": outputs,
       "expected": [x["npy"] if isinstance(x, dict) else x for x in expected],
       "tolerance": tolerance if tolerance is not None else EXACT, "notes": notes}
  if expected_error is not None:
    e["expected_error"] = expected_error
  if also_scan:
    e["also_scan"] = also_scan
  return e


def bf16_round(x):
  """Round float32 values to the nearest bfloat16 (ties to even), returned as float32.

  ml_dtypes is not installed here; this is the bit-level rounding bf16 casts perform."""
  bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
  rounding = ((bits >> 16) & 1) + 0x7FFF
  out = ((bits + rounding) >> 16) << 16
  return out.astype(np.uint32).view(np.float32)
