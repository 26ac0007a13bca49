"""Fixtures for the kernels of aws-neuron-sdk nki/test/test_nki_*.py.

Inputs are made exactly as the published test makes them (np.random.seed(0) where the test seeds;
where it does not, seed 0 is set here so the fixture is reproducible). Expected outputs use the
test's own golden expression, quoted in a comment beside each one.
"""
import numpy as np

from corpus_common import EXACT, bf16_round, entry, save, sdk_source

T = "aws-neuron-sdk/nki/test/"


def src(name):
  return sdk_source("nki/test/" + name)


def nl_add():
  f = "test_nki_nl_add.py"
  out = []

  def case(id, kernel, a_shape, b_shape, scalar=None, note=""):
    np.random.seed(0)
    a = np.random.random_sample(a_shape).astype(np.float32) * 100
    if scalar is None:
      b = np.random.random_sample(b_shape).astype(np.float32) * 100
      c_golden = np.add(a, b)  # test: c_golden = np.add(a, b)
      args = [save(id, "a", a), save(id, "b", b)]
    else:
      c_golden = np.add(a, scalar)  # test: c_golden = np.add(a, b) with b = 2.2
      args = [save(id, "a", a)]
    out.append(entry(id, T + f, kernel, src(f), args, [save(id, "c_golden", c_golden)],
                     notes="float32 + float32 is exact. " + note))

  case("nl_add_tensors", "add_tensors", [128, 512], [128, 512])
  case("nl_add_tensor_scalar", "add_tensor_scalar", [128, 512], None, scalar=2.2,
       note="The scalar 2.2 is a Python float: numpy (NEP 50) adds it as float32, as the engine does.")
  case("nl_add_broadcast_free_dim", "add_broadcast_free_dim", [128, 512], [128, 1])
  case("nl_add_broadcast_par_dim", "add_broadcast_par_dim", [128, 512], [1, 512],
       note="b is [1, 512]: broadcast along the partition dimension.")
  case("nl_add_broadcast_both_dims", "add_broadcast_both_dims", [128, 512], [1, 1])
  case("nl_add_broadcast_each_dims", "add_broadcast_each_dims", [128, 1], [1, 512],
       note="Output [128, 512] from a [128, 1] and a [1, 512] tile.")
  return out


def isa_tensor_tensor():
  f = "test_nki_isa_tensor_tensor.py"
  id = "isa_tensor_tensor"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 512]).astype(np.float32) * 100
  b = np.random.random_sample([128, 512]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_tensor_tensor", src(f), [save(id, "a", a), save(id, "b", b)],
                [save(id, "c_golden", np.add(a, b))],  # test: np.add(a, b)
                notes="Unseeded in the published test; seed 0 here.")]


def isa_activation():
  f = "test_nki_isa_activation.py"
  id = "isa_activation"
  np.random.seed(0)
  a = np.random.random_sample([128, 1024]).astype(np.float32) * 100
  b = np.random.random_sample([128, 512]).astype(np.float32) * 100
  c = np.random.random_sample([128, 1]).astype(np.float32) * 100
  with np.errstate(over="ignore"):
    a_act_golden = np.exp(a)  # test: np.exp(a)
  b_act_golden = bf16_round(np.square(b * 2 + c))  # test: np.square(b*2+c), then bf16 (dtype=nl.bfloat16)
  return [entry(id, T + f, "nki_activation", src(f),
                [save(id, "a", a), save(id, "b", b), save(id, "c", c)],
                [save(id, "a_act_golden", a_act_golden), save(id, "b_act_golden", b_act_golden)],
                tolerance=[{"rtol": 1e-6, "atol": 0}, {"rtol": 4e-3, "atol": 0}],
                notes="a is up to 100, so exp(a) overflows float32 to inf wherever a > 88.72 (as in "
                      "the published test, whose allclose treats inf == inf). exp is a transcendental "
                      "(float32 result within 1e-6 relative). The second output is computed in float32 "
                      "then cast to bfloat16 (dtype=nl.bfloat16) and stored into a float32 tensor: the "
                      "expected values are the float32 golden rounded to bf16 (ties to even), so one bf16 "
                      "ulp (2^-8 relative) is the honest tolerance; a per-output tolerance would be "
                      "{rtol 1e-6} for output 0 and {rtol 4e-3} for output 1.",
                )]


