"""Fixtures for the kernels of aws-neuron-sdk nki/examples/* (the tutorials, current `import nki`
API except where noted). Inputs follow each file's `__main__` block or its *_torch.py companion
where they exist; golden code is quoted beside each expected output."""
import numpy as np

from corpus_common import EXACT, entry, save, sdk_source
from mamba_reference import mamba_layer

E = "aws-neuron-sdk/nki/examples/"


def src(path):
  return sdk_source("nki/examples/" + path)


def tensor_addition():
  f = "tensor_addition/tensor_addition_nki_kernels.py"
  id = "ex_tensor_add"
  np.random.seed(0)
  a = np.random.rand(256, 1024).astype(np.float16)
  b = np.random.rand(256, 1024).astype(np.float16)
  return [entry(id, E + f, "nki_tensor_add", src(f), [save(id, "a", a), save(id, "b", b)],
                [save(id, "c_golden", a + b)],
                notes="Inputs as the nki-samples tutorial's __main__ (np.random.rand(256, 1024) float16; "
                      "seed 0 added). float16 + float16 rounded once: exact. Loops 2 x 2 tiles of "
                      "[128, 512] with nisa.dma_copy / nisa.tensor_tensor(dst=...). The module sets "
                      "os.environ['NEURON_PLATFORM_TARGET_OVERRIDE'] = 'trn1' at import.")]


def matmul():
  f = "matrix_multiplication/matrix_multiplication_nki_kernels.py"
  out = []
  note_acc = ("nc_matmul(dst=psum, ...) with accumulate left None: the first matmul into a PSUM tile "
              "overwrites, later ones accumulate (nki.isa docs), so the uninitialised nl.ndarray(..., "
              "buffer=nl.psum) is never read before written. ")
  id = "ex_matmul_basic"
  np.random.seed(0)
  lhsT = np.random.rand(128, 64).astype(np.float32)
  rhs = np.random.rand(128, 512).astype(np.float32)
  out.append(entry(id, E + f, "nki_matmul_basic_", src(f), [save(id, "lhsT", lhsT), save(id, "rhs", rhs)],
                   [save(id, "golden", np.matmul(lhsT.T, rhs))], tolerance={"rtol": 1e-5, "atol": 0},
                   notes=note_acc + "Golden np.matmul(lhsT.T, rhs) as matrix_multiplication_torch.py "
                         "(torch.matmul(lhs_small.T, rhs_small)), float32 here (the torch script uses bf16). "
                         "nc_matmul's arguments are positional here: (dst, stationary, moving)."))
  np.random.seed(1)
  lhsT = np.random.rand(256, 256).astype(np.float32)
  rhs = np.random.rand(256, 512).astype(np.float32)
  shared = [save("ex_matmul_tiled", "lhsT", lhsT), save("ex_matmul_tiled", "rhs", rhs)]
  golden = save("ex_matmul_tiled", "golden", np.matmul(lhsT.T, rhs))
  for id, k, extra, note in (
      ("ex_matmul_tiled", "nki_matmul_tiled_", [], "K = M = 256, N = 512: 2 x 1 output tiles, 2 k-steps."),
      ("ex_matmul_hoist_load", "nki_matmul_hoist_load_", [],
       "Lists of tiles filled with .append and indexed by the loop variable."),
      ("ex_matmul_fully_optimized", "nki_matmul_fully_optimized_",
       [{"kw": "TILES_IN_BLOCK_M", "int": 2}, {"kw": "TILES_IN_BLOCK_N", "int": 1},
        {"kw": "TILES_IN_BLOCK_K", "int": 2}],
       "Meta-parameters passed by keyword (defaults 16/2/8 would need M = 2048, K = 1024); "
       "nl.sequential_range, plain range, nisa.memset(dst=...), 3-D SBUF tiles sliced "
       "[0:TILE_K, k_tile, 0:BLOCK_N], tile.reshape((TILE_M, BLOCK_N)), PSUM evicted by "
       "nisa.tensor_tensor(op=nl.add) into an SBUF accumulator.")):
    out.append(entry(id, E + f, k, src(f), shared + extra, [golden], tolerance={"rtol": 2e-5, "atol": 0},
                     notes=note_acc + "Shares ex_matmul_tiled's fixtures (seed 1). " + note))
  id = "ex_matmul_block_free_dimension"
  np.random.seed(2)
  lhsT = np.random.rand(128, 256).astype(np.float32)
  rhs = np.random.rand(128, 1024).astype(np.float32)
  out.append(entry(id, E + f, "nki_matmul_block_free_dimension_", src(f),
                   [save(id, "lhsT", lhsT), save(id, "rhs", rhs)],
                   [save(id, "golden", np.matmul(lhsT.T, rhs))], tolerance={"rtol": 1e-5, "atol": 0},
                   notes=note_acc + "Smallest sizes the kernel accepts: M % 256, N % 1024 (blocks of 2 tiles). "
                         "Nested lists of tiles: lhsT_tiles[bm][k]."))
  return out


