"""List, for every kernel of the NKI corpus, the NKI functions it calls (with the keyword
arguments it passes), the Python constructs its body uses and what is unusual about it.

Reads test/nki/corpus/manifest.json when it exists (the kernels the tests run), otherwise every
top-level function of the corpus files that calls into nki. Parses with Python's own `ast`, so
what it reports is what the interpreter has to execute; it never imports nki.

Usage: python3 test/nki/corpus-tools/inventory.py > /tmp/inventory.md
"""
import ast
import collections
import json
import os
import sys

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus")

# Module aliases the corpus binds NKI and numpy to (import ... as ...).
NKI_ALIASES = {"nl": "nl", "nisa": "nisa", "nki": "nki", "np": "np", "nt": "nt", "ncc": "ncc",
               "math": "math", "nc": "nc"}
BUILTINS = {"range", "len", "min", "max", "slice", "tuple", "list", "int", "float", "enumerate",
            "zip", "print", "abs", "sum", "isinstance", "str", "round", "any", "all", "divmod",
            "sorted", "reversed", "getattr", "map", "type", "bool", "dict", "set"}


def dotted(node):
  """`nl.tile_size.pmax` -> 'nl.tile_size.pmax'; None when the chain does not start at a name."""
  parts = []
  while isinstance(node, ast.Attribute):
    parts.append(node.attr)
    node = node.value
  if isinstance(node, ast.Name):
    parts.append(node.id)
    return ".".join(reversed(parts))
  return None


class KernelScan(ast.NodeVisitor):
  def __init__(self, names_of_aliases):
    self.calls = collections.defaultdict(set)     # 'nl.load' -> {'mask', ...}
    self.attrs = set()                             # nl.shared_hbm, nl.tile_size.pmax, ...
    self.methods = collections.defaultdict(set)    # tile methods: .ap, .reshape, .view, ...
    self.builtins = set()
    self.constructs = set()
    self.unusual = set()
    self.aliases = names_of_aliases

  def visit_Call(self, node):
    name = dotted(node.func)
    kws = {k.arg if k.arg else "**" for k in node.keywords}
    if node.args:
      kws.add("%d positional" % len(node.args))
    if name and name.split(".")[0] in self.aliases:
      self.calls[name] |= kws
      if name in ("nl.ds",):
        self.unusual.add("nl.ds dynamic slice")
      if name == "nl.par_dim":
        self.unusual.add("nl.par_dim in a shape")
      if name == "nl.program_id":
        self.unusual.add("SPMD nl.program_id")
      if "mask" in kws:
        self.unusual.add("mask=")
      for k in node.keywords:
        if k.arg == "buffer" and dotted(k.value) == "nl.psum":
          self.unusual.add("buffer=nl.psum")
    elif name in BUILTINS:
      self.builtins.add(name)
    elif isinstance(node.func, ast.Attribute):
      self.methods["." + node.func.attr] |= kws  # tile/list/tensor methods: .ap, .reshape, .append
    if any(isinstance(a, ast.Starred) for a in node.args):
      self.constructs.add("call with *args")
    self.generic_visit(node)

  def visit_Attribute(self, node):
    name = dotted(node)
    if name and name.split(".")[0] in self.aliases:
      self.attrs.add(name)
      return  # the chain's prefixes (nisa.oob_mode of nisa.oob_mode.skip) are not uses of their own
    elif name and name.endswith((".shape", ".dtype")):
      self.attrs.add("<tensor>." + name.rsplit(".", 1)[1])
    elif name and name.endswith((".p", ".x", ".y")) and "mgrid" not in name:
      self.attrs.add("<mgrid>." + name.rsplit(".", 1)[1])
    self.generic_visit(node)

  def visit_Subscript(self, node):
    name = dotted(node.value)
    if name == "nl.mgrid":
      self.unusual.add("nl.mgrid[...]")
    sl = node.slice
    elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
    for e in elts:
      if isinstance(e, ast.Slice) and e.step is not None:
        self.constructs.add("slice with step a:b:c")
      if isinstance(e, ast.Constant) and e.value is None:
        self.constructs.add("[:, None] new axis")
      if isinstance(e, ast.Slice) and e.lower is None and e.upper is None:
        self.constructs.add("bare ':' slice")
    if isinstance(node.ctx, ast.Store):
      self.constructs.add("subscript assignment t[...] = ...")
    self.generic_visit(node)

  def generic_visit(self, node):
    kind = type(node).__name__
    simple = {
      "For": "for loop", "While": "while loop", "If": "if", "IfExp": "conditional expression",
      "Assert": "assert", "JoinedStr": "f-string", "AnnAssign": "annotated assignment (x: tensor[...] = ...)",
      "AugAssign": "augmented assignment", "ListComp": "list comprehension",
      "GeneratorExp": "generator expression", "Lambda": "lambda", "Return": "return",
      "Import": "import inside the kernel", "ImportFrom": "import inside the kernel",
      "Break": "break", "Continue": "continue", "With": "with", "Try": "try/except",
      "Dict": "dict literal", "List": "list literal", "BoolOp": "and/or", "Compare": "comparison",
      "Global": "global", "Nonlocal": "nonlocal", "Starred": "starred", "Pass": "pass",
    }
    if kind in simple:
      self.constructs.add(simple[kind])
    if isinstance(node, ast.AugAssign):
      op = type(node.op).__name__
      self.constructs.add("augmented assignment " + {"Add": "+=", "Sub": "-=", "Mult": "*=",
                                                     "Div": "/=", "FloorDiv": "//="}.get(op, op))
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Tuple) for t in node.targets):
      self.constructs.add("tuple unpacking")
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
      if node.value.value is Ellipsis:
        self.constructs.add("`...` statement")
    if isinstance(node, ast.BinOp):
      self.constructs.add("binary operator " + {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/",
                                                "FloorDiv": "//", "Mod": "%", "Pow": "**",
                                                "BitAnd": "&", "BitOr": "|", "MatMult": "@"}.get(
                                                  type(node.op).__name__, type(node.op).__name__))
    if isinstance(node, ast.FunctionDef):
      self.constructs.add("nested def")
    super().generic_visit(node)