def isa_nc_matmul():
  f = "test_nki_isa_nc_matmul.py"
  id = "isa_nc_matmul"
  np.random.seed(0)
  a = np.random.random_sample([128, 128]).astype(np.float32) * 100
  b = np.random.random_sample([128, 512]).astype(np.float32) * 100
  d = np.random.random_sample([256, 128]).astype(np.float32) * 100
  e = np.random.random_sample([256, 512]).astype(np.float32) * 100
  g = np.random.random_sample([16, 64, 64]).astype(np.float32) * 100
  h = np.random.random_sample([16, 64, 512]).astype(np.float32) * 100
  c_golden = np.matmul(np.transpose(a), b)
  f_golden = np.matmul(np.transpose(d), e)
  i_golden = np.matmul(g.transpose(0, 2, 1), h)
  args = [save(id, n, x) for n, x in (("a", a), ("b", b), ("d", d), ("e", e), ("g", g), ("h", h))]
  return [entry(id, T + f, "nki_nc_matmul", src(f), args,
                [save(id, "c_golden", c_golden), save(id, "f_golden", f_golden),
                 save(id, "i_golden", i_golden)],
                tolerance={"rtol": 3e-5, "atol": 0},
                notes="Goldens as the test: np.matmul(a.T, b), np.matmul(d.T, e), "
                      "np.matmul(g.transpose(0, 2, 1), h), in float32. Sums of 64-256 positive products: "
                      "summation order alone moves results by up to ~2e-5 relative. h and i_golden are "
                      "2 MB each: the kernel hard-codes [16, 64, 512], so they cannot be shrunk.")]


def nl_load_store():
  f = "test_nki_nl_load_store.py"
  out = []
  np.random.seed(0)  # the test does not seed
  src_ = np.random.random_sample([128, 512]).astype(np.float32) * 100
  id = "nl_load_store"
  out.append(entry(id, T + f, "example_kernel", src(f), [save(id, "src", src_)],
                   [save(id, "dst_golden", src_)], notes="Copy: test asserts allclose(src, dst)."))
  id = "nl_load_store_scalar"
  src_ = np.ones([128, 512]).astype(np.int32) * 100
  out.append(entry(id, T + f, "example_kernel", src(f),
                   [save(id, "src", src_), {"kw": "use_scalar", "bool": True}],
                   [save(id, "dst_golden", src_)],
                   notes="use_scalar=True: nl.store(out_tensor, 100) memsets an int32 tensor. "
                         "The `if use_scalar:` branch is a Python if on a kernel argument."))
  id = "nl_load_store_3d"
  np.random.seed(0)  # the test does not seed
  x = np.random.random_sample([4, 128, 512]).astype(np.float32) * 100
  out.append(entry(id, T + f, "example_load_store_b", src(f), [save(id, "in_tensor", x)],
                   [save(id, "out_golden", x)],
                   notes="Writes into an nl.zeros tile with data_tile[i_p, i_f] = nl.load(...)."))
  return out


def nl_broadcast():
  f = "test_nki_nl_broadcast.py"
  out = []
  id = "nl_broadcast_to"
  np.random.seed(0)  # the test does not seed
  s = np.random.random_sample([1, 64]).astype(np.int32) * 100
  out.append(entry(id, T + f, "test_nl_broadcast", src(f), [save(id, "src", s)],
                   [save(id, "dst_golden", np.repeat(s, 128, axis=0))],
                   notes="As published the input is all zeros (random_sample in [0, 1) cast to int32, "
                         "then * 100). Golden np.repeat(src, 128, axis=0)."))
  id = "nl_broadcast_to_nonzero"
  np.random.seed(0)
  s = (np.random.random_sample([1, 64]) * 100).astype(np.int32)
  out.append(entry(id, T + f, "test_nl_broadcast", src(f), [save(id, "src", s)],
                   [save(id, "dst_golden", np.repeat(s, 128, axis=0))],
                   notes="Not in the published test: the same kernel with non-zero int32 input "
                         "((random_sample * 100).astype(int32)), so a broadcast that drops data fails."))
  return out


def nl_dslice():
  f = "test_nki_nl_dslice.py"
  id = "nl_dslice"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 1024]).astype(np.float32) * 100
  return [entry(id, T + f, "example_kernel", src(f), [save(id, "a", a)], [save(id, "b_golden", a)],
                notes="Published size [128, 4096] shrunk to [128, 1024] (the kernel loops over "
                      "shape[1] // 512, any multiple of 512 works).")]


