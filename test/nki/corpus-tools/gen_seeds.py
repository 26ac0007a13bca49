"""Fixtures for the restored seed kernels in examples/seeds-nki/ (not published AWS files: the
restored texts of /work/shared/seeds/, see examples/seeds-nki/SOURCES.md). Paths in the manifest are
relative to test/nki/corpus/, hence the ../../../examples prefix."""
import numpy as np

from corpus_common import entry, save

SEEDS = "../../../examples/seeds-nki/"


def seed_source(file, text, lines):
  return {"repo": "gpsimd seeds (restored)", "path": "examples/seeds-nki/" + file,
          "commit": "seed text /work/shared/seeds/%s, lines %s" % (text, lines),
          "licence": "see examples/seeds-nki/SOURCES.md"}


def torch_giou(boxes1, boxes2):
  """The blog's torch_giou (seed lines 149-172) in numpy, float32 throughout."""
  epsilon = np.float32(1e-5)
  area1 = (boxes1[..., 2] - boxes1[..., 0]) * (boxes1[..., 3] - boxes1[..., 1])
  area2 = (boxes2[..., 2] - boxes2[..., 0]) * (boxes2[..., 3] - boxes2[..., 1])
  lt = np.maximum(boxes1[..., :2], boxes2[..., :2])
  rb = np.minimum(boxes1[..., 2:], boxes2[..., 2:])
  wh = np.maximum(rb - lt, 0)
  inter = wh[..., 0] * wh[..., 1]
  union = area1 + area2 - inter
  iou = inter / np.maximum(union, epsilon)
  lti = np.minimum(boxes1[..., :2], boxes2[..., :2])
  rbi = np.maximum(boxes1[..., 2:], boxes2[..., 2:])
  whi = np.maximum(rbi - lti, 0)
  areai = np.maximum(whi[..., 0] * whi[..., 1], epsilon)
  return iou - (areai - union) / areai


def giou():
  id = "seed_giou"
  # giou_run.py's generator (seed lines 119-133) at batch 256 x 128 boxes instead of 1024 x 256.
  np.random.seed(0)
  batch_size, n_boxes, img_size = 256, 128, 256
  boxes = []
  for i in range(2):
    box_sizes = np.random.randint(1, img_size, size=(batch_size, n_boxes, 2))
    top_left = np.random.randint(0, img_size - 1, size=(batch_size, n_boxes, 2))
    bottom_right = np.clip(top_left + box_sizes, 0, img_size - 1)
    rand_boxes = np.concatenate((top_left, bottom_right), axis=2)
    boxes.append(rand_boxes.astype(np.float32))
  golden = torch_giou(boxes[0], boxes[1]).astype(np.float32)
  assert golden.dtype == np.float32
  return [entry(id, SEEDS + "giou.py", "giou_kernel", seed_source("giou.py", "giou-nki-and-cpp-custom-ops.txt", "22-117"),
                [save(id, "preds", boxes[0].reshape((batch_size, -1))),
                 save(id, "targets", boxes[1].reshape((batch_size, -1))),
                 save(id, "out_initial", np.zeros((batch_size, n_boxes), np.float32))],
                [save(id, "golden", golden)], outputs=[2], call="simulate_kernel",
                notes="As giou_run.py: nki.simulate_kernel(giou_kernel, preds, targets, out), the result written "
                      "into out (argument 2). Boxes as the blog generates them (seed 0, integer corners in "
                      "[0, 255]) at batch 256 x 128 boxes (published 1024 x 256): [256, 512] inputs, 2 x 1 "
                      "tiles. Golden: the blog's torch_giou in numpy float32. The kernel's operations are the "
                      "same float32 + - * / max/min in the same order (enclosing areas are >= 1, so the "
                      "epsilon clamps change nothing): exact. Module load takes the except: branch (no "
                      "torch_xla), so nki_jit = nki.trace and debug_print = nl.device_print prints each "
                      "preds tile.")]


def avgpool():
  id = "seed_avgpool"
  x = np.arange(2 * 6 * 6, dtype=np.float16).reshape(2, 6, 6)
  golden = np.nanmean(x.reshape(2, 3, 2, 3, 2), axis=(2, 4))  # the tutorial's reference (np_average_pool_2D)
  np.random.seed(0)
  y = np.random.rand(128, 16, 16).astype(np.float32)
  src = seed_source("avgpool.py", "nki-averagepool2d.txt", "25-72")
  return [entry(id, SEEDS + "avgpool.py", "tensor_avgpool_kernel", src, [save(id, "in_tensor", x), {"int": 2}],
                [save(id, "out_np", golden)],
                notes="The tutorial's run: C, H, W = 2, 6, 6, pool 2 (bf16 on the page, float16 here): exact."),
          entry(id + "_f32", SEEDS + "avgpool.py", "tensor_avgpool_kernel", src,
                [save(id + "_f32", "in_tensor", y), {"kw": "pool_size", "int": 4}],
                [save(id + "_f32", "out_np", np.nanmean(y.reshape(128, 4, 4, 4, 4), axis=(2, 4)).astype(np.float32))],
                tolerance={"rtol": 1e-6, "atol": 0},
                notes="128 partitions, pool 4 passed by keyword (as the page's JAX call does).")]


def tensor_add():
  np.random.seed(0)
  a = np.random.rand(256, 1024).astype(np.float16)
  b = np.random.rand(256, 1024).astype(np.float16)
  id = "seed_tensor_add"
  args = [save(id, "a", a), save(id, "b", b)]
  golden = [save(id, "c_golden", a + b)]
  src = seed_source("tensor_add.py", "nki-kernel-as-framework-custom-op.txt", "14-54 and 73-91")
  return [entry(id + "_grid", SEEDS + "tensor_add.py", "nki_tensor_add_kernel_", src, args, golden, grid=[2, 2],
                notes="The guide's shapes are [256, 1024] (float32 torch.randn there; float16 rand here, "
                      "sharing the tutorial's fixtures): a [2, 2] grid. Exact."),
          entry(id + "_caller", SEEDS + "tensor_add.py", "nki_tensor_add", src, args, golden, call="caller",
                also_scan=["nki_tensor_add_kernel_"],
                notes="nki_tensor_add(a, b) launches nki_tensor_add_kernel_[grid_x, grid_y].")]


def all_entries():
  return giou() + avgpool() + tensor_add()
