"""Write docs/nki-corpus.md: the hand-written header (inventory_header.md) followed by the
generated inventory of test/nki/corpus/manifest.json (inventory.py)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.normpath(os.path.join(HERE, "..", "..", "..", "docs", "nki-corpus.md"))

header = open(os.path.join(HERE, "inventory_header.md")).read()
generated = subprocess.run([sys.executable, os.path.join(HERE, "inventory.py")], check=True,
                           capture_output=True, text=True).stdout
with open(DOC, "w") as f:
  f.write(header)
  f.write("\n## Every corpus kernel (generated)\n\n")
  f.write("Calls list the keyword arguments passed and `n positional` for positional arity. "
          "`<tensor>.shape` is an attribute of an HBM tensor or tile argument; `<tile>.ap` a method.\n\n")
  f.write(generated)
print("wrote", DOC)