def nl_mgrid():
  f = "test_nki_nl_mgrid.py"
  out = []
  for id, k in (("nl_mgrid", "example_kernel"), ("nl_mgrid_grid", "example_kernel_1")):
    np.random.seed(0)  # the test does not seed
    a = np.random.random_sample([128, 512]).astype(np.float32) * 100
    out.append(entry(id, T + f, k, src(f), [save(id, "a", a)], [save(id, "b_golden", a)],
                     notes="Copy through nl.mgrid indices."))
  return out


def mask():
  f = "test_nki_mask.py"
  id = "nl_mask"
  np.random.seed(0)
  a = np.random.random_sample([128, 512]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_mask", src(f), [save(id, "a", a)],
                [save(id, "b_golden", np.square(a[:64, :256]))],  # test: np.square(a[:64, :256])
                notes="Output [64, 256]; the store indexes it with i_p < 128, i_f < 512 under a mask "
                      "(i_p < 64) & (i_f < 256). x*x is one float32 rounding: exact.")]


def memory_semantics():
  f = "test_nki_memory_semantics.py"
  id = "memory_semantics"
  np.random.seed(0)
  a = np.random.random_sample([4, 128, 128]).astype(np.float32) * 100
  with np.errstate(over="ignore"):
    golden = np.exp(a)  # test: np.exp(a)
  return [entry(id, T + f, "simple_demo_kernel", src(f), [save(id, "a", a)], [save(id, "golden", golden)],
                tolerance={"rtol": 1e-6, "atol": 0},
                notes="Published [4, 128, 512] shrunk to [4, 128, 128] (B, N, M come from the shape). "
                      "exp of values up to 100 overflows to inf above 88.72, as in the published test.")]


def simulate_kernel():
  f = "test_nki_simulate_kernel.py"
  id = "simulate_kernel_print"
  np.random.seed(0)
  a = np.random.random_sample([3, 4]).astype(np.float32) * 10
  return [entry(id, T + f, "print_kernel", src(f), [save(id, "a", a)], [save(id, "b_golden", a)],
                call="simulate_kernel",
                notes="Called as nki.simulate_kernel(print_kernel, a); nl.device_print prints "
                      "'value of a:' and the tile. The output is nl.empty_like(a, buffer=nl.hbm).")]


def spmd_grid():
  f = "test_nki_spmd_grid.py"
  id = "spmd_grid"
  np.random.seed(0)
  s = np.random.random_sample([4, 2, 1, 1]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_spmd_kernel", src(f), [save(id, "src", s)], [save(id, "dst_golden", s)],
                grid=[4, 2],
                notes="Each instance copies a[i, j] (a [1, 1] tile). The module re-binds the name: "
                      "nki_spmd_kernel = nki.jit(nki_spmd_kernel, mode='simulation', platform_target='trn2'). "
                      "The test also launches with grids [nl.spmd_dim(nl.nc(2), 2), 2], [nl.nc(2) * 2, 2], "
                      "[nl.spmd_dim(2, nl.nc(2)), 2] and [2 * nl.nc(2), 2]: same output.")]


def nl_load_transpose2d():
  f = "test_nki_nl_load_transpose2d.py"
  np.random.seed(0)
  s = np.random.random_sample([512, 128]).astype(np.float32) * 100
  shared = save("nl_load_transpose2d", "src", s)
  golden = save("nl_load_transpose2d", "dst_golden", np.transpose(s))
  return [
    entry("nl_load_transpose2d", T + f, "example_kernel_0", src(f), [shared], [golden],
          notes="nl.load_transpose2d of an [N, 128] HBM tensor into a [128, N] tile. Published "
                "N = 2048 shrunk to 512 (N, M come from the shape)."),
    entry("isa_dma_transpose_load", T + f, "example_kernel_1", src(f), [shared], [golden],
          notes="nisa.dma_transpose, imported inside the kernel (import neuronxcc.nki.isa as nisa). "
                "Shares the fixtures of nl_load_transpose2d."),
  ]


