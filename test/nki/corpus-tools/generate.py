"""Write every fixture of the NKI corpus and test/nki/corpus/manifest.json.

Usage: cd test/nki/corpus-tools && python3 generate.py
Deterministic: fixed seeds, so re-running rewrites identical files.
"""
import json
import os

from corpus_common import CORPUS
import gen_sdk_tests

GENERATORS = [gen_sdk_tests]

for name in ("gen_sdk_tests_more", "gen_sdk_examples", "gen_samples", "gen_seeds"):
  try:
    GENERATORS.append(__import__(name))
  except ModuleNotFoundError:
    pass


def main():
  entries = []
  for g in GENERATORS:
    entries.extend(g.all_entries())
  ids = [e["id"] for e in entries]
  assert len(ids) == len(set(ids)), "duplicate ids"
  with open(os.path.join(CORPUS, "manifest.json"), "w") as f:
    json.dump(entries, f, indent=2)
    f.write("\n")
  print("%d entries" % len(entries))


if __name__ == "__main__":
  main()
