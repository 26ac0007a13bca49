"""Fixtures for more aws-neuron-sdk nki/test kernels: indirect load/store, DMA transpose, bn_stats,
stream shuffle, sequence bounds, local gather, range_select and select_reduce. As in
gen_sdk_tests.py: the published inputs (seed 0 where the test has none) and the test's own golden."""
import numpy as np

from corpus_common import entry, save, sdk_source

T = "aws-neuron-sdk/nki/test/"
FP32_MIN = np.finfo(np.float32).min  # nl.fp32.min


def src(name):
  return sdk_source("nki/test/" + name)


def load_store_indirect():
  f = "test_nki_nl_load_store_indirect.py"
  out = []
  np.random.seed(0)
  x = np.random.random_sample([128, 512]).astype(np.float32) * 100
  idx = 2 * np.arange(64, dtype=np.int32)
  a, i = save("nl_indirect_load_1", "in_tensor", x), save("nl_indirect_load_1", "idx_tensor", idx)
  g = save("nl_indirect_load_1", "golden", x[idx])  # test: golden = in_tensor[idx_tensor]
  out.append(entry("nl_indirect_load_1", T + f, "example_indirect_load_1", src(f), [a, i], [g],
                   notes="Rows gathered through an index tile loaded from HBM: "
                         "data_tensor[idx_tile[i_p, 0], i_f]."))
  out.append(entry("nl_indirect_load_2", T + f, "example_indirect_load_2", src(f), [a], [g],
                   notes="Rows gathered through an iota index tile: data_tensor[idx_tile, i_f]."))
  np.random.seed(0)
  y = np.random.random_sample([64, 512]).astype(np.float32) * 100
  b = save("nl_indirect_save_1", "in_tensor", y)
  for id, k, args, how in (
      ("nl_indirect_save_1", "example_indirect_save_1", [b, i], "an index tile loaded from HBM"),
      ("nl_indirect_save_2", "example_indirect_save_2", [b], "an iota index tile")):
    e = entry(id, T + f, k, src(f), args, [b["npy"]],
              notes="Scatter of 64 rows into rows 0, 2, ..., 126 of a [128, 512] output through %s. "
                    "Only those rows are written (the odd rows are never written: undefined), so "
                    "compare_rows [0, 128, 2] compares output[0:128:2] with the input, as the test does "
                    "(allclose(out_tensor[idx_tensor], in_tensor))." % how)
    e["compare_rows"] = [0, 128, 2]
    out.append(e)
  return out


def dma_transpose():
  f = "test_nki_isa_dma_transpose.py"
  np.random.seed(0)
  s = np.random.random_sample([16, 128]).astype(np.float16) * 100
  a, g = save("isa_dma_transpose_2d", "src", s), save("isa_dma_transpose_2d", "dst_golden", np.transpose(s))
  out = []
  for id, k, note in (("isa_dma_transpose_2d", "nki_dma_transpose_2d_hbm2sb", "HBM to SBUF."),
                      ("isa_dma_transpose_2d_sb2sb", "nki_dma_transpose_2d_sb2sb", "SBUF to SBUF."),
                      ("isa_dma_transpose_2d_xbar", "nki_dma_transpose_2d_hbm2sb_dge_xbar",
                       "HBM to SBUF, dge_mode=dge_mode.hwdge (imported from neuronxcc.nki.isa.constants); "
                       "platform_target='trn2'."),
                      ("isa_dma_transpose_2d_sb2sb_xbar", "nki_dma_transpose_2d_sb2sb_dge_xbar",
                       "SBUF to SBUF, dge_mode=dge_mode.hwdge; platform_target='trn2'.")):
    out.append(entry(id, T + f, k, src(f), [a], [g],
                     notes="float16 [16, 128] transposed to [128, 16] by nisa.dma_transpose(a[:, :]); output "
                           "nl.ndarray(shape=b_sb.shape, dtype=b_sb.dtype, buffer=nl.hbm) written with "
                           "nl.store(dst=b, value=b_sb). " + note))
  return out


