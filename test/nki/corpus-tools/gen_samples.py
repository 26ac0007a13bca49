"""Fixtures for the kernels of aws-neuron/nki-samples: the tutorials (the older `neuronxcc.nki`
API with nl.load / nl.store) and two contributed kernels. Golden code is the samples' own where they
have it (quoted beside each expected output)."""
import numpy as np

from corpus_common import bf16_round, entry, samples_source, save
import gen_sdk_examples

S = "nki-samples/"


def src(path):
  return samples_source(path)


def tensor_addition():
  out = []
  np.random.seed(0)  # same draw as gen_sdk_examples.tensor_addition: the fixtures are shared
  a = np.random.rand(256, 1024).astype(np.float16)
  b = np.random.rand(256, 1024).astype(np.float16)
  args = [save("smp_tensor_add", "a", a), save("smp_tensor_add", "b", b)]
  golden = [save("smp_tensor_add", "c_golden", a + b)]  # __main__: output_np = a + b
  for name in ("tensor_addition_nki_kernels.py", "spmd_tensor_addition_nki_kernels.py"):
    path = "src/nki_samples/tutorials/tensor_addition/" + name
    tag = "smp_spmd_tensor_add" if name.startswith("spmd") else "smp_tensor_add"
    out.append(entry(tag + "_grid", S + path, "nki_tensor_add_kernel_", src(path), args, golden, grid=[2, 2],
                     notes="The kernel launched on a [2, 2] grid (as its caller does for [256, 1024]); each "
                           "instance adds one [128, 512] tile addressed by nl.program_id(0/1) * size + "
                           "nl.arange(...)[:, None] / [None, :]. Inputs as the file's __main__ "
                           "(np.random.rand(256, 1024) float16, seed 0 added); float16 sums are exact."))
    out.append(entry(tag + "_caller", S + path, "nki_tensor_add", src(path), args, golden, call="caller",
                     also_scan=["nki_tensor_add_kernel_"],
                     notes="The plain Python caller: grid_x = shape[0] // 128, grid_y = shape[1] // 512, "
                           "return nki_tensor_add_kernel_[grid_x, grid_y](a_input, b_input)."))
  path = "src/nki_samples/tutorials/tensor_addition/spmd_multiple_nc_tensor_addition_nki_kernels.py"
  np.random.seed(0)
  a = np.random.rand(512, 512).astype(np.float16)
  b = np.random.rand(512, 512).astype(np.float16)
  out.append(entry("smp_spmd_multiple_nc_tensor_add", S + path, "nki_tensor_add_nc2", src(path),
                   [save("smp_spmd_multiple_nc_tensor_add", "a", a), save("smp_spmd_multiple_nc_tensor_add", "b", b)],
                   [save("smp_spmd_multiple_nc_tensor_add", "c_golden", a + b)], call="caller",
                   notes="Launches nki_tensor_add_kernel_[nl.spmd_dim(grid_x, nl.nc(2)), grid_y]: grid_x = "
                         "shape[0] // 256 doubled over two NeuronCores, i.e. 4 x 1 instances of [128, 512]. "
                         "The module imports the kernel from its sibling file: from "
                         "spmd_tensor_addition_nki_kernels import nki_tensor_add_kernel_. Published "
                         "[512, 2048] shrunk to [512, 512] (2 MB of float16 otherwise)."))
  return out


def transpose2d():
  path = "src/nki_samples/tutorials/transpose2d/transpose2d_nki_kernels.py"
  id = "smp_transpose2d"
  P, X, Y = 5, 3, 4
  a = np.arange(P * X * Y, dtype=np.int8).reshape((P, X * Y))
  a_t_np = np.transpose(a.reshape(P, X, Y), (0, 2, 1)).reshape(P, X * Y)  # __main__ golden
  return [entry(id, S + path, "tensor_transpose2D_kernel_", src(path), [save(id, "a", a), {"tuple": [X, Y]}],
                [save(id, "a_t_np", a_t_np)],
                notes="As __main__: int8 [5, 12], shape2D (3, 4). One nl.copy with 3-D index "
                      "expressions on both sides: out_tile[i_p0, i_f2*sz_f1+i_f1] = nl.copy(in_tile[i_p0, "
                      "i_f1*sz_f2+i_f2]) (advanced indexing, a write through an index expression).")]