def isa_dma_copy():
  f = "test_nki_isa_dma_copy.py"
  out = []
  id = "isa_dma_copy"
  np.random.seed(0)
  s = np.random.random_sample([256, 1]).astype(np.float32) * 100
  out.append(entry(id, T + f, "nki_dma_copy", src(f), [save(id, "src", s)], [save(id, "dst_golden", s)],
                   notes="HBM to HBM nisa.dma_copy(dst=b, src=a) of a [256, 1] tensor."))

  np.random.seed(0)
  a = np.random.random_sample([128, 512]).astype(np.float32)
  a_in = save("isa_dma_indirect_load_oob_err", "a", a)
  b_golden = a[2 * np.arange(64, dtype=np.int32)]  # test golden
  out.append(entry("isa_dma_indirect_load_oob_err", T + f, "nki_indirect_load_oob_err", src(f), [a_in],
                   [save("isa_dma_indirect_load_oob_err", "b_golden", b_golden)],
                   notes="Gather rows 0, 2, ..., 126 through an iota index tile; oob_mode=error, in bounds."))
  out.append(entry("isa_dma_indirect_load_oob_err_negative", T + f, "nki_indirect_load_oob_error_negative",
                   src(f), [a_in], [],
                   expected_error={"python": "IndexError",
                                   "message": "index 66048 is out of bounds for axis 0 with size 65536"},
                   notes="Rows 0, 3, ..., 189: row 129 and beyond are out of bounds with oob_mode=error. "
                         "The published test expects IndexError with that message (element index "
                         "129 * 512 = 66048 of 65536); gpsimd reports its own HbmAccessError naming the "
                         "tensor and range."))
  n, m = a.shape
  b_golden = np.full((n // 2, m), -1, dtype=a.dtype)  # test golden
  indices = 3 * np.arange((n // 3) + 1)
  b_golden[0:len(indices)] = a[indices, :]
  out.append(entry("isa_dma_indirect_load_oob_skip", T + f, "nki_indirect_load_oob_skip", src(f), [a_in],
                   [save("isa_dma_indirect_load_oob_skip", "b_golden", b_golden)],
                   notes="oob_mode=skip: out-of-bounds rows are skipped and keep the memset -1."))

  np.random.seed(0)
  a = np.random.random_sample([64, 512]).astype(np.float32)
  a64 = save("isa_dma_indirect_store_rmw", "a", a)
  n, m = a.shape
  g = np.full(shape=(2 * n, m), fill_value=1, dtype=a.dtype)
  g[2 * np.arange(n, dtype=np.int32)] += a
  out.append(entry("isa_dma_indirect_store_rmw", T + f, "nki_indirect_store_rmw", src(f), [a64],
                   [save("isa_dma_indirect_store_rmw", "b_golden", g)],
                   notes="Scatter-add (dst_rmw_op=np.add) into HBM rows 0, 2, ..., 126 of a tensor "
                         "first filled with 1 by nl.store; 1 + a is one float32 addition: exact."))
  g = np.full(shape=(2 * n, m), fill_value=-1, dtype=a.dtype)
  g[2 * np.arange(n, dtype=np.int32)] = a
  out.append(entry("isa_dma_indirect_store_oob_err", T + f, "nki_indirect_store_oob_err", src(f), [a64],
                   [save("isa_dma_indirect_store_oob_err", "b_golden", g)],
                   notes="Scatter to rows 0, 2, ..., 126 (in bounds)."))
  out.append(entry("isa_dma_indirect_store_oob_err_negative", T + f, "nki_indirect_store_oob_err_negative",
                   src(f), [a64], [],
                   expected_error={"python": "IndexError",
                                   "message": "index 66048 is out of bounds for axis 0 with size 65536"},
                   notes="Scatter to rows 0, 3, ..., 189 of a 128-row tensor with oob_mode=error."))
  g = np.full(shape=(2 * n, m), fill_value=-1, dtype=a.dtype)
  indices = 3 * np.arange(((2 * n) // 3) + 1)
  g[indices, :] = a[0:len(indices), :]
  out.append(entry("isa_dma_indirect_store_oob_skip", T + f, "nki_indirect_store_oob_skip", src(f), [a64],
                   [save("isa_dma_indirect_store_oob_skip", "b_golden", g)],
                   notes="oob_mode=skip: rows past 127 are dropped."))
  out.append(entry("isa_dma_copy_swdge", T + f, "nki_dma_copy_swdge", src(f), [a64],
                   [a64["npy"]], notes="dge_mode=nisa.dge_mode.swdge; HBM to HBM copy of [64, 512]."))
  np.random.seed(0)
  a = np.random.random_sample([128, 512]).astype(np.float32)
  x = save("isa_dma_copy_hwdge", "a", a)
  out.append(entry("isa_dma_copy_hwdge", T + f, "nki_dma_copy_hwdge", src(f), [x], [x["npy"]],
                   notes="platform_target='trn2'; dge_mode=nisa.dge_mode.hwdge SBUF to SBUF copy; "
                         "nl.zeros_like(inp_tile, buffer=nl.sbuf)."))
  return out


def isa_tensor_scalar():
  f = "test_nki_isa_tensor_scalar.py"
  id = "isa_tensor_scalar"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 512]).astype(np.float32) * 100
  c = np.random.random_sample([128, 512]).astype(np.float32) * 100
  e = np.random.random_sample([64, 1024]).astype(np.float32) * 100
  f_ = np.random.random_sample([64, 1]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_tensor_scalar", src(f),
                [save(id, "a", a), save(id, "c", c), save(id, "e", e), save(id, "f", f_)],
                # test: allclose(b, a-1), (d, 1-c), (g, e*f + 2.5)
                [save(id, "b_golden", a - 1), save(id, "d_golden", 1 - c), save(id, "g_golden", e * f_ + 2.5)],
                notes="Goldens a-1, 1-c (reverse0=True), e*f + 2.5, each operation rounded to float32 "
                      "in turn (as numpy float32 does): exact if the engine rounds after each op.")]


def isa_iota():
  f = "test_nki_isa_iota.py"
  id = "isa_iota"
  a_golden = np.expand_dims(np.arange(0, 512), 0)
  b_golden = np.expand_dims(np.arange(0, 128), 1)
  c_golden = np.expand_dims(np.arange(0, 512) * -1, 0)
  d_golden = np.expand_dims(np.arange(5, 260, 2), 1)
  e_golden = a_golden + b_golden
  gold = [save(id, n, x.astype(np.float32)) for n, x in
          (("a_golden", a_golden), ("b_golden", b_golden), ("c_golden", c_golden),
           ("d_golden", d_golden), ("e_golden", e_golden))]
  return [entry(id, T + f, "nki_iota", src(f), [], gold,
                notes="No arguments. Five int32 iota tiles stored into float32 HBM tensors "
                      "(goldens as the test, cast to float32). Stores index HBM with nl.arange "
                      "expressions and an int: a_tensor[0, expr_a].")]


def isa_memset():
  f = "test_nki_isa_memset.py"
  id = "isa_memset"
  return [entry(id, T + f, "nki_memset", src(f), [],
                [save(id, "a_golden", np.full([128, 128], 0.2).astype(np.float32))],
                notes="0.2 rounded to float32.")]


def isa_reduce():
  f = "test_nki_isa_reduce.py"
  id = "isa_tensor_reduce"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 512]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_reduce", src(f), [save(id, "a", a)],
                [save(id, "b_golden", np.sum(a, axis=1, keepdims=True))],
                tolerance={"rtol": 1e-5, "atol": 0},
                notes="Golden np.sum(a, axis=1, keepdims=True) in float32 (pairwise); a sum of 512 "
                      "positive values, order-dependent in the last bits.")]