def bn_stats():
  f = "test_nki_isa_bn_stats.py"
  out = []
  np.random.seed(0)  # the test does not seed
  a = np.random.random_sample([128, 128]).astype(np.float32) * 100
  b = np.random.random_sample([128, 1024]).astype(np.float32) * 100
  for id, k, x, note in (
      ("isa_bn_stats_1", "nki_bn_stats_bn_aggr_1", a, "One bn_stats of [128, 128] then bn_aggr."),
      ("isa_bn_stats_2", "nki_bn_stats_bn_aggr_2", b,
       "Two bn_stats of nl.tile_size.bn_stats_fmax (512) columns written into a [128, 12] tile "
       "(stats_b[iz, i * 6 + iw] = ...), then bn_aggr; plain Python range loop.")):
    out.append(entry(id, T + f, k, src(f), [save(id, "x", x)],
                     [save(id, "mean_golden", np.mean(x, axis=1, keepdims=True)),
                      save(id, "var_golden", np.var(x, axis=1, keepdims=True))],
                     tolerance={"rtol": 1e-4, "atol": 0},
                     notes="Goldens np.mean / np.var(axis=1, keepdims=True) (population variance) in float32. "
                           "The kernel stores mean_var[:, 0] and [:, 1] (integer index on the free axis) into "
                           "[128, 1] tensors. " + note))
  return out


def stream_shuffle():
  f = "test_nki_isa_nc_stream_shuffle.py"
  out = []
  np.random.seed(0)  # the test does not seed
  x = np.random.random_sample([32, 128]).astype(np.float32) * 100
  g = x.copy()
  g[list(range(32))] = g[[(i - 1) % 32 for i in range(32)]]  # test golden
  out.append(entry("isa_stream_shuffle", T + f, "nki_nc_stream_shuffle", src(f), [save("isa_stream_shuffle", "in", x)],
                   [save("isa_stream_shuffle", "golden", g)], call="simulate_kernel",
                   notes="In place (src and dst the same tile): partition i receives partition (i - 1) % 32. "
                         "shuffle_mask is a Python list built by a list comprehension."))
  np.random.seed(0)
  x = np.random.random_sample([1, 128]).astype(np.float32) * 100
  out.append(entry("isa_stream_shuffle_broadcast_partition", T + f, "nki_nc_stream_shuffle_broadcast_partition",
                   src(f), [save("isa_stream_shuffle_broadcast_partition", "in", x)],
                   [save("isa_stream_shuffle_broadcast_partition", "golden", np.repeat(x, 32, axis=0))],
                   call="simulate_kernel",
                   notes="Partition 0 broadcast to 32 partitions (shuffle_mask = [0] * 32); src is a[0, src_mgrid.x]."))
  np.random.seed(0)
  x = np.random.random_sample([128, 128]).astype(np.float32) * 100
  g = x.copy()
  for j in range(4):  # test golden
    g[list(range(j * 32, (j + 1) * 32))] = g[[(i - 1) % 32 + j * 32 for i in range(32)]]
  out.append(entry("isa_stream_shuffle_broadcast_mask", T + f, "nki_nc_stream_shuffle_broadcast_mask", src(f),
                   [save("isa_stream_shuffle_broadcast_mask", "in", x)],
                   [save("isa_stream_shuffle_broadcast_mask", "golden", g)], call="simulate_kernel",
                   notes="128 partitions: the 32-entry mask applies to each quadrant of 32 partitions."))
  return out


