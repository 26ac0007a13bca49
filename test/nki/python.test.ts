// The Python room: errors with their sites, imports, placeholders, the API native code uses
// (PyFunction, bindArgs, host-object hooks and their CallContext), stop polls and speed.
import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setOutput } from "../../host/output.js";
import { KernelAbortError, KernelTimeoutError, NkiSyntaxError, PythonError } from "../../host/checks/errors.js";
import {
  bindArgs, HostObject, isPlaceholder, loadProgram, NativeFunction, parseModule, PyDict, PyException, PyFloat, PyFunction, PyHostType,
  PyModule, PyTuple, pyRepr, pyStr, registerNativeModule, setPlaceholdersForbidden, truthy, typeName,
  type CallContext, type PyValue,
} from "../../nki/python/index.js";
import { failure, printed, run } from "./python-helpers.js";

afterEach(() => setPlaceholdersForbidden(false));

describe("syntax errors and unsupported constructs", () => {
  test("a syntax error names file:line:column and the text there", () => {
    const e = failure("x = 1\ny = (2 +\nz = $\n", { file: "/k/bad.py" });
    expect(e).toBeInstanceOf(NkiSyntaxError);
    expect(e.code).toBe("E_NKI_SYNTAX");
    expect(e.details).toMatchObject({ file: "/k/bad.py", line: 3 });
    expect(e.message).toMatch(/^invalid syntax near '.*' at <module> \(\/k\/bad\.py:3:\d+\)$/);
  });
  test("the same source is parsed once (cache per path and hash)", () => {
    const a = parseModule("/k/cached.py", "x = 1\n");
    expect(parseModule("/k/cached.py", "x = 1\n")).toBe(a);
    expect(parseModule("/k/cached.py", "x = 2\n")).not.toBe(a);
  });
  test("`2.` and a bare yield are valid Python that lezer's grammar lacks", () => {
    expect(printed("print(2. * 3, (1 / 2.))")).toEqual(["6.0 0.5"]);
    expect(() => parseModule("/k/gen.py", "def g():\n    yield\n")).not.toThrow();
  });
  test("an unsupported statement fails when it runs, naming the construct and its place", () => {
    const e = failure("x = 1\nif x > 5:\n    type A = int\ntype B = int\n", { file: "/k/w.py" });
    expect(e).toBeInstanceOf(NkiSyntaxError);
    expect(e.code).toBe("E_NKI_UNSUPPORTED");
    expect(e.message).toBe("the type statement is not supported by gpsimd's Python interpreter at <module> (/k/w.py:4:1)");
  });
  test("yield inside an expression is refused when it runs; a generator that yields statements runs", () => {
    const { program, out } = run("def gen():\n    x = yield 1\n\ndef ok():\n    yield 1\n    yield from (2, 3)\n\ndef consume():\n    return list(gen())\nprint(list(ok()))\n", { file: "/k/g.py" });
    expect(out).toBe("[1, 2, 3]\n");
    let e: NkiSyntaxError | undefined;
    try { program.call(program.globals.attrs.get("consume")!, []); } catch (err) { e = err as NkiSyntaxError; }
    expect(e?.code).toBe("E_NKI_UNSUPPORTED");
    expect(e?.message).toBe("yield inside an expression (gpsimd runs yield as a statement) is not supported by gpsimd's Python interpreter at gen (/k/g.py:2:5)");
  });
  test("a decorator that is not a dotted name (with arguments) is refused at parse time", () => {
    const e = failure("fs = [None]\n\n@fs[0]\ndef f():\n    pass\n", { file: "/k/d.py" });
    expect(e.code).toBe("E_NKI_UNSUPPORTED");
    expect(e.message).toBe("this decorator form (gpsimd supports @name, @a.b and @a.b(args)) is not supported by gpsimd's Python interpreter at <module> (/k/d.py:3:1)");
  });
  test("walrus, async def and match are named", () => {
    expect(failure("if (n := 3) > 2:\n    pass\n").message).toContain("the walrus operator (:=)");
    expect(failure("async def f():\n    pass\nf()\n").message).toContain("async def");
    expect(failure("match 1:\n    case 1:\n        pass\n").message).toContain("the match statement");
  });
});

