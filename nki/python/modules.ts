// The import system: native modules registered by name (the NKI modules, the standard library
// subset), the kernel's sibling .py files, framework placeholders, and the device packages that
// fail to import as they do on a machine without Neuron devices.

import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { PyException, PyModule, type CallContext, type PyValue } from "./values.js";
import type { Importer, Interpreter } from "./interpreter.js";
import { parseModule } from "./parse.js";
import { Placeholder } from "./placeholder.js";

const registry = new Map<string, () => PyModule>();

/** Makes `import name` (dotted names too) give make()'s module; made once per program, on first import. */
export function registerNativeModule(name: string, make: () => PyModule): void { registry.set(name, make); }
export function isNativeModuleRegistered(name: string): boolean { return registry.has(name); }

/** Packages that need Neuron devices: ImportError, as on a CPU machine. */
const devicePackages = ["torch_xla", "torch_neuronx", "torch_neuron", "jax_neuronx", "neuronxcc.starfish", "libneuronxla", "neuronx_distributed", "transformers_neuronx"];
/** Host-side packages gpsimd does not provide: placeholders. */
const placeholderPackages = ["torch", "torchvision", "jax", "jaxlib", "flax", "optax", "pytest", "argparse", "logging", "time", "timeit", "datetime", "random", "matplotlib", "pandas", "scipy", "tqdm", "transformers", "sklearn", "psutil", "subprocess", "shutil", "tempfile", "pathlib", "json", "pickle", "multiprocessing", "threading", "inspect", "re", "importlib", "queue", "traceback", "diffusers", "csv", "glob", "socket", "signal", "atexit", "abc", "packaging"];

function underPackage(name: string, packages: string[]): boolean {
  return packages.some((p) => name === p || name.startsWith(p + "."));
}

function noModule(name: string): PyException { return new PyException("ModuleNotFoundError", `No module named '${name}'`); }

/** sys.modules for one program: every module imported once. */
export class ModuleLoader implements Importer {
  private readonly loaded = new Map<string, PyValue>();
  /** Directory of each package loaded from files (for its submodules and relative imports). */
  private readonly packageDirs = new WeakMap<PyModule, string>();

  constructor(private readonly interp: Interpreter) {}

  /** Registers a module object under a name (the program's main module). */
  add(name: string, module: PyValue): void { this.loaded.set(name, module); }

  importModule(name: string, fromFile: string, ctx: CallContext): { top: PyValue; leaf: PyValue } {
    const parts = name.split(".");
    let top: PyValue = null, parent: PyValue = null;
    for (let i = 0; i < parts.length; i++) {
      const full = parts.slice(0, i + 1).join(".");
      const m = this.load(full, parent, fromFile, ctx);
      if (i === 0) top = m;
      if (parent instanceof PyModule && parent.attrs.get(parts[i]) === undefined) parent.attrs.set(parts[i], m);
      parent = m;
    }
    return { top, leaf: parent };
  }

  importFrom(name: string, level: number, fromFile: string, ctx: CallContext): PyValue {
    if (level === 0) return this.importModule(name, fromFile, ctx).leaf;
    let dir = dirname(resolve(fromFile));
    for (let i = 1; i < level; i++) dir = dirname(dir);
    if (!name) return this.packageAt(dir);
    const path = this.findFile(dir, name.split("."));
    if (!path) throw noModule(name);
    return this.loadFile(path, name, ctx);
  }

  importSubmodule(module: PyValue, name: string, _fromFile: string, ctx: CallContext): PyValue | undefined {
    if (module instanceof Placeholder) return module.getAttr(name);
    if (!(module instanceof PyModule)) return undefined;
    const dir = this.packageDirs.get(module);
    if (dir !== undefined) {
      const path = this.findFile(dir, [name]);
      if (path) { const m = this.loadFile(path, `${module.name}.${name}`, ctx); module.attrs.set(name, m); return m; }
      return undefined;
    }
    const full = `${module.name}.${name}`;
    if (registry.has(full) || underPackage(full, devicePackages)) {
      const m = this.load(full, module, "", ctx);
      module.attrs.set(name, m);
      return m;
    }
    return undefined;
  }

  private load(full: string, parent: PyValue, fromFile: string, ctx: CallContext): PyValue {
    const hit = this.loaded.get(full);
    if (hit !== undefined) return hit;
    if (underPackage(full, devicePackages)) throw noModule(full);
    const make = registry.get(full);
    if (make) { const m = make(); this.loaded.set(full, m); return m; }
    if (parent instanceof Placeholder) return parent.getAttr(full.split(".").pop()!)!;
    if (parent instanceof PyModule) {
      const attr = parent.attrs.get(full.split(".").pop()!);
      if (attr instanceof PyModule) return attr; // a native package that carries its submodules as attributes
      const dir = this.packageDirs.get(parent);
      if (dir !== undefined) {
        const path = this.findFile(dir, [full.split(".").pop()!]);
        if (path) return this.loadFile(path, full, ctx);
      }
      if (!underPackage(full, placeholderPackages)) throw noModule(full);
    }
    // the importing file's folder comes before host-side placeholders, as the script's folder leads sys.path
    if (parent === null && fromFile) {
      const path = this.findFile(dirname(resolve(fromFile)), [full]);
      if (path) return this.loadFile(path, full, ctx);
    }
    if (underPackage(full, placeholderPackages)) { const p = new Placeholder(full); this.loaded.set(full, p); return p; }
    throw noModule(full);
  }

  /** dir/a/b.py, dir/a/b/__init__.py, or dir/a/b as a namespace package. */
  private findFile(dir: string, parts: string[]): string | undefined {
    const base = join(dir, ...parts);
    if (existsSync(base + ".py")) return base + ".py";
    if (existsSync(join(base, "__init__.py"))) return join(base, "__init__.py");
    if (existsSync(base) && statSync(base).isDirectory()) return base;
    return undefined;
  }

  private packageAt(dir: string): PyModule {
    const key = `dir:${dir}`;
    const hit = this.loaded.get(key);
    if (hit instanceof PyModule) return hit;
    const m = new PyModule(basename(dir));
    this.packageDirs.set(m, dir);
    this.loaded.set(key, m);
    return m;
  }

  private loadFile(path: string, name: string, ctx: CallContext): PyValue {
    const key = `file:${path}`;
    const hit = this.loaded.get(key);
    if (hit !== undefined) return hit;
    if (existsSync(path) && statSync(path).isDirectory()) {
      const pkg = this.packageAt(path);
      this.loaded.set(key, pkg);
      return pkg;
    }
    const module = new PyModule(name);
    if (path.endsWith("__init__.py")) this.packageDirs.set(module, dirname(path));
    module.attrs.set("__name__", name);
    module.attrs.set("__file__", path);
    module.attrs.set("__doc__", null);
    this.loaded.set(key, module);
    try {
      this.interp.runModule(parseModule(path, readFileSync(path, "utf8")), module.attrs, ctx.site);
    } catch (e) {
      this.loaded.delete(key);
      throw e;
    }
    return module;
  }
}