def sequence_bounds():
  f = "test_nki_isa_sequence_bounds.py"
  id = "isa_sequence_bounds"
  m, n = 1, 32
  np.random.seed(0)
  segment_ids = np.sort(np.random.randint(low=0, high=m * n, size=n))
  segment_ids = segment_ids.reshape((m, n), order='F').astype(np.float32)

  def compute_sequence_bounds(sequence):  # copied from the test
    n = len(sequence)
    min_bounds = np.zeros(n, dtype=sequence.dtype)
    max_bounds = np.zeros(n, dtype=sequence.dtype)
    min_bound_pad = n
    max_bound_pad = -1
    min_bounds[0] = 0 if sequence[0] != 0 else min_bound_pad
    for i in range(1, n):
      if sequence[i] == 0:
        min_bounds[i] = min_bound_pad
      elif sequence[i] == sequence[i - 1]:
        min_bounds[i] = min_bounds[i - 1]
      else:
        min_bounds[i] = i
    max_bounds[-1] = n if sequence[-1] != 0 else max_bound_pad
    for i in range(n - 2, -1, -1):
      if sequence[i] == 0:
        max_bounds[i] = max_bound_pad
      elif sequence[i] == sequence[i + 1]:
        max_bounds[i] = max_bounds[i + 1]
      else:
        max_bounds[i] = i + 1
    return np.vstack((min_bounds, max_bounds))

  b = np.apply_along_axis(compute_sequence_bounds, axis=1, arr=segment_ids).reshape(m, 2, n).astype(np.float32)
  return [entry(id, T + f, "nki_sequence_bounds", src(f), [{"kw": "segment_ids", **save(id, "segment_ids", segment_ids)}],
                [save(id, "golden", b)],
                notes="As the test (seed 0): sorted segment ids [1, 32] as float32, passed by keyword "
                      "(segment_ids=...). out_tile[ix, iy, iz] = nisa.sequence_bounds(segment_ids=seq_tile), "
                      "a [1, 2, 32] result (start, end per element; 32 / -1 pads for segment 0).")]


def local_gather():
  f = "test_nki_isa_local_gather.py"
  id = "isa_local_gather"
  # The test's NUMPY_SEMANTICS blocks, with the source shrunk from [128, 512, 4] to [128, 64, 4].
  num_gpsimd_cores = 8
  num_partitions_per_core = 16
  np.random.seed(0)  # the test does not seed
  src_buffer = np.random.random_sample([128, 64, 4]).astype(np.float32) * 100
  index_per_core = np.random.randint(low=0, high=64, size=(16, 4), dtype=np.uint16)
  index = np.tile(index_per_core, (num_gpsimd_cores, 1))
  num_elem_per_idx = 4
  index_hw = index * num_elem_per_idx
  num_valid_indices = 64
  output_shape = (128, 4, 16, 4)
  output_np = np.ndarray(shape=(128, num_valid_indices, num_elem_per_idx), dtype=src_buffer.dtype)
  for i_core in range(num_gpsimd_cores):
    start_par = i_core * num_partitions_per_core
    end_par = (i_core + 1) * num_partitions_per_core
    indices_1d = index[start_par:end_par].flatten(order='F')[0: num_valid_indices]
    output_np[start_par:end_par, :, :] = np.take(src_buffer[start_par:end_par], indices_1d, axis=1)
  output_np = output_np.reshape(output_shape)
  return [entry(id, T + f, "nki_local_gather", src(f),
                [save(id, "src_buffer", src_buffer), save(id, "index_hw", index_hw), {"int": num_elem_per_idx},
                 {"int": num_valid_indices}, {"tuple": list(output_shape)}],
                [save(id, "output_np", output_np)],
                notes="GpSimd gather: each core (16 partitions) gathers 64 indices (uint16 element offsets, "
                      "index * 4) of 4 contiguous elements from its own partitions. The test's numpy semantics "
                      "block is the golden. Source shrunk from [128, 512, 4] to [128, 64, 4] (indices < 64). "
                      "The test imports numpy inside the test method only; the kernel uses no numpy.")]