describe("uncaught Python exceptions", () => {
  test("NameError: code, message with the function and site, details, traceback", () => {
    const src = "def helper(a):\n    return a + missing\n\ndef kernel():\n    return helper(1)\n\nkernel()\n";
    const e = failure(src, { file: "/k/names.py" });
    expect(e).toBeInstanceOf(PythonError);
    expect(e.code).toBe("E_PY_NameError");
    expect(e.message).toBe("NameError: name 'missing' is not defined at helper (/k/names.py:2:16)");
    expect(e.details).toMatchObject({ pyType: "NameError", file: "/k/names.py", line: 2, column: 16, function: "helper" });
    expect(e.details.traceback).toBe([
      "Traceback (most recent call last):",
      '  File "/k/names.py", line 7, in <module>', "    kernel()",
      '  File "/k/names.py", line 5, in kernel', "    return helper(1)",
      '  File "/k/names.py", line 2, in helper', "    return a + missing",
      "NameError: name 'missing' is not defined",
    ].join("\n"));
  });
  test("a failed assert is KernelAbortError E_NKI_ASSERT with its message and line", () => {
    const e = failure("def k(n):\n    assert n % 128 == 0, f\"size {n} is not a multiple of 128\"\nk(100)\n", { file: "/k/a.py" });
    expect(e).toBeInstanceOf(KernelAbortError);
    expect(e.code).toBe("E_NKI_ASSERT");
    expect(e.message).toBe("AssertionError: size 100 is not a multiple of 128 at k (/k/a.py:2:5)");
  });
  test("an exception class defined in the file keeps its name", () => {
    const e = failure("class ShapeMismatch(Exception):\n    pass\nraise ShapeMismatch('bad shape')\n", { file: "/k/c.py" });
    expect(e.code).toBe("E_PY_ShapeMismatch");
    expect(e.message).toBe("ShapeMismatch: bad shape at <module> (/k/c.py:3:1)");
  });
  test("errors raised by builtins carry the calling expression's site", () => {
    const e = failure("xs = [1, 2]\ny = 0\nz = xs[5]\n", { file: "/k/i.py" });
    expect(e.code).toBe("E_PY_IndexError");
    expect(e.details).toMatchObject({ line: 3, column: 5 });
    expect(failure("x = int('q')").code).toBe("E_PY_ValueError");
    expect(failure("x = 1 // 0").code).toBe("E_PY_ZeroDivisionError");
    expect(failure("x = {}['k']").message).toMatch(/^KeyError: 'k' at/);
  });
  test("ints beyond 2**53 are an OverflowError, not a silent rounding", () => {
    expect(failure("x = 2 ** 53").code).toBe("E_PY_OverflowError");
    expect(failure("x = 9007199254740991 + 1").code).toBe("E_PY_OverflowError");
    expect(printed("print(9007199254740990 + 1, -9007199254740990 - 1, 2 ** 52)")).toEqual(["9007199254740991 -9007199254740991 4503599627370496"]);
  });
  test("unbounded recursion is a RecursionError", () => {
    expect(failure("def f(n):\n    return f(n + 1)\nf(0)\n").code).toBe("E_PY_RecursionError");
  });
  test("calling with wrong arguments gives Python's TypeError text", () => {
    expect(failure("def add(x, y):\n    return x + y\nadd(1)\n").message).toMatch(/^TypeError: add\(\) missing 1 required positional argument: 'y' at <module>/);
    expect(failure("def f(a):\n    pass\nf(1, 2)\n").message).toContain("f() takes 1 positional argument but 2 were given");
    expect(failure("def f(a):\n    pass\nf(b=1)\n").message).toContain("f() got an unexpected keyword argument 'b'");
  });
});