def average_pool2d():
  path = "src/nki_samples/tutorials/average_pool2d/average_pool2d_nki_kernels.py"
  out = []

  def np_average_pool_2D(in_tensor, pool_size):  # copied from the file
    c, h_in, w_in = in_tensor.shape
    reshaped = in_tensor.reshape(c, h_in // pool_size, pool_size, w_in // pool_size, pool_size)
    return np.nanmean(reshaped, axis=(2, 4))

  id = "smp_avgpool"
  x = np.arange(2 * 6 * 6, dtype=np.float16).reshape(2, 6, 6)
  out.append(entry(id, S + path, "tensor_avgpool_kernel", src(path), [save(id, "in_tensor", x), {"int": 2}],
                   [save(id, "out_np", np_average_pool_2D(x, 2))],
                   notes="As __main__ (float16 arange 2 x 6 x 6, pool 2; it asserts equality): exact. "
                         "5-D nl.mgrid, in_tile[i0, sz_pool*i1+i2, sz_pool*i3+i4] (advanced indexing), "
                         "nl.sum(axis=[2,4]) then `/ (pool_size*pool_size)` on a tile."))
  id = "smp_avgpool_f32"
  np.random.seed(0)
  x = np.random.rand(128, 16, 16).astype(np.float32)
  out.append(entry(id, S + path, "tensor_avgpool_kernel", src(path),
                   [save(id, "in_tensor", x), {"kw": "pool_size", "int": 4}],
                   [save(id, "out_np", np_average_pool_2D(x, 4).astype(np.float32))],
                   tolerance={"rtol": 1e-6, "atol": 0},
                   notes="Not in the file: 128 partitions, pool 4 by keyword (as the JAX caller does). Sum of 16 "
                         "then / 16: order of summation only. Shares ex_avgpool_f32's input."))
  return out


def fused_mamba():
  path = "src/nki_samples/tutorials/fused_mamba/mamba_nki_kernels.py"
  return gen_sdk_examples.mamba_entries("smp_mamba", S + path, src(path))


def numpy_attention(q, k, v):
  """Copied from nki-samples tutorials/attention_fwd_performance/test_attention.py."""
  d_head, seqlen_q = q.shape
  seqlen_kv = seqlen_q
  qk = np.matmul(q.T, k)
  row_max = np.max(qk, axis=1, keepdims=True)
  norm_row = qk - row_max
  exp_row = np.exp(norm_row)
  sum_row = np.sum(exp_row, axis=1, keepdims=True)
  scores = exp_row / sum_row
  v_t = v.T
  attn_out = np.matmul(scores, v_t)
  return attn_out


def attention():
  path = "src/nki_samples/tutorials/attention_fwd_performance/attention_kernels.py"
  out = []

  def inputs(id, seqlen):
    np.random.seed(0)  # the test does not seed
    d_head = 128
    q = ((np.random.random_sample([d_head, seqlen]) - 0.5) * 2).astype(np.float32)
    k = ((np.random.random_sample([d_head, seqlen]) - 0.5) * 2).astype(np.float32)
    v = ((np.random.random_sample([d_head, seqlen]) - 0.5) * 2).astype(np.float32)
    golden = numpy_attention(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64)).astype(np.float32)
    return [save(id, "q", q), save(id, "k", k), save(id, "v", v)], save(id, "golden", golden), golden

  small, small_golden, _ = inputs("smp_attention_128", 128)
  large, large_golden, g = inputs("smp_attention_512", 512)
  fp32 = {"rtol": 1e-4, "atol": 1e-5}
  bf16 = {"rtol": 0, "atol": 1e-2}
  common = ("Golden numpy_attention of test_attention.py, computed in float64 from the float32 inputs "
            "(test: (random_sample - 0.5) * 2 cast with nl.static_cast to float32; seed 0 added). ")
  for v, args, gold, tol, note in (
      ("v1", small, small_golden, fp32, "seqlen 128 (asserted). nl.matmul(transpose_x=True), nl.max/nl.sum(axis=1), "
                                        "nl.subtract, nl.exp, nl.divide, nl.transpose; nl.store(dst=..., value=...)."),
      ("v2", small, small_golden, fp32, "seqlen 128 (asserted). nisa.nc_matmul(stationary=, moving=), tensor_reduce, "
                                        "tensor_scalar, activation, reciprocal, nc_transpose."),
      ("v3", large, large_golden, fp32, "seqlen 512 (published 4096; >= 512 asserted): 4-D PSUM tile "
                                        "(n, m, nl.par_dim(128), 512), intermediates in nl.shared_hbm tensors."),
      ("v4", large, large_golden, fp32, "seqlen 512 (published 4096)."),
      ("v5", large, large_golden, fp32, "seqlen 512 (published 4096)."),
      ("v6", large, large_golden, fp32, "seqlen 512 (published 4096)."),
      ("v7", large, large_golden, bf16, "seqlen 512. v and the scores are cast to bfloat16 (tensor_copy(dtype=nl.bfloat16)) "
                                        "before the P @ V matmul: absolute tolerance 1e-2, the published test's atol."),
      ("v8", large, large_golden, bf16, "seqlen 512; bf16 P @ V as v7: atol 1e-2 (published)."),
      ("v8a", large, large_golden, bf16, "seqlen 512; kernel_out is a bfloat16 HBM tensor (compare after widening to "
                                         "float32); nested functions closing over kernel locals (qk_max(i_tile_q), ...), "
                                         "nl.shared_constant(np.identity(128, dtype=np.int8), dtype=v.dtype), "
                                         "identity_load[...] = nl.load(identity). atol 1e-2 (published)."),
      ("v11", large, large_golden, bf16, "seqlen 512; bfloat16 output; nl.sequential_range(n, "
                                         "directives=nki.compiler.no_reorder()) software pipelining. atol 1e-2 (published).")):
    out.append(entry("smp_attention_" + v, S + path, "attn_fwd_" + v, src(path), args, [gold], tolerance=tol,
                     notes=common + note))
  return out