def scan_function(fn, aliases):
  scan = KernelScan(aliases)
  for stmt in fn.body:
    scan.visit(stmt)
  if fn.args.defaults or fn.args.kw_defaults:
    scan.constructs.add("default parameter values")
  if fn.returns is not None or any(a.annotation is not None for a in fn.args.args + fn.args.kwonlyargs):
    scan.constructs.add("parameter/return annotations (evaluated when the def runs)")
  if ast.get_docstring(fn):
    scan.constructs.add("docstring")
  for d in fn.decorator_list:
    text = ast.unparse(d)
    scan.unusual.add("decorator @" + text)
  return scan


def api_generation(tree):
  """'neuronxcc' when the module imports neuronxcc.nki (the seeds' API), 'nki' when it imports the
  current top-level nki package."""
  gens = set()
  for node in ast.walk(tree):
    if isinstance(node, ast.Import):
      for a in node.names:
        if a.name.split(".")[0] in ("neuronxcc", "nki"):
          gens.add(a.name.split(".")[0])
    elif isinstance(node, ast.ImportFrom) and node.module:
      if node.module.split(".")[0] in ("neuronxcc", "nki"):
        gens.add(node.module.split(".")[0])
  return "+".join(sorted(gens))


def module_facts(tree):
  """What the module does at top level besides defining kernels."""
  facts = set()
  aliases = set(NKI_ALIASES)
  for node in tree.body:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
      for a in node.names:
        if isinstance(node, ast.ImportFrom):
          facts.add("from %s import %s" % (node.module, a.name) + (" as " + a.asname if a.asname else ""))
        else:
          facts.add("import " + a.name + (" as " + a.asname if a.asname else ""))
        aliases.add(a.asname or a.name.split(".")[0])
    elif isinstance(node, ast.ClassDef):
      facts.add("class " + node.name + "(" + ", ".join(ast.unparse(b) for b in node.bases) + ")")
    elif isinstance(node, ast.If):
      facts.add("if " + ast.unparse(node.test) + ":")
    elif isinstance(node, ast.Assign):
      facts.add("module assignment: " + ast.unparse(node)[:80])
    elif isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant):
      facts.add("module statement: " + ast.unparse(node)[:80])
    elif isinstance(node, ast.Expr) and node.value.value is Ellipsis:
      facts.add("module-level `...`")
  return facts, aliases


def kernels_from_manifest():
  path = os.path.join(CORPUS, "manifest.json")
  if not os.path.exists(path):
    return None
  with open(path) as f:
    return json.load(f)


