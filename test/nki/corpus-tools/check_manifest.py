"""Check test/nki/corpus/manifest.json: every file and fixture exists, every .npy loads, each
kernel name is a top-level function of its file, and the entry's fields are well formed.

Usage: python3 test/nki/corpus-tools/check_manifest.py   (exit status 1 on any problem)
"""
import ast
import json
import os
import sys

import numpy as np

from corpus_common import CORPUS

CALLS = {"jit", "simulate_kernel", "simulate", "caller"}


def check_call(where, fn, args):
  """The manifest's arguments bind to the kernel's parameters as Python would bind them."""
  params = [a.arg for a in fn.args.args]
  n_required = len(params) - len(fn.args.defaults)
  positional = [a for a in args if "kw" not in a]
  keywords = [a["kw"] for a in args if "kw" in a]
  out = []
  if any("kw" in a for a in args[:len(positional)]) and positional:
    out.append("%s: a positional argument after a keyword one" % where)
  if len(positional) > len(params):
    out.append("%s: %d positional arguments for %d parameters" % (where, len(positional), len(params)))
  bound = set(params[:len(positional)])
  for k in keywords:
    if k not in params:
      out.append("%s: no parameter %s" % (where, k))
    elif k in bound:
      out.append("%s: %s given twice" % (where, k))
    bound.add(k)
  missing = [p for p in params[:n_required] if p not in bound]
  if missing:
    out.append("%s: missing %s" % (where, ", ".join(missing)))
  return out


def main():
  entries = json.load(open(os.path.join(CORPUS, "manifest.json")))
  problems = []
  loaded = 0
  for e in entries:
    where = e.get("id", "?")
    path = os.path.join(CORPUS, e["file"])
    if not os.path.isfile(path):
      problems.append("%s: file %s missing" % (where, e["file"]))
      continue
    fns = {n.name: n for n in ast.parse(open(path).read()).body if isinstance(n, ast.FunctionDef)}
    if e["kernel"] not in fns:
      problems.append("%s: no function %s in %s" % (where, e["kernel"], e["file"]))
    else:
      problems += check_call(where, fns[e["kernel"]], e["args"])
    if e["call"] not in CALLS:
      problems.append("%s: call %r" % (where, e["call"]))
    for k in ("repo", "path", "commit", "licence"):
      if not e["source"].get(k):
        problems.append("%s: source.%s missing" % (where, k))
    paths = [a["npy"] for a in e["args"] if "npy" in a] + list(e["expected"])
    for p in paths:
      full = os.path.join(CORPUS, p)
      if not os.path.isfile(full):
        problems.append("%s: fixture %s missing" % (where, p))
        continue
      np.load(full, allow_pickle=False)
      loaded += 1
    n_out = len(e["outputs"]) if isinstance(e["outputs"], list) else None
    if "expected_error" in e:
      if e["expected"]:
        problems.append("%s: expected_error with expected outputs" % where)
    elif not e["expected"]:
      problems.append("%s: no expected output" % where)
    elif n_out is not None and n_out != len(e["expected"]):
      problems.append("%s: %d output arguments, %d expected" % (where, n_out, len(e["expected"])))
    tols = e["tolerance"] if isinstance(e["tolerance"], list) else [e["tolerance"]]
    if isinstance(e["tolerance"], list) and len(tols) != len(e["expected"]):
      problems.append("%s: %d tolerances for %d outputs" % (where, len(tols), len(e["expected"])))
    for tol in tols:
      if set(tol) != {"rtol", "atol"}:
        problems.append("%s: tolerance %r" % (where, tol))
  for p in problems:
    print(p)
  kernels = {(e["file"], e["kernel"]) for e in entries}
  size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(CORPUS, "fixtures"))
             for f in fs)
  print("%d entries, %d distinct kernels, %d fixture loads, %.1f MB of fixtures, %d problems"
        % (len(entries), len(kernels), loaded, size / 1e6, len(problems)))
  sys.exit(1 if problems else 0)


if __name__ == "__main__":
  main()