def transpose2d():
  f = "transpose2d/transpose2d_nki_kernels.py"
  id = "ex_transpose2d"
  P, X, Y = 5, 3, 4  # as the file's __main__
  a = np.arange(P * X * Y, dtype=np.int8).reshape((P, X * Y))
  a_t_np = np.transpose(a.reshape(P, X, Y), (0, 2, 1)).reshape(P, X * Y)
  return [entry(id, E + f, "tensor_transpose2D_kernel_", src(f), [save(id, "a", a), {"tuple": [X, Y]}],
                [save(id, "a_t_np", a_t_np)],
                notes="As the file's __main__: int8 [5, 12], shape2D = (3, 4), golden "
                      "np.transpose(a.reshape(P, X, Y), (0, 2, 1)).reshape(P, X * Y). 12 nisa.tensor_copy "
                      "of [5, 1] columns addressed with nl.ds.")]


def average_pool2d():
  f = "average_pool2d/average_pool2d_nki_kernels.py"
  out = []
  POOL_SIZE = 2
  C, HIN, WIN = 2, 6, 6

  def np_average_pool_2D(in_tensor, pool_size):  # copied from the file
    c, h_in, w_in = in_tensor.shape
    reshaped = in_tensor.reshape(c, h_in // pool_size, pool_size, w_in // pool_size, pool_size)
    return np.nanmean(reshaped, axis=(2, 4))

  id = "ex_avgpool"
  x = np.arange(C * HIN * WIN, dtype=np.float16).reshape(C, HIN, WIN)
  out.append(entry(id, E + f, "tensor_avgpool_kernel", src(f), [save(id, "in_tensor", x), {"int": POOL_SIZE}],
                   [save(id, "out_np", np_average_pool_2D(x, POOL_SIZE))],
                   notes="As the file's __main__ (float16 arange, C, H, W = 2, 6, 6, pool 2; it checks "
                         "equality). Sums of 4 small integers times 0.25: exact in float16. Uses "
                         "tile.ap([[stride, size], ...]) for a 5-D view and nl.sum(axis=[3, 4])."))
  id = "ex_avgpool_f32"
  np.random.seed(0)
  x = np.random.rand(128, 16, 16).astype(np.float32)
  out.append(entry(id, E + f, "tensor_avgpool_kernel", src(f), [save(id, "in_tensor", x), {"kw": "pool_size", "int": 4}],
                   [save(id, "out_np", np_average_pool_2D(x, 4).astype(np.float32))],
                   tolerance={"rtol": 1e-6, "atol": 0},
                   notes="Not in the published file: 128 partitions, 16 x 16, pool 4 passed by keyword (as the "
                         "JAX variant passes pool_size=POOL_SIZE). A sum of 16 then * (1/16): float32 order "
                         "of summation only."))
  return out


def simulate_example():
  f = "simulate/nki_simulate_example.py"
  id = "ex_simulate_add"
  np.random.seed(0)
  a = np.random.rand(128, 512).astype(np.float32)
  b = np.random.rand(128, 512).astype(np.float32)
  return [entry(id, E + f, "add_kernel", src(f), [save(id, "a", a), save(id, "b", b)], [save(id, "golden", a + b)],
                call="simulate",
                notes="Called as nki.simulate(add_kernel)(a, b). Loading the module also runs it once on "
                      "np.random.rand inputs and checks np.testing.assert_allclose(result, a + b, "
                      "rtol=1e-5). The current API with nl.load / nl.store.")]


def getting_started():
  f = "getting_started_baremetal.py"
  id = "ex_getting_started"
  a = np.ones((4, 3), dtype=np.float16)
  b = np.ones((4, 3), dtype=np.float16)
  return [entry(id, E + f, "nki_tensor_add_kernel", src(f), [save(id, "a", a), save(id, "b", b)],
                [save(id, "c", a + b)],
                notes="As the file's __main__: np.ones((4, 3), float16) twice; 4 partitions. "
                      "assert a_input.shape[0] <= nl.tile_size.pmax.")]


def index_cases():
  out = []
  f = "index-case-1.py"
  id = "ex_index_case_1"
  X, Y = 4, 5
  x = np.arange(X * Y, dtype=np.float32).reshape(X, Y)
  out.append(entry(id, E + f, "tensor_split_kernel_", src(f), [save(id, "in_tensor", x)],
                   [save(id, "even", x[:, 0::2]), save(id, "odd", x[:, 1::2])],
                   notes="As the file's __main__ (arange 4 x 5) in float32 instead of torch.bfloat16 on an XLA "
                         "device. Returns (even columns, odd columns) read with in_tile[:, 0:sz_f:2] / [:, 1:sz_f:2]."))
  f = "index-case-3.py"
  id = "ex_index_case_3_maxpool"
  C, HIN, WIN, POOL = 2, 6, 6, 2
  x = np.arange(C * HIN * WIN, dtype=np.float32).reshape(C, HIN, WIN)
  golden = x.reshape(C, HIN // POOL, POOL, WIN // POOL, POOL).max(axis=(2, 4))
  out.append(entry(id, E + f, "tensor_maxpool_kernel_", src(f), [save(id, "in_tensor", x), {"int": POOL}],
                   [save(id, "golden", golden)],
                   notes="As the file's __main__ (arange 2 x 6 x 6, pool 2) in float32 instead of bfloat16. "
                         "Golden: reshape to (C, H/P, P, W/P, P) and max over axes 2, 4 (the file has none). "
                         "tile.ap 5-D view and nl.max(axis=[3, 4])."))
  return out


def layouts():
  out = []
  f = "layout-pass.py"
  id = "ex_layout_pass_exp"
  x = np.ones((128, 512), dtype=np.float32)
  out.append(entry(id, E + f, "tensor_exp_kernel_", src(f), [save(id, "ones", x)],
                   [save(id, "golden", np.exp(x))], tolerance={"rtol": 1e-6, "atol": 0},
                   notes="As the file's __main__ (torch.ones((128, 512)), bf16 there, float32 here): exp(1)."))
  f = "layout-violation.py"
  id = "ex_layout_violation"
  x = np.ones((256, 512), dtype=np.float16)
  out.append(entry(id, E + f, "tensor_exp_kernel_", src(f), [save(id, "ones", x)], [],
                   expected_error={"gpsimd": "TileShapeError",
                                   "reason": "nl.load(in_tensor[0:256, 0:512]) makes a tile of 256 partitions; "
                                             "the limit is nl.tile_size.pmax = 128"},
                   notes="The page's example of a layout error (shape (256, 512), 'Previously (128, 512)'); "
                         "float16 ones here (bf16 in the file). "
                         "The kernel also has no return statement."))
  return out


def fused_mamba():
  f = "fused_mamba/mamba_nki_kernels.py"
  return mamba_entries("ex_mamba", E + f, src(f))


def mamba_entries(prefix, file, source):
  """The three kernels share inputs: batch 1, channels 128, seq_len 1024 (two 512 tiles for v3),
  state_size 4."""
  np.random.seed(0)
  batch, channels, seq_len, state_size = 1, 128, 1024, 4
  delta = (np.random.rand(batch, channels, seq_len) * 0.5).astype(np.float32)
  u = (np.random.rand(batch, channels, seq_len) * 2 - 1).astype(np.float32)
  A = -(np.random.rand(channels, state_size) + 0.5).astype(np.float32)
  B = (np.random.rand(batch, state_size, seq_len) * 2 - 1).astype(np.float32)
  C = (np.random.rand(batch, state_size, seq_len) * 2 - 1).astype(np.float32)
  golden = mamba_layer(delta.astype(np.float64), A.astype(np.float64), B.astype(np.float64),
                       u.astype(np.float64), C.astype(np.float64)).astype(np.float32)
  id0 = "mamba_inputs"
  args = [save(id0, "delta", delta), save(id0, "u", u), save(id0, "A", A), save(id0, "B", B), save(id0, "C", C)]
  g = save(id0, "golden", golden)
  out = []
  for v in ("v1", "v2", "v3"):
    out.append(entry("%s_%s" % (prefix, v), file, "mamba_" + v, source, args, [g],
                     tolerance={"rtol": 1e-4, "atol": 1e-5},
                     notes="Golden: mamba_layer of aws-neuron-sdk nki/examples/fused_mamba/mamba_torch.py ported "
                           "to numpy (corpus-tools/mamba_reference.py), computed in float64. Inputs random "
                           "(seed 0) instead of the published all-ones: delta in [0, 0.5), A in (-1.5, -0.5], "
                           "u, B, C in [-1, 1); batch 1, channels 128, seq_len 1024, state_size 4 (published "
                           "2048 x 256 x 16). exp and a 1024-step scan in float32: relative tolerance. "
                           "Fixtures shared by all mamba entries (fixtures/mamba_inputs/)."))
  return out


def all_entries():
  out = []
  for fn in (tensor_addition, matmul, transpose2d, average_pool2d, simulate_example, getting_started,
             index_cases, layouts, fused_mamba):
    out.extend(fn())
  return out