def contributed():
  out = []
  path = "contributed/maxpooling.py"
  id = "smp_contrib_maxpool"
  np.random.seed(0)
  H, W, k = 200, 200, 3
  x = np.random.random_sample([H, W]).astype(np.float32)
  win = np.lib.stride_tricks.sliding_window_view(x, (k, k))
  golden = win.max(axis=(2, 3))  # = F.max_pool2d(x, kernel_size=3, stride=1, padding=0)
  out.append(entry(id, S + path, "max_pooling_2d_stride_1", src(path), [save(id, "in_tensor", x), {"int": k}],
                   [save(id, "golden", golden)],
                   notes="check_correct uses 448 x 448 (torch.rand) run through nki.baremetal and compares with "
                         "torch F.max_pool2d(stride 1); here 200 x 200 (two partition tiles, the second partly "
                         "masked) and the same reference in numpy (sliding_window_view max). Masks on nl.load, "
                         "nl.max and nl.store; 4-D nl.mgrid; nl.par_dim; math.ceil; the module imports torch "
                         "and torch.nn.functional at load."))
  path = "contributed/matmul.py"
  id = "smp_contrib_matmul"
  np.random.seed(0)
  K, M, N = 256, 128, 512
  A = np.random.random_sample([K, M]).astype(np.float16)
  B = np.random.random_sample([K, N]).astype(np.float16)
  Z = (A.astype(np.float32).T @ B.astype(np.float32)).astype(np.float16)  # check_correct: Z_corr = A.T @ B
  out.append(entry(id, S + path, "matmul", src(path),
                   [save(id, "A", A), save(id, "B", B), {"kw": "TILES_IN_BLOCK_K", "int": 1},
                    {"kw": "TILES_IN_BLOCK_M", "int": 1}, {"kw": "TILES_IN_BLOCK_N", "int": 1}],
                   [save(id, "Z_corr", Z)], call="simulate_kernel", tolerance={"rtol": 1e-2, "atol": 1e-4},
                   notes="`matmul` is not decorated; the file runs it with nki.baremetal()(matmul) on a device, "
                         "here nki.simulate_kernel(matmul, A, B, ...). Block sizes by keyword (1, 1, 1) so "
                         "K = 256, M = 128, N = 512 suffice (published K, M, N = 1024, 4096, 2048). float16 "
                         "inputs, Z_PSUM += nc_matmul(...) in float32, nl.loop_reduce(Z_PSUM, op=np.add, "
                         "loop_indices=[k2], dtype=float16) across the 2 K blocks: the published tolerance "
                         "(atol 1e-4, rtol 1e-2)."))
  return out


def all_entries():
  out = []
  for fn in (tensor_addition, transpose2d, average_pool2d, fused_mamba, attention, contributed):
    out.extend(fn())
  return out