def main():
  entries = kernels_from_manifest()
  if entries is None:
    print("manifest.json missing", file=sys.stderr)
    sys.exit(1)
  seen = set()
  totals = collections.Counter()
  by_gen = collections.defaultdict(collections.Counter)
  kw_totals = collections.defaultdict(collections.Counter)
  rows = []
  module_rows = {}
  for e in entries:
    key = (e["file"], e["kernel"])
    src_path = os.path.join(CORPUS, e["file"])
    tree = ast.parse(open(src_path).read())
    facts, aliases = module_facts(tree)
    gen = api_generation(tree)
    module_rows[e["file"]] = facts
    fns = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    fn = fns[e["kernel"]]
    scan = scan_function(fn, aliases)
    # A caller that launches another kernel of the same module: scan the callee too.
    for callee in e.get("also_scan", []):
      callee_scan = scan_function(fns[callee], aliases)
      for k, v in callee_scan.calls.items():
        scan.calls[k] |= v
      scan.attrs |= callee_scan.attrs
      scan.constructs |= callee_scan.constructs
      scan.unusual |= callee_scan.unusual
      scan.methods.update(callee_scan.methods)
      scan.builtins |= callee_scan.builtins
    if e.get("grid"):
      scan.unusual.add("grid kernel%s(...)" % e["grid"])
    if key in seen:
      rows.append((e, None, gen))
      continue
    seen.add(key)
    for name, kws in scan.calls.items():
      totals[name] += 1
      for k in kws:
        kw_totals[name][k] += 1
    for name, kws in scan.methods.items():
      totals["<value>" + name] += 1
      for k in kws:
        kw_totals["<value>" + name][k] += 1
    for a in scan.attrs:
      if a not in scan.calls:
        totals[a] += 1
    for name in set(scan.calls) | {a for a in scan.attrs if a not in scan.calls}:
      by_gen[name][gen] += 1
    rows.append((e, scan, gen))

  print("| id | API | file | kernel | NKI calls (keyword arguments) | attributes / constants | methods | Python constructs | unusual |")
  print("|---|---|---|---|---|---|---|---|---|")
  for e, scan, gen in rows:
    if scan is None:
      print("| %s | %s | `%s` | `%s` | (same kernel as an earlier row, other arguments) | | | | |" % (
        e["id"], gen, e["file"], e["kernel"]))
      continue
    calls = "<br>".join("`%s`%s" % (n, "(" + ", ".join(sorted(k if " " in k else k + "=" for k in kws)) + ")" if kws else "")
                        for n, kws in sorted(scan.calls.items()))
    attrs = ", ".join("`%s`" % a for a in sorted(scan.attrs - set(scan.calls)))
    methods = ", ".join("`%s`%s" % (m, "(" + ", ".join(sorted(k if " " in k else k + "=" for k in kws)) + ")" if kws else "")
                        for m, kws in sorted(scan.methods.items()))
    cons = ", ".join(sorted(scan.constructs | {"builtin " + b + "()" for b in scan.builtins}))
    print("| %s | %s | `%s` | `%s` | %s | %s | %s | %s | %s |" % (
      e["id"], gen, e["file"], e["kernel"], calls, attrs, methods, cons,
      ", ".join(sorted(scan.unusual))))

  print()
  print("## Module-level code each file runs when loaded")
  print()
  for f, facts in sorted(module_rows.items()):
    print("- `%s`: %s" % (f, "; ".join("`%s`" % x.replace("`", "") for x in sorted(facts))))

  print()
  print("## NKI functions and attributes the corpus needs, by number of kernels")
  print()
  print("A name counts once per kernel, whether called or passed as a value (`op=nl.add`); the "
        "keyword column counts the kernels that pass each keyword (`n positional`: called with n "
        "positional arguments). `neuronxcc` / `nki`: kernels of each API generation using it.")
  print()
  print("| name | kernels | neuronxcc | nki | keyword arguments passed (kernels) |")
  print("|---|---|---|---|---|")
  for name, n in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0])):
    kws = ", ".join("%s (%d)" % (k if " " in k else k + "=", c)
                    for k, c in sorted(kw_totals[name].items(), key=lambda kc: (-kc[1], kc[0])))
    g = by_gen.get(name, {})
    print("| `%s` | %d | %s | %s | %s |" % (name, n, g.get("neuronxcc", "") or "", g.get("nki", "") or "", kws))


if __name__ == "__main__":
  main()
