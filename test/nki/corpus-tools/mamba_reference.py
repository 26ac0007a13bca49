"""Mamba SSM reference in numpy: a line-for-line port of `mamba_layer` and `associative_scan` of
aws-neuron-sdk nki/examples/fused_mamba/mamba_torch.py (torch -> numpy; computed in float64 and
cast to float32 by the caller)."""
import numpy as np


def associative_scan(deltaA, deltaB_u):
  batch_size, channels, state_size, seq_len = deltaA.shape
  out = np.empty((batch_size, channels, state_size, seq_len), dtype=deltaA.dtype)
  for i in range(seq_len):
    prev_state = out[..., i - 1] if i > 0 else 0
    out[..., i] = deltaA[..., i] * prev_state + deltaB_u[..., i]
  return out


def mamba_layer(delta, A, B, u, C):
  deltaA = np.exp(delta[:, :, None, :] * A[None, :, :, None])
  deltaB_u = delta[:, :, None, :] * B[:, None, :, :] * u[:, :, None, :]
  scan_res = associative_scan(deltaA, deltaB_u)
  return (C[:, None, :, :] * scan_res).sum(axis=-2)
