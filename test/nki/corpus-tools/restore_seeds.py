"""Restore the numbered, de-indented NKI listings of the seed documents.

The seed texts (/work/shared/seeds/*.txt) glue each listing line's number to its start ("5@nki.jit")
and collapsed its indentation to at most one space. For the listings that AWS publishes, this script
strips the numbers (checking they run 1, 2, 3, ... so no digit of code is taken), then takes each
line's indentation from the published file, after checking the line's text (indentation aside) is
the same. It prints, per listing, which seed lines and which published lines were matched.

Usage: python3 restore_seeds.py <seeds dir> <nki-samples checkout or corpus/nki-samples> <out dir>
"""
import os
import re
import sys


def numbered_listing(seed_lines, first, last):
  """Seed file lines first..last (1-based, inclusive) with their glued numbers 1..n stripped;
  returns the texts without leading whitespace."""
  out = []
  for k, line in enumerate(seed_lines[first - 1:last], start=1):
    m = re.match(r"^(\d+)(.*)$", line)
    assert m and int(m.group(1)) == k, "seed line %d: expected number %d in %r" % (first + k - 1, k, line)
    out.append(m.group(2).lstrip())
  return out


def indent_like(texts, published_lines, pub_first):
  """Give each text the indentation of published line pub_first + i, checking the text matches."""
  out = []
  for i, text in enumerate(texts):
    pub = published_lines[pub_first - 1 + i]
    assert pub.strip() == text.strip(), "published line %d %r differs from %r" % (pub_first + i, pub, text)
    out.append(pub[:len(pub) - len(pub.lstrip())] + text)
  return out


def main():
  seeds, samples, out_dir = sys.argv[1:4]
  read = lambda p: open(p, encoding="utf-8").read().split("\n")

  avg_seed = read(os.path.join(seeds, "nki-averagepool2d.txt"))
  avg_pub = read(os.path.join(samples, "src/nki_samples/tutorials/average_pool2d/average_pool2d_nki_kernels.py"))
  avg = indent_like(numbered_listing(avg_seed, 25, 72), avg_pub, 9)
  with open(os.path.join(out_dir, "avgpool.py"), "w") as f:
    f.write("\n".join(avg) + "\n")
  print("avgpool.py: seed lines 25-72 (listing lines 1-48) = published lines 9-56")

  add_seed = read(os.path.join(seeds, "nki-kernel-as-framework-custom-op.txt"))
  add_pub = read(os.path.join(samples, "src/nki_samples/tutorials/tensor_addition/spmd_tensor_addition_nki_kernels.py"))
  kernel = indent_like(numbered_listing(add_seed, 14, 54), add_pub, 9)
  caller = indent_like(numbered_listing(add_seed, 73, 91), add_pub, 54)
  with open(os.path.join(out_dir, "tensor_add.py"), "w") as f:
    f.write("\n".join(kernel + ["", ""] + caller) + "\n")
  print("tensor_add.py: seed lines 14-54 (listing 1-41) = published lines 9-49; "
        "seed lines 73-91 (listing 1-19) = published lines 54-72")


if __name__ == "__main__":
  main()