def isa_reciprocal():
  f = "test_nki_isa_reciprocal.py"
  id = "isa_reciprocal"
  np.random.seed(0)
  s = np.random.random_sample([128, 512]).astype(np.float32) * 100
  return [entry(id, T + f, "reciprocal_kernel", src(f), [save(id, "src", s)],
                [save(id, "dst_golden", np.reciprocal(s))],
                tolerance={"rtol": 1e-6, "atol": 0},
                notes="np.reciprocal in float32 is a correctly rounded 1/x; the engine's reciprocal is "
                      "an approximation on hardware, hence a relative tolerance. Indexes with "
                      "in_tensor[nl.mgrid[0:128, 0:512]] (an mgrid object as the whole index).")]


def isa_tensor_copy():
  f = "test_nki_isa_tensor_copy.py"
  id = "isa_tensor_copy"
  np.random.seed(0)
  s = np.random.random_sample([8, 8]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_tensor_copy", src(f), [save(id, "src", s)], [save(id, "dst_golden", s)],
                notes="engine=nisa.vector_engine.")]


def isa_nc_transpose():
  f = "test_nki_isa_nc_transpose.py"
  id = "isa_nc_transpose"
  np.random.seed(0)
  a = np.random.random_sample([128, 64]).astype(np.float32) * 100
  b = np.random.random_sample([32, 2]).astype(np.float32) * 100
  return [entry(id, T + f, "nki_nc_transpose", src(f), [save(id, "a", a), save(id, "b", b)],
                [save(id, "aT_golden", np.transpose(a)), save(id, "bT_golden", np.transpose(b))],
                notes="Tensor Engine transpose (default engine) and engine=nisa.vector_engine; data "
                      "movement, exact.")]