def range_select():
  f = "test_nki_isa_range_select.py"
  out = []
  id = "isa_range_select"
  np.random.seed(0)  # the test does not seed
  bound0 = np.zeros([128, 1], dtype=np.float32)
  bound1 = np.full([128, 1], 64, dtype=np.float32)
  range_start = 32
  on_true_data = np.random.random_sample((128, 512)).astype(np.float32)
  indices = np.zeros_like(on_true_data, dtype=np.float32)
  indices[:] = range_start + np.arange(on_true_data.shape[1])
  mask = np.greater_equal(indices, bound0) & np.less(indices, bound1)
  golden = np.where(mask, on_true_data, FP32_MIN)
  golden_reduce = np.max(golden, axis=1, keepdims=True)
  b0, b1 = save(id, "bound0", bound0), save(id, "bound1", bound1)
  out.append(entry(id, T + f, "nki_range_select_example", src(f),
                   [save(id, "on_true", on_true_data), b0, b1, {"numpy": "greater_equal"}, {"numpy": "less"},
                    {"int": range_start}, {"dtype": "float32"}],
                   [save(id, "golden", golden), save(id, "golden_reduce", golden_reduce)],
                   notes="float32 only (the test also loops over fp8, bf16 and fp16). numpy comparison functions "
                         "and a dtype are kernel arguments. Keeps columns with 0 <= 32 + j < 64, the rest "
                         "nl.fp32.min; max-reduces into reduce_res. The kernel returns the SBUF tile `result` "
                         "(not the HBM select_res it stores) and the HBM reduce_result. platform_target='trn2'."))
  id = "isa_range_select_chaining"
  np.random.seed(1)
  on_true_data = np.random.random_sample((128, 512)).astype(np.float32)
  bound1 = np.full([128, 1], 350, dtype=np.float32)
  indices = np.zeros_like(on_true_data)  # test golden
  golden = on_true_data.copy()
  golden_max = np.zeros((on_true_data.shape[0], 1), dtype=on_true_data.dtype)
  selected = golden_max.copy()
  iteration_step_size = on_true_data.shape[0]
  for i in range(3):
    indices[:] = range_start + (i * iteration_step_size) + np.arange(on_true_data.shape[1])
    mask = np.greater_equal(indices, bound0) & np.less(indices, bound1)
    selected = np.where(mask, golden, FP32_MIN)
    golden_max = np.maximum(golden_max, np.max(selected, axis=1, keepdims=True))
    golden = golden + 1
  out.append(entry(id, T + f, "nki_range_select_chaining", src(f),
                   [save(id, "on_true", on_true_data), b0, save(id, "bound1", bound1), {"numpy": "greater_equal"},
                    {"numpy": "less"}, {"int": range_start}],
                   [save(id, "selected", selected), save(id, "golden_max", golden_max)],
                   notes="Three range_select calls chained through the accumulation register: reset_reduce, "
                         "reduce (no reduce_res), reduce with reduce_res; nl.full(..., fill_value=1) added "
                         "between calls; range_start moves by 128 each step. Golden from the test (seed 1 here)."))
  return out


def select_reduce():
  f = "test_nki_isa_select_reduce.py"
  out = []
  on_true = np.ones((128, 64), dtype=np.float32)
  pred = np.zeros((128, 64), dtype=np.uint8)
  pred[0:64, :] = 1
  id = "isa_select_reduce_basic"
  t, p = save(id, "on_true", on_true), save(id, "predicate", pred)
  out.append(entry(id, T + f, "nki_select_reduce_basic", src(f), [p, t],
                   [save(id, "golden", np.where(pred != 0, on_true, FP32_MIN).astype(np.float32))],
                   notes="uint8 predicate, rows 0-63 true: 1.0 there, nl.fp32.min below (the test's assertions)."))
  id = "isa_select_reduce_reverse_pred"
  out.append(entry(id, T + f, "nki_select_reduce_reverse_pred", src(f), [p, t],
                   [save(id, "golden", np.where(pred != 0, FP32_MIN, on_true).astype(np.float32))],
                   notes="reverse_pred=True: the opposite rows."))
  id = "isa_select_reduce_with_reduction"
  np.random.seed(0)
  on_true_data = np.random.random_sample([128, 512]).astype(np.float32) * 100
  on_false_data = np.random.random_sample([128, 1]).astype(np.float32) * 100
  predicate_data = np.random.randint(low=0, high=2, size=[128, 512], dtype=np.bool_)
  golden_result = np.where(predicate_data, on_true_data, on_false_data)
  golden_reduce = np.max(golden_result, axis=1, keepdims=True)
  out.append(entry(id, T + f, "nki_select_reduce_with_reduction", src(f),
                   [save(id, "predicate", predicate_data), save(id, "on_true", on_true_data),
                    save(id, "on_false", on_false_data)],
                   [save(id, "golden_result", golden_result), save(id, "golden_reduce", golden_reduce)],
                   notes="As the test (seed 0): bool predicate, on_false a [128, 1] tile broadcast along the free "
                         "axis, max reduction into reduce_res (reduce_cmd=reset_reduce, reduce_op=nl.max)."))
  return out


def all_entries():
  out = []
  for fn in (load_store_indirect, dma_transpose, bn_stats, stream_shuffle, sequence_bounds, local_gather,
             range_select, select_reduce):
    out.extend(fn())
  return out