describe("modules", () => {
  test("try: import torch_xla ... except ImportError takes the except branch", () => {
    expect(printed("try:\n    import torch_xla.core.xla_model as xm\n    ok = True\nexcept ImportError:\n    ok = False\nprint(ok)\n")).toEqual(["False"]);
    expect(failure("import torch_neuronx").code).toBe("E_PY_ModuleNotFoundError");
    expect(failure("from jax_neuronx import nki_call").code).toBe("E_PY_ModuleNotFoundError");
    expect(failure("import no_such_module_xyz").message).toMatch(/^ModuleNotFoundError: No module named 'no_such_module_xyz'/);
  });
  test("if __name__ == '__main__' does not run; __name__ is the file stem", () => {
    expect(printed("print(__name__)\nif __name__ == '__main__':\n    print('host code')\n")[0]).toMatch(/^kernel_\d+$/);
    expect(run("print(__name__)\nif __name__ == '__main__':\n    print('host code')\n", { file: "/k/my_kernel.py" }).out).toBe("my_kernel\n");
  });
  test("torch and jax import as placeholders usable at module level", () => {
    const { program, out } = run([
      "import torch", "import torch.nn.functional as F", "import jax.numpy as jnp", "from torch import nn", "import pytest",
      "x = torch.randn(3, 4) * 2", "y = F.relu", "@pytest.mark.parametrize('a', [1, 2])", "def test_k(a):", "    return a",
      "class Model(nn.Module):", "    def forward(self, x):", "        return x", "print(test_k(5), isinstance(3, torch.Tensor), jnp)",
    ].join("\n") + "\n");
    expect(out).toBe("5 False <placeholder jax.numpy>\n");
    expect(isPlaceholder(program.globals.attrs.get("x")!)).toBe(true);
    expect(isPlaceholder(program.globals.attrs.get("y")!)).toBe(true);
    expect(program.globals.attrs.get("Model")!.constructor.name).toBe("PyClass");
  });
  test("placeholders refuse use while forbidden (inside a kernel), naming the module path", () => {
    const { program } = run("import torch\ndef kernel(a):\n    return torch.zeros(a)\n", { file: "/k/p.py" });
    setPlaceholdersForbidden(true);
    let err: unknown;
    try { program.call(program.globals.attrs.get("kernel")!, [3]); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(PythonError);
    expect((err as PythonError).code).toBe("E_PY_RuntimeError");
    expect((err as PythonError).message).toMatch(/^RuntimeError: torch\.zeros was called: 'torch' is imported as a placeholder .* at kernel \(\/k\/p\.py:3:12\)$/);
  });
  test("a sibling .py file imports as a module, relative to the importing file", () => {
    const dir = mkdtempSync(join(tmpdir(), "nkipy-"));
    writeFileSync(join(dir, "helpers.py"), "TILE = 128\ndef tiles(n):\n    return (n + TILE - 1) // TILE\n_private = 1\n");
    writeFileSync(join(dir, "utils_star.py"), "from helpers import TILE\ndef double(x):\n    return 2 * x\n");
    writeFileSync(join(dir, "time.py"), "def now():\n    return 7\n"); // shadows the host-side placeholder, as the script's folder leads sys.path
    writeFileSync(join(dir, "kernel.py"), "import helpers\nfrom helpers import tiles as t\nfrom utils_star import *\nimport time\nprint(helpers.TILE, t(300), double(TILE), helpers.__name__, time.now())\nprint('_private' in globals(), 'double' in globals())\n");
    let out = "";
    const restore = setOutput({ printf: (s: string) => { out += s; } });
    try { loadProgram(join(dir, "kernel.py")); } finally { restore(); }
    expect(out).toBe("128 3 256 helpers 7\nFalse True\n");
    expect(readFileSync(join(dir, "kernel.py"), "utf8")).toContain("import helpers");
  });
  test("an exception while importing a sibling names the sibling's line, with the import in the traceback", () => {
    const dir = mkdtempSync(join(tmpdir(), "nkipy-"));
    writeFileSync(join(dir, "broken.py"), "X = 1\nY = X / 0\n");
    writeFileSync(join(dir, "main_kernel.py"), "import os\nimport broken\n");
    let err: PythonError | undefined;
    try { loadProgram(join(dir, "main_kernel.py")); } catch (e) { err = e as PythonError; }
    expect(err?.code).toBe("E_PY_ZeroDivisionError");
    expect(err?.message).toBe(`ZeroDivisionError: division by zero at <module> (${join(dir, "broken.py")}:2:5)`);
    expect(String(err?.details.traceback)).toContain(`File "${join(dir, "main_kernel.py")}", line 2, in <module>\n    import broken`);
  });
  test("native modules: registered by name, made lazily once per program, dotted imports bind the package", () => {
    let made = 0;
    registerNativeModule("fakepkg", () => { made++; const m = new PyModule("fakepkg"); m.attrs.set("VERSION", 3); return m; });
    registerNativeModule("fakepkg.sub", () => { const m = new PyModule("fakepkg.sub"); m.attrs.set("f", new NativeFunction("f", (a) => (a[0] as number) * 10)); return m; });
    expect(made).toBe(0);
    expect(printed("import fakepkg.sub\nimport fakepkg.sub as s\nfrom fakepkg.sub import f\nfrom fakepkg import sub\nprint(fakepkg.VERSION, fakepkg.sub.f(2), s.f(3), f(4), sub is s)")).toEqual(["3 20 30 40 True"]);
    expect(made).toBe(1);
    expect(failure("from fakepkg import nothing_here").message).toMatch(/^ImportError: cannot import name 'nothing_here' from 'fakepkg'/);
  });
  test("from __future__ import annotations skips evaluating annotations; without it they are evaluated", () => {
    expect(printed("from __future__ import annotations\ndef f(a: UndefinedType) -> Nope:\n    return a\nprint(f(1))")).toEqual(["1"]);
    expect(failure("def f(a: UndefinedType):\n    return a\n").code).toBe("E_PY_NameError");
  });
});

/** A host object that records the hooks called on it and the sites they came from. */
class Probe extends HostObject {
  readonly typeName = "Probe";
  readonly log: string[] = [];
  readonly sites: CallContext[] = [];
  private note(s: string, ctx: CallContext): void { this.log.push(s); this.sites.push(ctx); }
  override getAttr(name: string, ctx: CallContext): PyValue | undefined { this.note(`get ${name}`, ctx); return name === "shape" ? new PyTuple([128, 512]) : undefined; }
  override getItem(key: PyValue, ctx: CallContext): PyValue { this.note(`getitem ${pyRepr(key)}`, ctx); return this; }
  override setItem(key: PyValue, value: PyValue, ctx: CallContext): void { this.note(`setitem ${pyRepr(key)} = ${pyStr(value)}`, ctx); }
  override binary(op: string, other: PyValue, reflected: boolean, ctx: CallContext): PyValue { this.note(`binary ${op} ${pyStr(other)} ${reflected}`, ctx); return this; }
  override inplace(op: string, other: PyValue, ctx: CallContext): PyValue { this.note(`inplace ${op} ${pyStr(other)}`, ctx); return this; }
  override iterate(ctx: CallContext): Iterator<PyValue> { this.note("iterate", ctx); return [1, 2, 3][Symbol.iterator](); }
  override call(args: PyValue[], kwargs: Map<string, PyValue>, ctx: CallContext): PyValue { this.note(`call ${args.map(pyStr).join(",")} ${[...kwargs.keys()].join(",")}`, ctx); return null; }
  override repr(): string { return "<probe>"; }
}

describe("host objects", () => {
  test("hooks receive subscripts, slices, operators and augmented assignment with the expression's site", () => {
    const probe = new Probe();
    registerNativeModule("probe_mod", () => { const m = new PyModule("probe_mod"); m.attrs.set("p", probe); return m; });
    run([
      "from probe_mod import p", "def helper(t):", "    t[0:128, None] = 5", "    t[1, ...] += 2", "    return t.shape",
      "def kernel():", "    x = p[:, 3]", "    y = 1 + p", "    p(4, k=2)", "    s = [v for v in p]", "    return helper(p)", "kernel()",
    ].join("\n") + "\n", { file: "/k/h.py" });
    expect(probe.log).toEqual([
      "getitem (slice(None, None, None), 3)", "binary + 1 true", "call 4 k", "iterate",
      "setitem (slice(0, 128, None), None) = 5", "getitem (1, Ellipsis)", "inplace + 2", "setitem (1, Ellipsis) = <probe>", "get shape",
    ]);
    expect(probe.sites[0].site).toEqual({ file: "/k/h.py", line: 7, column: 9, function: "kernel" });
    const set = probe.sites[4];
    expect(set.site).toMatchObject({ line: 3, column: 5, function: "helper" });
    expect(set.stack.map((s) => `${s.function}:${s.line}`)).toEqual(["<module>:12", "kernel:11"]);
  });
  test("isinstance works with host types", () => {
    const probeType = new PyHostType("Probe", (v) => v instanceof Probe);
    registerNativeModule("probe_types", () => { const m = new PyModule("probe_types"); m.attrs.set("Probe", probeType); m.attrs.set("p", new Probe()); return m; });
    expect(printed("from probe_types import Probe, p\nprint(isinstance(p, Probe), isinstance(3, Probe), isinstance(p, (int, Probe)), type(p).__name__)")).toEqual(["True False True Probe"]);
  });
  test("a host object with getItem (and len) but no iterate hook iterates by index, as Python's sequence protocol", () => {
    class Seq extends HostObject {
      readonly typeName = "Seq";
      constructor(readonly n: number | null) { super(); }
      override getItem(k: PyValue): PyValue {
        if (typeof k !== "number" || k >= 3) throw new PyException("IndexError", "out of range");
        return k * 10;
      }
    }
    class SizedSeq extends Seq { override len(): number { return 2; } }
    registerNativeModule("seqs", () => { const m = new PyModule("seqs"); m.attrs.set("s", new Seq(null)); m.attrs.set("t", new SizedSeq(2)); return m; });
    expect(printed("from seqs import s, t\na, b, c = s\nprint(a, b, c, list(t), 20 in s)")).toEqual(["0 10 20 [0, 10] True"]);
  });
  test("a GpsimdError thrown by native code passes through untouched", () => {
    const own = new KernelAbortError("E_TEST", "native says no at k (x.py:1:1)");
    registerNativeModule("thrower", () => { const m = new PyModule("thrower"); m.attrs.set("boom", new NativeFunction("boom", () => { throw own; })); return m; });
    let caught: unknown;
    try { run("from thrower import boom\ntry:\n    boom()\nexcept:\n    pass\n"); } catch (e) { caught = e; }
    expect(caught).toBe(own);
  });
  test("a PyException from native code is catchable and gets the raising expression's site", () => {
    registerNativeModule("raiser", () => { const m = new PyModule("raiser"); m.attrs.set("check", new NativeFunction("check", () => { throw new PyException("ValueError", "bad tile"); })); return m; });
    expect(printed("from raiser import check\ntry:\n    check()\nexcept ValueError as e:\n    print('caught', e)\n")).toEqual(["caught bad tile"]);
    const e = failure("from raiser import check\n\nx = check()\n", { file: "/k/r.py" });
    expect(e.message).toBe("ValueError: bad tile at <module> (/k/r.py:3:5)");
  });
});

describe("the API native code uses", () => {
  test("PyFunction: name, params with defaults, def site, decorators; callable from native code", () => {
    const seen: PyFunction[] = [];
    registerNativeModule("fakejit", () => {
      const m = new PyModule("fakejit");
      m.attrs.set("jit", new NativeFunction("jit", (args) => { seen.push(args[0] as PyFunction); return args[0]; }));
      return m;
    });
    const { program } = run("import fakejit\n\n@fakejit.jit\ndef kernel(a, b=2, *rest, scale=1.5, **opts):\n    return (a + b) * scale\n", { file: "/k/j.py" });
    const fn = seen[0];
    expect(fn).toBeInstanceOf(PyFunction);
    expect(fn.name).toBe("kernel");
    expect(fn.params.map((p) => [p.name, p.kind, p.default === undefined ? "-" : pyRepr(p.default)])).toEqual([
      ["a", "pos", "-"], ["b", "pos", "2"], ["rest", "vararg", "-"], ["scale", "kwonly", "1.5"], ["opts", "kwarg", "-"],
    ]);
    expect(fn.site).toEqual({ file: "/k/j.py", line: 4, column: 1, function: "<module>" });
    expect(fn.decorators.length).toBe(1);
    expect(program.call(fn, [1], new Map([["scale", 2]]))).toBe(6);
    expect(fn.call([1, 3], new Map(), { site: fn.site, stack: [] })).toEqual(new PyFloat(6));
  });
  test("bindArgs binds Python-style and reports Python's TypeErrors", () => {
    const r = bindArgs("nl.add", ["x", "y", "dtype=None", "mask=None"], [1, 2], new Map([["mask", true]]));
    expect(r).toEqual({ x: 1, y: 2, dtype: null, mask: true });
    expect(() => bindArgs("add", ["x", "y", "dtype=None"], [1])).toThrow("add() missing 1 required positional argument: 'y'");
    expect(() => bindArgs("add", ["x", "y"], [])).toThrow("add() missing 2 required positional arguments: 'x' and 'y'");
    expect(() => bindArgs("f", ["x"], [1, 2])).toThrow("f() takes 1 positional argument but 2 were given");
    expect(() => bindArgs("f", ["x", "y=1"], [1, 2, 3])).toThrow("f() takes from 1 to 2 positional arguments but 3 were given");
    expect(() => bindArgs("f", ["x"], [1], new Map([["x", 2]]))).toThrow("f() got multiple values for argument 'x'");
    expect(() => bindArgs("f", ["x", "*", "k"], [1])).toThrow("f() missing 1 required keyword-only argument: 'k'");
    const star = bindArgs("f", ["*args", "axis=0", "**kw"], [1, 2], new Map<string, PyValue>([["axis", 1], ["z", 3]]));
    expect(star.args).toEqual(new PyTuple([1, 2]));
    expect(star.axis).toBe(1);
    expect(pyRepr(star.kw)).toBe("{'z': 3}");
    const opt = bindArgs("f", ["x", "dtype=?", "scale=1.0", "name='n'"], [1]);
    expect("dtype" in opt).toBe(false);
    expect(opt.scale).toEqual(new PyFloat(1));
    expect(opt.name).toBe("n");
    let err: unknown;
    try { bindArgs("f", ["x"], []); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(PyException);
    expect((err as PyException).pyType).toBe("TypeError");
  });
  test("repr/str/truthy/typeName helpers", () => {
    const d = new PyDict();
    expect(pyRepr(new PyTuple([1, new PyFloat(2), "a", null, true]))).toBe("(1, 2.0, 'a', None, True)");
    expect(pyStr("x")).toBe("x");
    expect(typeName(new PyFloat(1))).toBe("float");
    expect(truthy(d, { site: { file: "f", line: 1, column: 1, function: "f" }, stack: [] })).toBe(false);
  });
});

describe("stop polls and speed", () => {
  test("an endless loop is stopped at the deadline with KernelTimeoutError naming the line", () => {
    const started = Date.now();
    let err: unknown;
    try { run("n = 0\nwhile True:\n    n += 1\n", { file: "/k/loop.py", deadline: Date.now() + 200 }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(KernelTimeoutError);
    expect((err as KernelTimeoutError).code).toBe("E_TIMEOUT");
    expect((err as KernelTimeoutError).details).toMatchObject({ file: "/k/loop.py", line: 2 });
    expect(Date.now() - started).toBeLessThan(3000);
  });
  test("shouldStop() stops a runaway recursion-free call loop too", () => {
    let polls = 0;
    let err: unknown;
    try { run("def f():\n    return 1\nwhile True:\n    f()\n", { shouldStop: () => ++polls > 5 }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(KernelTimeoutError);
  });
  test("a million simple loop iterations run in well under a few seconds", () => {
    const started = Date.now();
    expect(printed("s = 0\nfor i in range(1000000):\n    s += i * 2 % 7\nprint(s)")).toEqual([String(Array.from({ length: 1e6 }, (_, i) => (i * 2) % 7).reduce((a, b) => a + b, 0))]);
    expect(Date.now() - started).toBeLessThan(2500);
  });
});