def isa_affine_select():
  f = "test_nki_isa_affine_select.py"
  id = "isa_affine_select"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 128]).astype(np.float32) * 100
  b_golden = np.copy(a)
  triui = np.triu_indices_from(b_golden)
  b_golden[triui] = np.finfo(np.float32).min  # test: nl.fp32.min
  return [entry(id, T + f, "nki_affine_select", src(f), [save(id, "a", a)], [save(id, "b_golden", b_golden)],
                notes="pred=(iy < ix) keeps the strict lower triangle; the rest becomes nl.fp32.min, "
                      "taken here as np.finfo(np.float32).min = -3.4028235e38 (the golden uses nl.fp32.min).")]


def isa_tensor_tensor_scan():
  f = "test_nki_isa_tensor_tensor_scan.py"
  id = "isa_tensor_tensor_scan"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 1024]).astype(np.float32)
  b = np.random.random_sample([128, 1024]).astype(np.float32)
  golden = np.zeros(a.shape)  # test golden, float64 as published
  golden[:, 0] = a[:, 0] * 0 + b[:, 0]
  for i in range(1, a.shape[1]):
    golden[:, i] = a[:, i] * golden[:, i - 1] + b[:, i]
  return [entry(id, T + f, "nki_tensor_tensor_scan", src(f), [save(id, "a", a), save(id, "b", b)],
                [save(id, "golden", golden.astype(np.float32))],
                tolerance={"rtol": 1e-5, "atol": 1e-6},
                notes="c[i] = a[i] * c[i-1] + b[i] along the free axis; the published golden runs in "
                      "float64 (stored here cast to float32), the kernel in float32. The second scan "
                      "starts from initial=c[:, 511], a [128, 1] slice of a tile written by the first.")]


def isa_partition_reduce():
  f = "test_nki_isa_partition_reduce.py"
  out = []
  id = "isa_partition_reduce"
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 32, 4]).astype(np.float32) * 100
  out.append(entry(id, T + f, "nki_par_reduce", src(f),
                   [save(id, "a", a), save(id, "b_initial", np.zeros((1, 32, 4), np.float32))],
                   [save(id, "b_golden", np.sum(a, axis=0, keepdims=True))], outputs=[1],
                   call="simulate_kernel", tolerance={"rtol": 1e-5, "atol": 0},
                   notes="nki_jit = nki.trace; simulate_kernel(nki_par_reduce, a, b) writes into b "
                         "(output argument, np.ndarray in the test; zeros here). Sum over 128 partitions."))
  id = "isa_partition_reduce_nd_b"
  np.random.seed(0)
  a = np.random.random_sample([2, 128, 32, 8]).astype(np.float32) * 100
  out.append(entry(id, T + f, "nki_par_reduce_nd_b", src(f),
                   [save(id, "a", a), save(id, "b_initial", np.zeros((2, 1, 32, 8), np.float32))],
                   [save(id, "b_golden", np.sum(a, axis=1, keepdims=True))], outputs=[1],
                   call="simulate_kernel", tolerance={"rtol": 1e-5, "atol": 0},
                   notes="Loop over a_tensor.shape[0]; a_tensor[i] drops the leading axis. Published "
                         "[4, 128, 32, 8] shrunk to [2, 128, 32, 8]."))
  return out


def isa_copy_predicated():
  f = "test_nki_isa_copypredicated.py"
  id = "isa_copy_predicated"
  np.random.seed(0)
  a = np.random.random_sample([128, 512]).astype(np.float32) * 100
  b = np.random.random_sample([128, 512]).astype(np.float32) * 100
  pred = np.less_equal(a, 0.8)
  return [entry(id, T + f, "nki_copy_predicated", src(f),
                [save(id, "predicate", pred), save(id, "a", a), save(id, "b", b)],
                [save(id, "b_golden", np.where(pred, a, b))],
                notes="The predicate argument is a numpy bool array (np.less_equal(a, 0.8)), loaded "
                      "with nl.load. About 0.8% of elements are true.")]


def all_entries():
  out = []
  for fn in (nl_add, isa_tensor_tensor, isa_activation, isa_nc_matmul, nl_load_store, nl_broadcast,
             nl_dslice, nl_mgrid, mask, memory_semantics, simulate_kernel, spmd_grid,
             nl_load_transpose2d, isa_dma_copy, isa_tensor_scalar, isa_iota, isa_memset, isa_reduce,
             isa_reciprocal, isa_tensor_copy, isa_nc_transpose, isa_affine_select,
             isa_tensor_tensor_scan, isa_partition_reduce, isa_copy_predicated):
    out.extend(fn())
  return out
